// The hover readout: nearest point per run, x label per axis mode, smoothed values only with smoothing on.

import { describe, expect, test } from 'vitest';
import { runColor } from '../../../src/shared/charts/chart-theme';
import { readoutAt, type ReadoutSeries } from '../../../src/renderer/src/charts/readout';

function series(run: string, xs: number[], values: number[], steps = xs): ReadoutSeries {
  return {
    run,
    raw: xs.map((x, i) => ({ x, y: values[i]! })),
    values,
    steps,
    smoothedAt: (i) => values[i]! / 2,
  };
}

const stepView = { xAxis: 'step' as const, smoothing: 0, span: 100, multiRun: false };

describe('readoutAt', () => {
  test('single run on the step axis: the nearest point, no run name, no smoothed value', () => {
    const r = readoutAt([series('a', [0, 10, 20], [1, 2.5, 3])], 12, stepView)!;
    expect(r).toEqual({
      x: 'step 10',
      at: 10,
      rows: [{ run: '', colour: runColor(0), raw: '2.5', smooth: null }],
    });
  });

  test('overlay with smoothing: a row per run with a point, named, in palette colours', () => {
    const r = readoutAt(
      [series('a', [0, 10], [1, 2]), series('empty', [], []), series('c', [0, 9], [4, 8])],
      10,
      { ...stepView, smoothing: 0.6, multiRun: true },
    )!;
    expect(r.rows).toEqual([
      { run: 'a', colour: runColor(0), raw: '2', smooth: '1' },
      { run: 'c', colour: runColor(2), raw: '8', smooth: '4' },
    ]);
  });

  test('time axes label the x as a duration or clock time, with the first run’s step', () => {
    const r = readoutAt([series('a', [0, 200], [1, 2], [0, 50])], 190, { ...stepView, xAxis: 'relative' })!;
    expect(r.x).toBe('3m 20s · step 50');
  });

  test('null when no run has a point', () => {
    expect(readoutAt([series('a', [], [])], 5, stepView)).toBeNull();
    expect(readoutAt([], 5, stepView)).toBeNull();
  });
});
