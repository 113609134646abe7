// `rlwatch watch` in-process: the compact form writes to stdout only when it has text (a run's line, an alert),
// never once per appended delta.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { runWatch } from '../../src/cli/watch-command';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { waitFor } from '../helpers/wait-for';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test('the compact form makes no empty writes: one write per printed text while 40 deltas arrive', async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-watch-cmd-'));
  dirs.push(root);
  mkdirSync(join(root, 'run'));
  // No saved settings: a store path where there is none.
  vi.stubEnv('RLWATCH_STORE', join(root, 'no-store', 'rlwatch.db'));
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  const writer = new EventFileWriter(join(root, 'run'), { wallTime: 1_700_000_000 });
  writer.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', 1_700_000_000);
  writer.flush();
  const done = runWatch([root, '--no-system']);
  await waitFor(() => writes.some((w) => w.includes('run')), 'the first line');
  const tags = ['a', 'b', 'c', 'd'];
  for (let step = 1; step <= 10; step++) {
    for (const tag of tags) writer.scalars(step, [{ tag, value: step }], 'simple', 1_700_000_000 + step);
    writer.flush();
    await new Promise((r) => setTimeout(r, 20));
  }
  writer.close();
  await waitFor(() => writes.some((w) => /step 10\b/.test(w)), 'the line at step 10');
  process.emit('SIGINT');
  expect(await done).toBe(0);
  expect(writes.filter((w) => w === '')).toEqual([]);
});
