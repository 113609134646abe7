// A tag that one source of a run carries feeds its view from that series, with no writers worked out (#36).
import { expect, test, vi } from 'vitest';
import * as writers from '../../../src/core/series/writers';
import { SeriesSet } from '../../../src/core/series/series-set';
import type { LiveSource } from '../../../src/core/sources/live-source';
import { LoadProgressTracker } from '../../../src/core/workspace/load-progress';
import { RunLoader } from '../../../src/core/workspace/run-loader';
import { newRunState, type RunState } from '../../../src/core/workspace/run-state';
import { liveEntry } from '../../helpers/live-entry';

vi.mock('../../../src/core/series/writers', async (original) => {
  const real = await original<typeof writers>();
  return { ...real, shownSeriesWriters: vi.fn(real.shownSeriesWriters) };
});

/** A loader over `run` whose pushes land in `emitted` as tag → steps. */
function loaderOf(emitted: { tag: string; steps: number[] }[]): RunLoader {
  return new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: (event, payload) => {
        const p = payload as { tag: string; steps?: ArrayLike<number> };
        if (event === 'series.appended') emitted.push({ tag: p.tag, steps: Array.from(p.steps ?? []) });
      },
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: () => {},
    },
    new LoadProgressTracker(() => {}),
  );
}

/** Adds a CSV source `name` to `run` holding one point per tag at `step`. */
function addSource(loader: RunLoader, run: RunState, name: string, tags: string[], step: number): void {
  const series = new SeriesSet();
  for (const tag of tags) series.add(tag, step, 1_700_000_000 + step, step / 2);
  const path = `/nonexistent-rlwatch-run/${name}`;
  const live: LiveSource = {
    ...{
      path,
      format: 'csv',
      series,
      records: tags.length,
      errors: [],
      progress: null,
      config: null,
      bytesRead: null,
    },
    readMore: async () => {},
    close: () => {},
  };
  loader.add(run, liveEntry({ path, name, format: 'csv', gen: 0, live, set: series }));
}

test('a tag one source carries is fed from that series without working out writers; two sources still do', async () => {
  const shown = vi.mocked(writers.shownSeriesWriters);
  const emitted: { tag: string; steps: number[] }[] = [];
  const loader = loaderOf(emitted);
  const run = newRunState('r', '/nonexistent-rlwatch-run', null);
  addSource(loader, run, 'a.csv', ['loss', 'reward'], 10);
  shown.mockClear();
  await loader.syncViews(
    run,
    new Map([
      ['loss', 'bulk'],
      ['reward', 'bulk'],
    ]),
  );
  expect(shown).not.toHaveBeenCalled();
  expect(emitted).toEqual([
    { tag: 'loss', steps: [10] },
    { tag: 'reward', steps: [10] },
  ]);
  // A second source carrying `loss`: its writers are worked out as before.
  addSource(loader, run, 'b.csv', ['loss'], 20);
  emitted.length = 0;
  await loader.syncViews(run, new Map([['loss', 'bulk']]));
  expect(shown).toHaveBeenCalledTimes(1);
  expect(emitted.flatMap((e) => e.steps)).toContain(20);
});
