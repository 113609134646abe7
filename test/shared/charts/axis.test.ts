// X-axis modes: point x values, zoom ranges back to series.get ranges, and tick labels.

import { describe, expect, test } from 'vitest';
import {
  drawnXAxis,
  formatDuration,
  formatStep,
  formatWall,
  toQueryRange,
  untimedNote,
  widen,
  xOf,
} from '../../../src/shared/charts/axis';

describe('axis modes', () => {
  test('x of a point per mode: step, seconds since the first point, wall seconds', () => {
    expect(xOf('step', 120, 1_700_000_050, 1_700_000_000)).toBe(120);
    expect(xOf('relative', 120, 1_700_000_050, 1_700_000_000)).toBe(50);
    expect(xOf('wall', 120, 1_700_000_050, 1_700_000_000)).toBe(1_700_000_050);
  });

  test('time axes fall back to step for series without wall times, and say so', () => {
    expect(drawnXAxis('wall', true)).toBe('step');
    expect(drawnXAxis('relative', true)).toBe('step');
    expect(drawnXAxis('relative', false)).toBe('relative');
    expect(drawnXAxis('step', true)).toBe('step');
    expect(untimedNote('wall', true)).toBe('by step: no wall times logged (wall time needs them)');
    expect(untimedNote('step', true)).toBeNull();
    expect(untimedNote('wall', false)).toBeNull();
  });

  test('a visible range maps back to the query axis; relative adds the run origin', () => {
    expect(toQueryRange('step', 10, 20, 999)).toEqual({ axis: 'step', xMin: 10, xMax: 20 });
    expect(toQueryRange('relative', 10, 20, 1000)).toEqual({ axis: 'wall', xMin: 1010, xMax: 1020 });
    expect(toQueryRange('wall', 1010, 1020, 1000)).toEqual({ axis: 'wall', xMin: 1010, xMax: 1020 });
  });

  test('widen pads both sides by a fraction of the width', () => {
    expect(widen(100, 200, 0.5)).toEqual([50, 250]);
  });
});

describe('tick labels', () => {
  test('durations', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(2.5)).toBe('2.5s');
    expect(formatDuration(200)).toBe('3m 20s');
    expect(formatDuration(7500)).toBe('2h 05m');
    expect(formatDuration(3 * 86400 + 4 * 3600)).toBe('3d 04h');
    expect(formatDuration(-90)).toBe('-1m 30s');
  });

  test('steps are compact', () => {
    expect(formatStep(950)).toBe('950');
    expect(formatStep(12_000)).toBe('12k');
    expect(formatStep(3_000_000)).toBe('3M');
    expect(formatStep(0.25)).toBe('0.25');
  });

  test('wall time is a clock time, with the date when the span is over a day', () => {
    const t = new Date(2026, 0, 2, 3, 4, 5).getTime() / 1000;
    expect(formatWall(t, 600)).toBe('03:04:05');
    expect(formatWall(t, 3 * 86400)).toBe('2026-01-02 03:04');
  });
});
