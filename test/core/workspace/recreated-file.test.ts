// A file deleted and re-created at its path (ext4 reuses the inode) is a new file: the old data stays
// as a dead source; a file truncated in place is still a truncation (its earlier contents kept, marked rewritten).

import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
});

const rows = (from: number, n: number): string =>
  Array.from({ length: n }, (_, i) => `${from + i},${(from + i) / 100}\n`).join('');

function window(tag: string): number[] {
  return [...ws!.getWindow(basename(dir!), tag, { pixels: 10_000 })!.steps];
}

test('deleted and re-created at the same path: old points stay (dead source), new ones follow', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-recreate-'));
  const csv = join(dir, 'progress.csv');
  writeFileSync(csv, `step,loss\n${rows(0, 85)}`);
  ws = createWorkspace({ sweepMs: 100 });
  await ws.open(dir);
  expect(window('loss')).toHaveLength(85);

  unlinkSync(csv);
  writeFileSync(csv, `step,loss\n${rows(0, 3)}`);
  // On ext4 (as here) an immediate re-create usually reuses the inode: the case inode identity cannot tell.
  await waitFor(() => ws!.listRuns()[0]!.sources.length === 2, 'the old file kept as a dead source', 5000);
  const sources = ws.listRuns()[0]!.sources;
  expect(sources.map((s) => s.dead)).toEqual([true, false]);
  // The new file's steps go back: a restart, the old points past it leave the view but stay in memory.
  await waitFor(() => window('loss').length === 3, 'the new file shown', 5000);
  expect(ws.storedStats().points).toBe(85 + 3);
});

test('truncated in place and rewritten: a truncation, the earlier contents kept as an earlier session', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-truncate-'));
  const csv = join(dir, 'progress.csv');
  writeFileSync(csv, `step,loss\n${rows(0, 85)}`);
  ws = createWorkspace({ sweepMs: 100 });
  await ws.open(dir);
  expect(window('loss')).toHaveLength(85);
  writeFileSync(csv, `step,loss\n${rows(0, 3)}`);
  await waitFor(() => window('loss').length === 3, 'the rewritten file shown', 5000);
  expect(ws.listRuns()[0]!.sources.map((s) => [s.dead, s.rewritten ?? false])).toEqual([
    [true, true],
    [false, false],
  ]);
  expect(ws.storedStats().points).toBe(85 + 3);
});
