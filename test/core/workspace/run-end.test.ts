// A W&B run that crashed shows as crashed: exit record with a non-zero code, or a log cut mid-record that stopped growing.

import { cpSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LevelDbLogReader } from '../../../src/core/wandb/leveldb-log';
import { createWorkspace } from '../../../src/core/workspace/create';
import { QUIET_CUT_TAIL_MS, wandbRunEnd } from '../../../src/core/workspace/run-end';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { fixture } from '../readers/helpers';
import { frameLog, rec } from '../wandb/wandb-log-writer';
import { waitFor } from '../../helpers/wait-for';

const NOW = 1_800_000_000_000;
const fields = (f: Record<string, unknown>) => ({ fraction: null, etaSeconds: null, fields: f });

describe('wandbRunEnd', () => {
  test('the exit record decides: 0 finished, anything else crashed', () => {
    const log = { bytesRead: 100, size: 100, mtimeMs: NOW };
    expect(wandbRunEnd({ ...log, progress: fields({ finished: true, exit_code: 0 }) }, NOW)).toBe('finished');
    expect(wandbRunEnd({ ...log, progress: fields({ finished: true, exit_code: 255 }) }, NOW)).toBe(
      'crashed',
    );
    expect(wandbRunEnd({ ...log, progress: fields({ finished: false }) }, NOW)).toBeNull();
    expect(wandbRunEnd({ ...log, progress: null }, NOW)).toBeNull();
  });

  test('a cut-off tail is a crash only once the file stopped growing', () => {
    const cut = { progress: null, bytesRead: 90, size: 100 };
    expect(wandbRunEnd({ ...cut, mtimeMs: NOW - 1000 }, NOW)).toBeNull();
    expect(wandbRunEnd({ ...cut, mtimeMs: NOW - QUIET_CUT_TAIL_MS }, NOW)).toBe('crashed');
    expect(wandbRunEnd({ ...cut, bytesRead: 100, mtimeMs: NOW - 10 * QUIET_CUT_TAIL_MS }, NOW)).toBeNull();
  });
});

describe('LevelDB log consumed bytes', () => {
  test('stop before a record cut off by the end of the bytes fed', () => {
    const whole = frameLog([rec.run('abc', 1_700_000_000), rec.history([['loss', '0.5']])]);
    const full = new LevelDbLogReader();
    full.push(whole, 0);
    expect(full.consumedBytes()).toBe(whole.length);
    const cut = new LevelDbLogReader();
    cut.push(whole.subarray(0, whole.length - 3), 0);
    expect(cut.consumedBytes()).toBeLessThan(whole.length - 3);
  });
});

let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

async function openRun(setup: (runDir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-end-'));
  const runDir = join(dir, 'run-20260102_030305-x');
  mkdirSync(runDir);
  setup(runDir);
  ws = createWorkspace({});
  await ws.open(dir);
  await waitFor(() => ws!.listRuns()[0]?.loaded === true, 'loaded');
  return ws.listRuns()[0]!;
}

describe('RunInfo.ended in the workspace', () => {
  test('a real W&B run that exited with code 1 is crashed', async () => {
    const info = await openRun((runDir) =>
      cpSync(
        fixture('wandb/wandb__wandb/leet-workspace-multi/run-20260102_030305-wm4crash/run-wm4crash.wandb'),
        join(runDir, 'run-x.wandb'),
      ),
    );
    expect(info.ended).toBe('crashed');
  });

  test('a W&B log cut mid-record and untouched for minutes is crashed; a whole one that is quiet is not', async () => {
    const whole = frameLog([
      rec.run('x', 1_700_000_000),
      rec.history([['loss', '0.5']]),
      rec.history([['loss', '0.4']]),
    ]);
    const old = (Date.now() - 2 * QUIET_CUT_TAIL_MS) / 1000;
    const cut = await openRun((runDir) => {
      const p = join(runDir, 'run-x.wandb');
      writeFileSync(p, whole.subarray(0, whole.length - 5));
      utimesSync(p, old, old);
    });
    expect(cut.ended).toBe('crashed');
    await ws!.close();
    const quiet = await openRun((runDir) => {
      const p = join(runDir, 'run-x.wandb');
      writeFileSync(p, whole);
      utimesSync(p, old, old);
    });
    expect(quiet.ended).toBeNull();
  });
});
