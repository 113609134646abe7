// The workspace's sweep (re-reading sources in case a file event was missed) is bounded per tick and goes round every source.

import { expect, test } from 'vitest';
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
