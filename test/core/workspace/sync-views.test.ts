// A read's views are refreshed tag after tag without a turn between them while the loader's slice lasts, and its
// deltas go out together once more as one `series.read` (#36).
import { afterEach, expect, test, vi } from 'vitest';
import type { SeriesDelta } from '../../../src/shared/domain';
import { SeriesSet } from '../../../src/core/series/series-set';
import type { LiveSource } from '../../../src/core/sources/live-source';
import { LoadProgressTracker } from '../../../src/core/workspace/load-progress';
import { RunLoader } from '../../../src/core/workspace/run-loader';
import { newRunState } from '../../../src/core/workspace/run-state';
import { liveEntry } from '../../helpers/live-entry';

afterEach(() => vi.restoreAllMocks());

test('the deltas of every tag of a read go out in one go while the slice lasts: no await per tag', async () => {
  const emitted: { event: string; tag: string; steps: number[] }[] = [];
  const reads: { run: string; deltas: SeriesDelta[] }[] = [];
  const loader = new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: (event, payload) => {
        if (event === 'series.read') return void reads.push(payload as (typeof reads)[number]);
        const p = payload as { tag: string; steps?: ArrayLike<number> };
        emitted.push({ event, tag: p.tag, steps: Array.from(p.steps ?? []) });
      },
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: () => {},
    },
    new LoadProgressTracker(() => {}),
  );
  const run = newRunState('r', '/nonexistent-rlwatch-run', null);
  const series = new SeriesSet();
  const tags = ['a', 'b', 'c', 'd'];
  for (const [i, tag] of tags.entries()) series.add(tag, 10 + i, 1_700_000_000, i / 2);
  const path = '/nonexistent-rlwatch-run/m.csv';
  const live: LiveSource = {
    ...{ path, format: 'csv', series, records: 4, errors: [], progress: null, config: null, bytesRead: null },
    readMore: async () => {},
    close: () => {},
  };
  const entry = liveEntry({ path, name: 'm.csv', format: 'csv', gen: 0, live, set: series });
  loader.add(run, entry);
  // The slice never runs out: the clock stands still (from before the loader's last yield).
  vi.spyOn(performance, 'now').mockReturnValue(performance.now());
  await loader.pause(false);
  const done = loader.syncViews(run, new Map(tags.map((t) => [t, 'bulk'] as const)));
  // Before any microtask turn: every tag's delta is out.
  expect(emitted).toEqual(tags.map((tag, i) => ({ event: 'series.appended', tag, steps: [10 + i] })));
  // …and once more together, the very deltas, as the read's one `series.read`.
  expect(reads).toHaveLength(1);
  expect(reads[0]!.run).toBe('r');
  expect(reads[0]!.deltas.map((d) => [d.tag, Array.from(d.steps)])).toEqual(
    tags.map((t, i) => [t, [10 + i]]),
  );
  await done;
  expect(emitted).toHaveLength(tags.length);
  expect(reads).toHaveLength(1);
});
