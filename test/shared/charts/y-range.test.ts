// The y-range rules: room around a flat series, the ignore-outliers percentile range, and clipped points.

import { describe, expect, test } from 'vitest';
import {
  clippedPoints,
  drawnValues,
  fitY,
  flatPadding,
  flatValue,
  outlierRange,
  quantile,
} from '../../../src/shared/charts/y-range';

const line = (...ys: number[]): { raw: { x: number; y: number }[] } => ({
  raw: ys.map((y, x) => ({ x, y })),
});

describe('flat series', () => {
  test('a constant or single value is flat; NaN gaps do not count; two values are not', () => {
    expect(flatValue(drawnValues([line(1.5, NaN, 1.5), line(1.5)], false))).toBe(1.5);
    expect(flatValue([7])).toBe(7);
    expect(flatValue([1.5, 1.5000001])).toBeNull();
    expect(flatValue([])).toBeNull();
  });

  test('padding: ±10 % linear, ±1 around zero, a factor of two on log', () => {
    expect(flatPadding(1.5, false)).toEqual([1.35, 1.65]);
    expect(flatPadding(-2, false)).toEqual([-2.2, -1.8]);
    expect(flatPadding(0, false)).toEqual([-1, 1]);
    expect(flatPadding(100, true)).toEqual([50, 200]);
  });

  test('fitY pads a flat series with suggestions (the value stays in the middle) and sets no hard bounds', () => {
    expect(fitY([line(1.5, 1.5, 1.5)], false, true)).toEqual({
      flat: 1.5,
      suggestedMin: 1.35,
      suggestedMax: 1.65,
      min: undefined,
      max: undefined,
    });
  });

  test('on a log axis values ≤ 0 are not drawn, so what is left may be flat', () => {
    expect(fitY([line(0, -1, 10, 10)], true, false).flat).toBe(10);
    expect(fitY([line(0, -1, 10, 10)], false, false).flat).toBeNull();
  });
});

describe('ignore outliers', () => {
  const quiet = Array.from({ length: 100 }, (_, i) => 1 + (i % 10) / 100);

  test('quantiles interpolate between sorted values', () => {
    expect(quantile([0, 10], 0.5)).toBe(5);
    expect(quantile([1, 2, 3, 4, 5], 0.95)).toBeCloseTo(4.8);
  });

  test('one spike in a quiet series is left outside a 5th–95th percentile range with a 10 % margin', () => {
    const r = outlierRange([...quiet, 1000], false)!;
    expect(r[0]).toBeGreaterThan(0.99);
    expect(r[0]).toBeLessThan(1);
    expect(r[1]).toBeGreaterThan(1.09);
    expect(r[1]).toBeLessThan(1.1);
  });

  test('null when nothing would be clipped (data inside the margin) or too few values', () => {
    expect(outlierRange(quiet, false)).toBeNull();
    expect(outlierRange([1, 1000], false)).toBeNull();
  });

  test('on a log axis the range is taken in decades', () => {
    const decades = Array.from({ length: 100 }, (_, i) => 10 ** (i % 3));
    const r = outlierRange([...decades, 1e9], true)!;
    expect(r[0]).toBeCloseTo(10 ** -0.2);
    expect(r[1]).toBeCloseTo(10 ** 2.2);
  });

  test('fitY sets hard bounds only when asked, and points beyond them are marked on their edge', () => {
    const spiky = line(...quiet, 1000, -50);
    expect(fitY([spiky], false, false).max).toBeUndefined();
    const fit = fitY([spiky], false, true);
    expect(fit.max).toBeLessThan(2);
    expect(clippedPoints(spiky.raw, fit.min!, fit.max!)).toEqual([
      { x: 100, above: true },
      { x: 101, above: false },
    ]);
  });
});
