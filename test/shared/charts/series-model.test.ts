// Drawn series: windows, delta merging (stale / overlap / gap), incremental points, log y, decimation, nearest, summary.

import { describe, expect, test } from 'vitest';
import type { SeriesDelta, SeriesWindow } from '../../../src/shared/domain';
import {
  decimateIndices,
  nearestIndex,
  RunSeries,
  summarize,
  type ViewOptions,
} from '../../../src/shared/charts/series-model';
import { smooth } from '../../../src/shared/charts/smoothing';

const STEP: ViewOptions = { xAxis: 'step', logY: false, smoothing: 0 };

function window(steps: number[], values: number[], over: Partial<SeriesWindow> = {}): SeriesWindow {
  return {
    run: 'r',
    tag: 't',
    steps: Float64Array.from(steps),
    wallTimes: Float64Array.from(steps, (s) => 1000 + s * 2),
    values: Float64Array.from(values),
    length: steps.length,
    inRange: steps.length,
    downsampled: false,
    extent: steps.length
      ? {
          stepMin: steps[0]!,
          stepMax: steps.at(-1)!,
          wallMin: 1000 + steps[0]! * 2,
          wallMax: 1000 + steps.at(-1)! * 2,
        }
      : null,
    restarts: [],
    sessions: [],
    untimed: 0,
    ...over,
  };
}

function delta(from: number, steps: number[], values = steps.map((s) => s * 10)): SeriesDelta {
  return {
    run: 'r',
    tag: 't',
    from,
    steps: Float64Array.from(steps),
    wallTimes: Float64Array.from(steps, (s) => 1000 + s * 2),
    values: Float64Array.from(values),
  };
}

describe('RunSeries', () => {
  test('counts points without a wall time from the window and from deltas; they move no wall bound', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1], [0, 10], { untimed: 0 }), 1000, false);
    const d = delta(2, [2, 3]);
    d.wallTimes[0] = Number.NaN;
    expect(s.applyDelta(d)).toBe('appended');
    expect(s.untimed).toBe(1);
    expect(s.extent).toMatchObject({ wallMin: 1000, wallMax: 1006, stepMax: 3 });
    const u = delta(4, [4]);
    u.wallTimes[0] = Number.NaN;
    s.applyDelta(u);
    expect(s.untimed).toBe(2);
    expect(s.extent).toMatchObject({ wallMax: 1006, stepMax: 4 });
  });

  test('a delta continuing the window appends; an overlapping one appends only its new part', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1, 2], [0, 10, 20]), 1000, false);
    s.rebuild(STEP);
    expect(s.applyDelta(delta(3, [3, 4]))).toBe('appended');
    expect(s.applyDelta(delta(4, [4, 5, 6]))).toBe('appended');
    expect(s.steps).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.length).toBe(7);
    expect(s.extend(STEP)).toBe(4);
    expect(s.raw.map((p) => p.x)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.raw[6]).toEqual({ x: 6, y: 60 });
  });

  test('a delta the window already covers is stale; one past the end is a gap (re-query)', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1, 2], [0, 1, 2]), 1000, false);
    expect(s.applyDelta(delta(1, [1, 2]))).toBe('stale');
    expect(s.applyDelta(delta(5, [5]))).toBe('gap');
    expect(s.steps).toEqual([0, 1, 2]);
    expect(s.length).toBe(3);
  });

  test('deltas continue from the live-view length, not from how many points a downsampled window held', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 50, 99], [1, 2, 3], { length: 100, downsampled: true }), 1000, false);
    expect(s.applyDelta(delta(3, [3]))).toBe('stale');
    expect(s.applyDelta(delta(100, [100]))).toBe('appended');
    expect(s.steps).toEqual([0, 50, 99, 100]);
  });

  test('extend converts only new columns and keeps the same arrays (chart.js sees pushes)', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1], [5, 6]), 1000, false);
    s.rebuild(STEP);
    const raw = s.raw;
    s.applyDelta(delta(2, [2]));
    s.extend(STEP);
    expect(s.raw).toBe(raw);
    expect(raw).toHaveLength(3);
    expect(s.extend(STEP)).toBe(0);
  });

  test('relative x counts from the run origin (extent.wallMin); wall x is epoch seconds', () => {
    const s = new RunSeries('r');
    s.setWindow(window([10, 20], [1, 2]), 1000, false);
    s.rebuild({ ...STEP, xAxis: 'relative' });
    expect(s.raw.map((p) => p.x)).toEqual([0, 20]);
    s.rebuild({ ...STEP, xAxis: 'wall' });
    expect(s.raw.map((p) => p.x)).toEqual([1020, 1040]);
  });

  test('a zoomed (partial) window keeps the origin learned from the whole series', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1, 2, 3], [1, 2, 3, 4]), 1000, false);
    s.setWindow(window([2, 3], [3, 4], { extent: null, length: 4 }), 1000, true);
    s.rebuild({ ...STEP, xAxis: 'relative' });
    expect(s.raw.map((p) => p.x)).toEqual([4, 6]);
  });

  test('log y hides values ≤ 0 (and counts them); NaN breaks the line', () => {
    const s = new RunSeries('r');
    s.setWindow(window([0, 1, 2, 3], [1, 0, -2, NaN]), 1000, false);
    s.rebuild({ ...STEP, logY: true });
    expect(s.nonPositive).toBe(2);
    expect(s.raw.map((p) => p.y)).toEqual([1, NaN, NaN, NaN]);
    s.rebuild(STEP);
    expect(s.nonPositive).toBe(0);
    expect(s.raw.map((p) => p.y)).toEqual([1, 0, -2, NaN]);
  });

  test('smoothed points continue across appends exactly as if smoothed at once', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i * 7919) % 13);
    const steps = values.map((_, i) => i);
    const s = new RunSeries('r');
    s.setWindow(window(steps.slice(0, 25), values.slice(0, 25)), 1000, false);
    const o = { ...STEP, smoothing: 0.7 };
    s.rebuild(o);
    s.applyDelta(delta(25, steps.slice(25), values.slice(25)));
    s.extend(o);
    expect(s.smoothed.map((p) => p.y)).toEqual(Array.from(smooth(values, 0.7)));
    expect(s.smoothedAt(39)).toBe(s.smoothed[39]!.y);
  });

  test('a window far denser than the chart is decimated, keeping spikes', () => {
    const n = 100_000;
    const values = Array.from({ length: n }, (_, i) =>
      i === 54_321 ? 1000 : i === 77_777 ? -1000 : Math.sin(i),
    );
    const s = new RunSeries('r');
    s.setWindow(
      window(
        Array.from({ length: n }, (_, i) => i),
        values,
      ),
      500,
      false,
    );
    expect(s.count).toBeLessThanOrEqual(4 * 500);
    expect(s.count).toBeGreaterThan(500);
    expect(Math.max(...s.values)).toBe(1000);
    expect(Math.min(...s.values)).toBe(-1000);
    expect(s.steps[0]).toBe(0);
    expect(s.steps.at(-1)).toBe(n - 1);
    expect(s.length).toBe(n);
  });
});

describe('decimateIndices', () => {
  test('indices are ascending and unique, and a non-finite value survives', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i === 5003 ? NaN : i % 10));
    const idx = Array.from(decimateIndices(values, 100));
    expect(idx.length).toBeLessThanOrEqual(500);
    for (let i = 1; i < idx.length; i++) expect(idx[i]!).toBeGreaterThan(idx[i - 1]!);
    expect(idx).toContain(5003);
  });

  test('a small series is kept whole', () => {
    expect(Array.from(decimateIndices([1, 2, 3], 100))).toEqual([0, 1, 2]);
  });
});

describe('nearestIndex', () => {
  const pts = [0, 10, 20, 30].map((x) => ({ x, y: 0 }));
  test('picks the closest x, clamping at the ends', () => {
    expect(nearestIndex(pts, -5)).toBe(0);
    expect(nearestIndex(pts, 14)).toBe(1);
    expect(nearestIndex(pts, 16)).toBe(2);
    expect(nearestIndex(pts, 99)).toBe(3);
    expect(nearestIndex([], 1)).toBe(-1);
  });
});

describe('summarize', () => {
  test('sums points, hidden values and restarts over runs; the newest step of any run', () => {
    const a = new RunSeries('a');
    a.setWindow(
      window([0, 1, 2], [-1, 0, 3], { restarts: [{ step: 1, wallTime: 1002, dropped: 0 }] }),
      100,
      false,
    );
    a.rebuild({ ...STEP, logY: true });
    const b = new RunSeries('b');
    b.setWindow(window([0, 5], [1, 2]), 100, false);
    b.rebuild(STEP);
    expect(summarize([a, b])).toEqual({ points: 5, nonPositive: 2, restarts: 1, lastStep: 5 });
  });

  test('nothing held: zeros and no last step', () => {
    expect(summarize([new RunSeries('a')])).toEqual({
      points: 0,
      nonPositive: 0,
      restarts: 0,
      lastStep: null,
    });
    expect(summarize([])).toEqual({ points: 0, nonPositive: 0, restarts: 0, lastStep: null });
  });
});
