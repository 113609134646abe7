// Freshness per format: a row appended to a live CSV / JSONL / trainer_state.json run moves lastEventAt and sends runs.changed.

import { appendFileSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import { THROTTLE_MS } from '../../../src/core/workspace/load-progress';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { RunInfo } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

/** A file's mtime set to `sec` seconds since the epoch. */
function touch(path: string, sec: number): void {
  utimesSync(path, sec, sec);
}

/** Lets the throttled runs.changed of the load go out, then forgets what was pushed. */
async function settle(pushed: RunInfo[][]): Promise<void> {
  await new Promise((res) => setTimeout(res, 4 * THROTTLE_MS));
  pushed.length = 0;
}

/** An hour ago, in whole seconds. */
const OLD = Math.floor(Date.now() / 1000) - 3600;

interface Format {
  name: string;
  file: string;
  first: string;
  /** The file after one more row. */
  grow(path: string): void;
}

const formats: Format[] = [
  {
    name: 'SB3 progress.csv (no wall-time column)',
    file: 'progress.csv',
    first: 'time/total_timesteps,rollout/ep_rew_mean\n2048,1.5\n',
    grow: (p) => appendFileSync(p, '4096,2.5\n'),
  },
  {
    name: 'metrics.jsonl (no wall-time key)',
    file: 'metrics.jsonl',
    first: '{"step": 1, "loss": 0.9}\n',
    grow: (p) => appendFileSync(p, '{"step": 2, "loss": 0.8}\n'),
  },
  {
    name: 'trainer_state.json (rewritten whole)',
    file: 'trainer_state.json',
    first: JSON.stringify({ global_step: 1, log_history: [{ step: 1, loss: 0.9 }] }),
    grow: (p) =>
      writeFileSync(
        p,
        JSON.stringify({
          global_step: 2,
          log_history: [
            { step: 1, loss: 0.9 },
            { step: 2, loss: 0.8 },
          ],
        }),
      ),
  },
];

describe('freshness of live runs without a progress file', () => {
  for (const f of formats) {
    test(`${f.name}: a new row moves lastEventAt to the write time and is announced`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rlwatch-fresh-'));
      const runDir = join(dir, 'run1');
      mkdirSync(runDir);
      const path = join(runDir, f.file);
      writeFileSync(path, f.first);
      touch(path, OLD);
      ws = createWorkspace({});
      const pushed: RunInfo[][] = [];
      ws.on('runs.changed', (r) => pushed.push(r));
      await ws.open(dir);
      await waitFor(() => ws!.listRuns()[0]?.loaded === true, 'loaded');
      expect(ws.listRuns()[0]!.lastEventAt).toBe(OLD * 1000);
      await settle(pushed);

      f.grow(path);
      const written = statSync(path).mtimeMs;
      await waitFor(
        () => pushed.some((runs) => (runs[0]?.lastEventAt ?? 0) >= Math.floor(written) - 1),
        'a runs.changed with the new lastEventAt',
      );
      const last = pushed.at(-1)![0]!;
      expect(last.lastEventAt).toBeGreaterThanOrEqual(Math.floor(written) - 1);
      expect(last.fileWrittenAt).toBe(written);
      expect(last.points).toBeGreaterThan(1);
    });
  }
});

test('a read error found by a live read is announced in runs.changed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-fresh-'));
  mkdirSync(join(dir, 'run1'));
  const path = join(dir, 'run1', 'metrics.jsonl');
  writeFileSync(path, '{"step": 1, "loss": 0.9}\n');
  ws = createWorkspace({});
  const pushed: RunInfo[][] = [];
  ws.on('runs.changed', (r) => pushed.push(r));
  await ws.open(dir);
  await waitFor(() => ws!.listRuns()[0]?.loaded === true, 'loaded');
  await settle(pushed);
  appendFileSync(path, '{"step": 2, "loss": \n');
  await waitFor(
    () => pushed.some((runs) => (runs[0]?.sources[0]?.errors.length ?? 0) > 0),
    'a runs.changed carrying the decode error',
  );
  expect(pushed.at(-1)![0]!.sources[0]!.errors[0]!.kind).toBe('decode');
});
