// The y-range rules: room around a flat series, the ignore-outliers percentile range, and clipped points.

import { describe, expect, test } from 'vitest';
import {
  clippedPoints,
  drawnValues,
  fitY,
  FLAT_RELATIVE_SPAN,
  flatLevel,
  flatPadding,
  outlierRange,
  quantile,
} from '../../../src/shared/charts/y-range';

const line = (...ys: number[]): { raw: { x: number; y: number }[] } => ({
  raw: ys.map((y, x) => ({ x, y })),
});

describe('flat series', () => {
  test('a constant or single value is flat; NaN gaps do not count; two values are not', () => {
    expect(fitY([line(1.5, NaN, 1.5), line(1.5)], false, false).flat).toBe(1.5);
    expect(fitY([line(7)], false, false).flat).toBe(7);
    expect(fitY([line(1.5, 1.5001)], false, false).flat).toBeNull();
    expect(fitY([line(NaN)], false, false).flat).toBeNull();
    expect(drawnValues([line(1.5, NaN, 1.5), line(1.5)], false)).toEqual([1.5, 1.5, 1.5]);
  });

  test("a change below the data's precision is flat, at the digits the values agree on", () => {
    // A W&B disk gauge: 722.51797 → 722.51799 GB (a relative span of 3e-8) drew as a climb over the whole chart.
    const disk = line(722.51797, 722.51798, 722.51799, 722.51797);
    const fit = fitY([disk], false, false);
    expect(fit.flat).toBe(722.518);
    expect(fit.suggestedMin).toBeCloseTo(650.27, 1);
    // float32's last bits: 0.1f and its neighbour.
    const f = Math.fround(0.1);
    const next = new Float32Array(
      new Uint32Array([new Uint32Array(new Float32Array([f]).buffer)[0]! + 1]).buffer,
    )[0]!;
    expect(flatLevel(f, next)).toBeCloseTo(0.1, 7);
    // A real change, however small next to its magnitude above the bound, is not flat; nor is one near zero.
    expect(flatLevel(1000, 1000 * (1 + 10 * FLAT_RELATIVE_SPAN))).toBeNull();
    expect(flatLevel(0, 1e-12)).toBeNull();
    expect(flatLevel(-2, -2)).toBe(-2);
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
