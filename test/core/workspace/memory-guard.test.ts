// The memory guard sums the held bytes in place and lists the series for the cap only past it; what it decides
// (thinning at the cap, the notice, the runs started over) is what the cap's check decides.

import { afterEach, expect, test, vi } from 'vitest';
import type { SeriesDelta } from '../../../src/shared/domain';
import { MemoryCap, SERIES_SHARE, TRIGGER_SHARE } from '../../../src/core/series/memory-cap';
import { SeriesSet } from '../../../src/core/series/series-set';
import type { LiveSource } from '../../../src/core/sources/live-source';
import { LoadProgressTracker } from '../../../src/core/workspace/load-progress';
import { MemoryGuard } from '../../../src/core/workspace/memory-guard';
import { RunLoader } from '../../../src/core/workspace/run-loader';
import { newRunState, type RunState, type SourceEntry } from '../../../src/core/workspace/run-state';
import { liveEntry } from '../../helpers/live-entry';

afterEach(() => {
  vi.restoreAllMocks();
});

const CAP = 2 ** 20;

/** A run whose one source holds `tags` series of `points` points each (16 bytes a point, capacity included). */
function runWith(name: string, tags: number, points: number): RunState {
  const run = newRunState(name, `/nonexistent/${name}`, null);
  const set = new SeriesSet();
  for (let t = 0; t < tags; t++)
    for (let i = 0; i < points; i++) set.add(`tag${t}`, i, 1_700_000_000 + i, Math.sin(i));
  run.entries.push({ set } as unknown as SourceEntry);
  return run;
}

function guardOver(runs: RunState[]) {
  const said: { level: string; text: string }[] = [];
  const resynced: string[] = [];
  const changed: (boolean | undefined)[] = [];
  const guard = new MemoryGuard(
    { bytes: CAP, fromEnv: true },
    {
      runs: () => runs,
      resync: (name) => resynced.push(name),
      runsChanged: (now) => changed.push(now),
      notice: (level, text) => said.push({ level, text }),
    },
  );
  return { guard, said, resynced, changed };
}

test('far under the cap a check lists no series for the cap and thins nothing; past it, it thins and says so as before (#36)', () => {
  const enforce = vi.spyOn(MemoryCap.prototype, 'enforce');
  const small = runWith('small', 8, 200); // 8 × 256-point columns: 32 KB
  const runs = [small];
  const { guard, said, resynced, changed } = guardOver(runs);
  guard.check('loaded');
  guard.check('loaded');
  expect(enforce).not.toHaveBeenCalled();
  expect(said).toEqual([]);
  expect(guard.thinned()).toBeNull();

  // One series past its share of the cap (1/16: 64 KB): thinned at the next check, its run started over, said.
  const big = runWith('big', 1, 8_000); // 8,192-point columns: 128 KB
  expect(big.entries[0]!.set.get('tag0').byteSize).toBeGreaterThan(CAP * SERIES_SHARE);
  runs.push(big);
  guard.check('loaded');
  expect(enforce).toHaveBeenCalledTimes(1);
  expect(resynced).toEqual(['big']);
  expect(changed).toEqual([true]);
  expect(said).toHaveLength(1);
  expect(said[0]!.level).toBe('warning');
  expect(said[0]!.text).toMatch(
    /^rlwatch kept 1 in \d+ points .* of 1 run to stay under the 1 MB memory cap/,
  );
  expect(guard.thinned()!.runs).toBe(1);
  expect(small.entries[0]!.set.get('tag0').dropped).toBe(0);

  // Under the cap again: no list, no new words.
  guard.check('loaded');
  expect(enforce).toHaveBeenCalledTimes(1);
  expect(said).toHaveLength(1);
});

test('past the trigger in all (each series within its share) the guard thins the largest first, as the cap decides', () => {
  const enforce = vi.spyOn(MemoryCap.prototype, 'enforce');
  // 40 series of 1,024-point columns (16 KB each, 640 KB in all) pass the trigger (60 % of 1 MB).
  const runs = [runWith('a', 20, 1_000), runWith('b', 20, 1_024)];
  const total = (): number =>
    runs.reduce((n, r) => n + [...r.entries[0]!.set.series()].reduce((m, s) => m + s.byteSize, 0), 0);
  expect(total()).toBeGreaterThan(CAP * TRIGGER_SHARE);
  const { guard, said, resynced } = guardOver(runs);
  guard.check('loaded');
  expect(enforce).toHaveBeenCalledTimes(1);
  expect(total()).toBeLessThanOrEqual(CAP * TRIGGER_SHARE);
  expect(resynced.sort()).toEqual(['a', 'b']);
  expect(said).toHaveLength(1);
});

test('feeding a run’s views asks the memory guard nothing; the reading slices and the read’s end do (#36)', async () => {
  const whens: string[] = [];
  const deltas: number[] = [];
  const loader = new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: (event, payload) => {
        if (event === 'series.appended') deltas.push((payload as SeriesDelta).steps.length);
      },
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: (when) => whens.push(when),
    },
    new LoadProgressTracker(() => {}),
  );
  const run = newRunState('r', '/nonexistent-rlwatch-run', null);
  const series = new SeriesSet();
  const path = '/nonexistent-rlwatch-run/a.csv';
  // One read of 700k points in one slice of its own (one pause, as a reader's slice), then the views are fed: in
  // slices of 2^18 points, each followed by a yield.
  const live: LiveSource = {
    path,
    format: 'csv',
    series,
    records: 0,
    errors: [],
    progress: null,
    config: null,
    bytesRead: null,
    readMore: async () => {
      const s = series.get('loss');
      for (let i = 0; i < 700_000; i++) s.append(i, Number.NaN, i);
      (live as { records: number }).records = 700_000;
      await loader.pause();
    },
    close: () => {},
  };
  const entry = liveEntry({ path, name: 'a', format: 'csv', gen: 0, live, set: series });
  loader.add(run, entry);
  await loader.loadRun(run);
  // The views were fed in slices (several deltas), with no check between them.
  expect(deltas.reduce((a, b) => a + b, 0)).toBe(700_000);
  expect(deltas.length).toBeGreaterThan(2);
  expect(whens).toEqual(['slice', 'loaded']);
});
