// The hover readout: nearest point per run, step and time in the x label, rows sorted by value and capped at 12.

import { describe, expect, test } from 'vitest';
import { runColor } from '../../../src/shared/charts/chart-theme';
import { formatWall } from '../../../src/shared/charts/axis';
import {
  READOUT_ROWS,
  byValue,
  readX,
  readoutAt,
  readoutLabel,
  type ReadoutSeries,
} from '../../../src/renderer/src/charts/readout';

const WALL0 = 1_700_000_000;

function series(run: string, xs: number[], values: number[], steps = xs, walls?: number[]): ReadoutSeries {
  return {
    run,
    raw: xs.map((x, i) => ({ x, y: values[i]! })),
    values,
    steps,
    walls: walls ?? steps.map((s) => WALL0 + s),
    origin: walls ? (walls[0] ?? Number.NaN) : WALL0,
    smoothedAt: (i) => values[i]! / 2,
  };
}

const stepView = { xAxis: 'step' as const, smoothing: 0, span: 100, multiRun: false };

describe('readoutAt', () => {
  test('single run on the step axis: the nearest point, its step and clock time, no run name', () => {
    const r = readoutAt([series('a', [0, 10, 20], [1, 2.5, 3])], 12, stepView)!;
    expect(r).toEqual({
      x: `step 10 · ${formatWall(WALL0 + 10, 0)} (10s)`,
      at: 10,
      more: 0,
      rows: [{ run: '', colour: runColor(0), raw: '2.5', smooth: null, step: null }],
    });
  });

  test('overlay with smoothing: a row per run with a point, named, in palette colours, highest smoothed first', () => {
    const r = readoutAt(
      [series('a', [0, 10], [1, 2]), series('empty', [], []), series('c', [0, 9], [4, 8])],
      10,
      { ...stepView, smoothing: 0.6, multiRun: true },
    )!;
    expect(r.rows).toEqual([
      { run: 'c', colour: runColor(2), raw: '8', smooth: '4', step: 9 },
      { run: 'a', colour: runColor(0), raw: '2', smooth: '1', step: null },
    ]);
  });

  test('time axes label the x as a duration or clock time, with the first run’s step', () => {
    const r = readoutAt([series('a', [0, 200], [1, 2], [0, 50])], 190, { ...stepView, xAxis: 'relative' })!;
    expect(r.x).toBe('3m 20s · step 50');
  });

  test('a run read by time at another step says its own step', () => {
    const a = series('a', [0, 100], [1, 2], [0, 50]);
    const b = series('b', [0, 98], [5, 6], [0, 70]);
    const r = readoutAt([a, b], 99, { ...stepView, xAxis: 'relative', multiRun: true })!;
    expect(r.x).toBe('1m 40s · step 50');
    expect(r.rows.map((row) => [row.run, row.step])).toEqual([
      ['b', 70],
      ['a', null],
    ]);
  });

  test('50 runs: the 12 highest values are listed, highest first, the rest counted', () => {
    const runs = Array.from({ length: 50 }, (_, i) => series(`r${i}`, [0, 10], [0, (i * 37) % 50]));
    const r = readoutAt(runs, 10, { ...stepView, multiRun: true })!;
    expect(r.rows).toHaveLength(READOUT_ROWS);
    expect(r.more).toBe(50 - READOUT_ROWS);
    expect(r.rows.map((row) => Number(row.raw))).toEqual([49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38]);
    // Each row keeps its run's palette colour (the order drawn), not its place in the list.
    const top = r.rows[0]!;
    const index = runs.findIndex((s) => s.run === top.run);
    expect(top.colour).toBe(runColor(index));
    expect(runs[index]!.values[1]).toBe(49);
  });

  test('a source without wall times: the step alone', () => {
    const s = series('a', [0, 10], [1, 2], [0, 10], [Number.NaN, Number.NaN]);
    expect(readoutAt([s], 10, stepView)!.x).toBe('step 10');
  });

  test('null when no run has a point', () => {
    expect(readoutAt([series('a', [], [])], 5, stepView)).toBeNull();
    expect(readoutAt([], 5, stepView)).toBeNull();
  });
});

describe('readX, byValue, readoutLabel', () => {
  test('readX is the first run with points’ nearest x', () => {
    expect(
      readX([series('e', [], []), series('a', [0, 10, 20], [1, 2, 3]), series('b', [14], [0])], 14),
    ).toBe(10);
    expect(readX([series('e', [], [])], 3)).toBeNull();
  });

  test('byValue: highest first, NaN last, ties keep their order (stable sort)', () => {
    const rows = [3, Number.NaN, 7, 3, -1].map((value, i) => ({ value, i }));
    expect(rows.sort(byValue).map((r) => r.i)).toEqual([2, 0, 3, 4, 1]);
  });

  test('readoutLabel per axis', () => {
    expect(readoutLabel('wall', WALL0 + 5, 60, 3, WALL0 + 5, WALL0)).toBe(
      `${formatWall(WALL0 + 5, 60)} · step 3`,
    );
    expect(readoutLabel('step', 3, 60, 3, WALL0 + 125, WALL0)).toBe(
      `step 3 · ${formatWall(WALL0 + 125, 0)} (2m 05s)`,
    );
    expect(readoutLabel('step', 3, 60, 3, WALL0 + 125, Number.NaN)).toBe(
      `step 3 · ${formatWall(WALL0 + 125, 0)}`,
    );
  });
});
