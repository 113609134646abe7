// On a filesystem without birth times that reuses inodes, a deleted and re-created file is still told
// from a truncated one: by its first bytes, and by the delete event seen before it came back.

import type { Stats } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';

/** What the faked filesystem does: every stat has no birth time and the same inode for the log, and
 * `onStat` (once) runs before the next stat of the log (to re-create it at a chosen moment). */
const fake = vi.hoisted(() => ({ log: '', onStat: null as (() => void) | null }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const stat = async (path: string, ...rest: unknown[]): Promise<Stats> => {
    if (path === fake.log && fake.onStat) {
      const run = fake.onStat;
      fake.onStat = null;
      run();
    }
    const st = (await (fs.stat as (...a: unknown[]) => Promise<Stats>)(path, ...rest)) as Stats;
    st.birthtimeMs = 0;
    st.birthtime = new Date(0);
    if (path === fake.log) st.ino = 4242;
    return st;
  };
  return { ...fs, default: { ...fs, stat }, stat };
});

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
  fake.onStat = null;
});

const rows = (from: number, n: number, scale = 100): string =>
  Array.from({ length: n }, (_, i) => `${from + i},${(from + i) / scale}\n`).join('');

function window(tag: string): number[] {
  return [...ws!.getWindow(basename(dir!), tag, { pixels: 10_000 })!.steps];
}

async function openLog(sweepMs: number): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-nobirth-'));
  fake.log = join(dir, 'progress.csv');
  writeFileSync(fake.log, `step,loss\n${rows(0, 85)}`);
  ws = createWorkspace({ sweepMs });
  await ws.open(dir);
  expect(window('loss')).toHaveLength(85);
  return fake.log;
}

test('no birth time, inode reused: a re-created file with another start is a new source, the old data stays', async () => {
  const csv = await openLog(100);
  unlinkSync(csv);
  writeFileSync(csv, `step,loss,reward\n${rows(0, 3, 7)}`);
  await waitFor(() => ws!.listRuns()[0]!.sources.length === 2, 'the old file kept as a dead source', 5000);
  expect(ws!.listRuns()[0]!.sources.map((s) => s.dead)).toEqual([true, false]);
  await waitFor(() => window('loss').length === 3, 'the new file shown', 5000);
  expect(ws!.storedStats().points).toBe(85 + 3);
});

test('no birth time, inode reused, same start: the delete event seen before it came back makes it a new source', async () => {
  // No sweep: only the watcher's events read, so the delete is reported before any read of the new file.
  const csv = await openLog(60_000);
  // The file comes back (a prefix of the old one: byte for byte what a truncation would leave) just
  // after the watcher reported it deleted, when the workspace checks whether it is gone.
  fake.onStat = () => writeFileSync(csv, `step,loss\n${rows(0, 3)}`);
  unlinkSync(csv);
  await waitFor(() => ws!.listRuns()[0]!.sources.length === 2, 'the old file kept as a dead source', 5000);
  expect(ws!.listRuns()[0]!.sources.map((s) => s.dead)).toEqual([true, false]);
  await waitFor(() => window('loss').length === 3, 'the new file shown', 5000);
  expect(ws!.storedStats().points).toBe(85 + 3);
});

test('no birth time: truncated in place and rewritten with the same start is still a truncation', async () => {
  const csv = await openLog(100);
  writeFileSync(csv, `step,loss\n${rows(0, 3)}`);
  await waitFor(() => window('loss').length === 3, 'the rewritten file shown', 5000);
  // A truncation (not a new file): the earlier contents stay, marked as rewritten, until the new ones differ
  // (a session) or repeat them whole (dropped).
  expect(ws!.listRuns()[0]!.sources.map((s) => [s.dead, s.rewritten ?? false])).toEqual([
    [true, true],
    [false, false],
  ]);
  expect(ws!.storedStats().points).toBe(85 + 3);
});
