// A series the memory cap thinned answers a zoomed window with its exact values read back from the file: every point
// of the range, the live view's bookkeeping kept; a file replaced since gets the envelope, never another file's points.

import { renameSync } from 'node:fs';
import { basename } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import {
  CAP_MB,
  exactInZoom as exact,
  loss,
  reward,
  STEPS,
  writeThinnedRun,
  ZOOM,
} from '../../helpers/thinned-run';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

/** The run opened under the cap (`capMb`): both tags thinned in the zoomed range. */
async function openThinned(capMb = CAP_MB): Promise<{ run: string; file: string; dir: string }> {
  const dir = tmp('rlwatch-exact-');
  const file = writeThinnedRun(dir);
  ws = new Workspace({
    discover,
    createSource,
    watch: false,
    memoryCap: { bytes: capMb * 2 ** 20, fromEnv: true },
  });
  await ws.open(dir);
  const run = basename(dir);
  expect(ws.listRuns()[0]!.thinned?.read).toBe(2 * STEPS);
  for (const tag of ['loss', 'reward']) expect(ws.getWindow(run, tag, ZOOM)!.inRange).toBeLessThan(1000);
  return { run, file, dir };
}

test('a zoomed window of a thinned series is read back exact: every step of the range, as the file holds it', async () => {
  const { run } = await openThinned();
  const envelope = ws!.getWindow(run, 'loss', ZOOM)!;
  expect(envelope.inRange).toBeLessThan(1000);
  expect(exact(envelope, loss)).toBe(false);

  // Both charts of a linked zoom ask at once: both are read back (one read of the file serves them).
  await Promise.all([ws!.readExact(run, 'loss', ZOOM), ws!.readExact(run, 'reward', ZOOM)]);
  const w = ws!.getWindow(run, 'loss', ZOOM)!;
  expect(exact(w, loss)).toBe(true);
  expect(exact(ws!.getWindow(run, 'reward', ZOOM)!, reward)).toBe(true);
  // The live view's bookkeeping is the live view's: appended points continue from its length, not the file's.
  expect(w.length).toBe(envelope.length);
  expect(w.extent).toEqual(envelope.extent);
  // The stored series stay thinned: what was read back is not stored in the run.
  expect(ws!.listRuns()[0]!.thinned!.kept).toBeLessThan(2 * STEPS);
});

test('the read-back view answers later zooms without the file; a file replaced since is never read back', async () => {
  const { run, file, dir } = await openThinned();
  await ws!.readExact(run, 'loss', ZOOM);
  // The file goes away: a zoom already read back still answers exactly (from the cache, no read).
  renameSync(file, `${file}.moved`);
  const narrower = { ...ZOOM, xMin: 2_100 };
  await ws!.readExact(run, 'loss', narrower);
  expect(ws!.getWindow(run, 'loss', narrower)!.inRange).toBe(900);

  // Another file now at the path (other values, another inode): reward, never read back, keeps its envelope.
  writeThinnedRun(dir, 3);
  await ws!.readExact(run, 'reward', ZOOM);
  const w = ws!.getWindow(run, 'reward', ZOOM)!;
  expect(w.inRange).toBeLessThan(1000);
  // Every point shown is one the run read from its own file (the envelope keeps real points), none of the new file's.
  for (let i = 0; i < w.steps.length; i++) expect(w.values[i]).toBe(Math.fround(reward(w.steps[i]!)));
});

test('a file too large to read back whole is read back for the zoomed tag alone (an event file)', async () => {
  // Under a 6 MB cap one file's read may take 1.5 MB: both tags' 80k points (24 B each, 1.9 MB) do not fit, one
  // tag's 40k (0.96 MB) does.
  const { run } = await openThinned(6);
  await ws!.readExact(run, 'loss', ZOOM);
  expect(exact(ws!.getWindow(run, 'loss', ZOOM)!, loss)).toBe(true);
  // The other tag was not read with it: its zoom is still the envelope until asked.
  expect(exact(ws!.getWindow(run, 'reward', ZOOM)!, reward)).toBe(false);
  await ws!.readExact(run, 'reward', ZOOM);
  expect(exact(ws!.getWindow(run, 'reward', ZOOM)!, reward)).toBe(true);
});
