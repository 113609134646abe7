// Hostile folders: symlink loops and a link out to /usr cost a bounded number of watched folders,
// the data stays live, and hitting the watch budget is a notice.

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { DEFAULT_MAX_OTHER_FOLDERS } from '../../../src/core/workspace/folder-watcher';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
});

/** A workspace that only the watcher can keep live: the catch-up sweep is off for the test's length. */
function open(maxWatchedFolders?: number) {
  ws = new Workspace({
    discover,
    createSource,
    sweepMs: 600_000,
    ...(maxWatchedFolders === undefined ? {} : { maxWatchedFolders }),
  });
  const deltas: SeriesDelta[] = [];
  const notices: string[] = [];
  ws.on('series.appended', (d) => deltas.push(d));
  ws.on('app.notice', (n) => notices.push(n.message));
  return { ws, deltas, notices };
}

function lossSteps(deltas: SeriesDelta[], run: string): number[] {
  return deltas.filter((d) => d.run === run && d.tag === 'loss').flatMap((d) => [...d.steps]);
}

test('the total budget caps the run tree too', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-many-'));
  for (let i = 0; i < 12; i++) {
    mkdirSync(join(dir, `run-${i}`));
    writeFileSync(join(dir, `run-${i}`, 'metrics.csv'), 'step,loss\n0,1.0\n');
  }
  const { ws, notices } = open(5);
  await ws.open(dir);
  expect(ws.listRuns()).toHaveLength(12);
  expect(ws.watchedFolderCount()).toBe(5);
  expect(notices.filter((m) => m.startsWith('watching 5 folders, the most allowed: 8 more'))).toHaveLength(1);
});

test('three links back to the folder: one folder watched, loops reported, rows still arrive', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-loops-'));
  const csv = join(dir, 'metrics.csv');
  writeFileSync(csv, 'step,loss\n0,1.0\n');
  for (const n of ['s1', 's2', 's3']) symlinkSync('.', join(dir, n));
  const { ws, deltas, notices } = open();
  await ws.open(dir);
  expect(ws.listRuns().map((r) => r.run)).toEqual([basename(dir!)]);
  expect(ws.watchedFolderCount()).toBe(1);
  expect(notices.filter((m) => /symbolic link loop/.test(m))).toHaveLength(3);
  appendFileSync(csv, '1,0.5\n');
  await waitFor(() => lossSteps(deltas, basename(dir!)).includes(1), 'the appended row', 5000);
});

test('a link out to /usr: the watched folders stay within the budget, with a notice, and rows arrive', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-usr-'));
  mkdirSync(join(dir, 'run1'));
  const csv = join(dir, 'run1', 'metrics.csv');
  writeFileSync(csv, 'step,loss\n0,1.0\n');
  symlinkSync('/usr', join(dir, 'usr'));
  const { ws, deltas, notices } = open();
  await ws.open(dir);
  // The run tree (the folder, run1, and the few runs /usr holds with the folders above them), then
  // /usr's other folders up to their own budget: tens, not the thousands /usr has.
  const watched = ws.watchedFolderCount();
  expect(watched).toBeGreaterThan(DEFAULT_MAX_OTHER_FOLDERS);
  expect(watched).toBeLessThan(DEFAULT_MAX_OTHER_FOLDERS + 100);
  expect(notices.filter((m) => m.startsWith(`watching ${watched} folders, the most allowed`))).toHaveLength(
    1,
  );
  appendFileSync(csv, '1,0.5\n');
  await waitFor(() => lossSteps(deltas, 'run1').includes(1), 'the appended row', 5000);
  // A run created later under a watched folder is found: by a rediscovery, which walks /usr again through the link
  // (≈ 13k folders on the CI machine once Debian's numpy/scipy and other packages are in: 5–13 s at load 5–10).
  mkdirSync(join(dir, 'run2'));
  writeFileSync(join(dir, 'run2', 'metrics.csv'), 'step,loss\n0,2.0\n');
  await waitFor(() => ws.listRuns().some((r) => r.run === 'run2'), 'the new run', 40_000);
}, 90_000);
