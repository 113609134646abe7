// The workspace's sweep (re-reading sources in case a file event was missed) is bounded per tick, goes round every
// source, and on a local disk costs each source a synchronous tail read.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';
import { SeriesSet } from '../../../src/core/series/series-set';
import type { LiveSource } from '../../../src/core/sources/live-source';
import { LoadProgressTracker } from '../../../src/core/workspace/load-progress';
import { RunLoader } from '../../../src/core/workspace/run-loader';
import { newRunState, type LiveEntry } from '../../../src/core/workspace/run-state';

function fakeSource(path: string, reads: Map<string, number>): LiveSource {
  return {
    path,
    format: 'csv',
    series: new SeriesSet(),
    records: 0,
    errors: [],
    progress: null,
    config: null,
    bytesRead: null,
    readMore: async () => void reads.set(path, (reads.get(path) ?? 0) + 1),
    close: () => {},
  };
}

test('a sweep reads at most its budget of sources and the next sweep goes on where it stopped', async () => {
  const loader = new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: () => {},
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: () => {},
    },
    new LoadProgressTracker(() => {}),
  );
  const run = newRunState('r', '/nonexistent-rlwatch-run', null);
  run.loaded = true;
  const reads = new Map<string, number>();
  const paths = ['a', 'b', 'c', 'd', 'e'].map((n) => `/nonexistent-rlwatch-run/${n}.csv`);
  for (const [i, path] of paths.entries()) {
    const live = fakeSource(path, reads);
    const entry: LiveEntry = {
      ...{ state: 'live', path, name: `${i}`, format: 'csv', gen: i, live, set: live.series },
      ...{
        identity: null,
        size: 0,
        mtimeMs: null,
        queued: null,
        head: null,
        unlinkSeen: false,
        snapshot: false,
      },
    };
    loader.add(run, entry);
  }
  const counts = async (max: number): Promise<number[]> => {
    loader.sweep(max);
    await run.chain;
    return paths.map((p) => reads.get(p) ?? 0);
  };
  expect(await counts(2)).toEqual([1, 1, 0, 0, 0]);
  expect(await counts(2)).toEqual([1, 1, 1, 1, 0]);
  expect(await counts(2)).toEqual([1, 1, 1, 1, 1]);
  expect(await counts(2)).toEqual([2, 2, 1, 1, 1]);
  expect(await counts(2)).toEqual([2, 2, 2, 2, 1]);
  expect(await counts(2)).toEqual([2, 2, 2, 2, 2]);
  // A budget above the number of sources reads each once per sweep (the small-folder case: unchanged).
  expect(await counts(10)).toEqual([3, 3, 3, 3, 3]);
  expect(await counts(10)).toEqual([4, 4, 4, 4, 4]);
});

test("a local folder's sweep checks each event file with a synchronous tail read, never a threadpool read", async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-sweep-'));
  const runs = ['a', 'b', 'c'];
  for (const r of runs) {
    mkdirSync(join(root, r));
    const w = new EventFileWriter(join(root, r), { wallTime: 1_700_000_000 });
    w.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', 1_700_000_000);
    w.close();
  }
  // Every read each source is asked for, with its options (the sweep's are the only ones once the folder is read).
  const reads: { path: string; sync: boolean }[] = [];
  const ws = new Workspace({
    discover,
    sweepMs: 20,
    // No network filesystem: the folder is on a local disk.
    readMountInfo: async () => '',
    createSource: (path, format, opts) => {
      const source = createSource(path, format, opts);
      const readMore = source.readMore.bind(source);
      source.readMore = (o) => {
        reads.push({ path, sync: o?.syncTailBytes !== undefined });
        return readMore(o);
      };
      return source;
    },
  });
  try {
    await ws.open(root);
    const loaded = reads.length;
    await waitFor(() => reads.length >= loaded + 3 * runs.length, 'three sweeps');
    const swept = reads.slice(loaded);
    expect(new Set(swept.map((r) => r.path)).size).toBe(runs.length);
    expect(swept.filter((r) => !r.sync)).toEqual([]);
    expect(ws.listRuns().map((r) => r.points)).toEqual([1, 1, 1]);
  } finally {
    await ws.close();
    rmSync(root, { recursive: true, force: true });
  }
});
