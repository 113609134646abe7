// FolderWatcher: appends that chokidar's 50 ms change throttle swallows still reach the workspace.

import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FolderWatcher } from '../../../src/core/workspace/folder-watcher';

let watcher: FolderWatcher | null = null;
let dir: string | null = null;
afterEach(async () => {
  await watcher?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  watcher = null;
  dir = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a burst of appends inside the throttle window is followed by one more change callback', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-fw-'));
  const file = join(dir, 'metrics.csv');
  writeFileSync(file, 'step,loss\n');
  const calls: number[] = [];
  watcher = new FolderWatcher(dir, {
    onBudgetHit: () => {},
    usePolling: false,
    onStructureChange: () => {},
    onFileChange: (p) => {
      if (p === file) calls.push(performance.now());
    },
    onFileRemoved: () => {},
    onError: () => {},
  });
  await watcher.ready();
  // Wait for the first append to be reported, then append twice more well inside chokidar's 50 ms throttle.
  appendFileSync(file, '1,0.5\n');
  const deadline = Date.now() + 5000;
  while (calls.length === 0 && Date.now() < deadline) await sleep(2);
  expect(calls.length).toBeGreaterThan(0);
  appendFileSync(file, '2,0.4\n');
  appendFileSync(file, '3,0.3\n');
  const lastWrite = performance.now();
  // Without the trailing read chokidar reports nothing more; the 1 s sweep would be the only rescue.
  while (!calls.some((t) => t > lastWrite) && Date.now() < deadline) await sleep(5);
  expect(calls.some((t) => t > lastWrite)).toBe(true);
});

test('every append fs.watch reports reaches onFileWritten at once, inside the throttle window too; dot-files do not', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-fw-'));
  const file = join(dir, 'metrics.csv');
  const temp = join(dir, '.metrics.csv.tmp');
  writeFileSync(file, 'step,loss\n');
  writeFileSync(temp, '');
  const written: string[] = [];
  watcher = new FolderWatcher(dir, {
    onBudgetHit: () => {},
    usePolling: false,
    onStructureChange: () => {},
    onFileChange: () => {},
    onFileWritten: (p) => {
      written.push(p);
      return true;
    },
    onFileRemoved: () => {},
    onError: () => {},
  });
  await watcher.ready();
  const deadline = Date.now() + 5000;
  appendFileSync(temp, 'x');
  appendFileSync(file, '1,0.5\n');
  while (!written.includes(file) && Date.now() < deadline) await sleep(2);
  const first = written.length;
  // Right after a reported change: chokidar's `change` would drop this one.
  appendFileSync(file, '2,0.4\n');
  while (written.length === first && Date.now() < deadline) await sleep(2);
  expect(written.length).toBeGreaterThan(first);
  expect(new Set(written)).toEqual(new Set([file]));
});
