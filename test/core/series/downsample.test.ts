// Display downsampling: spikes survive (property test), passthrough, gaps, range edges, LTTB bounds.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downsample, downsampleSeries, lowerBound, upperBound } from '../../../src/core/series/downsample';
import type { DownsampleMode } from '../../../src/core/series/downsample';
import { ScalarSeries } from '../../../src/core/series/scalar-series';

const f64 = (a: number[]) => Float64Array.from(a);
const pairs = (r: { xs: Float64Array; ys: Float64Array }) => Array.from(r.xs, (x, i) => [x, r.ys[i]!]);

/** Random series: non-decreasing steps (repeats allowed), float32 values with occasional NaN/±Inf. */
const seriesArb = fc
  .array(
    fc.record({
      dx: fc.nat({ max: 3 }),
      y: fc.oneof(
        { weight: 20, arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }) },
        { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity) },
      ),
    }),
    { minLength: 0, maxLength: 400 },
  )
  .map((pts) => {
    let x = 0;
    const xs = new Float64Array(pts.length);
    const ys = new Float32Array(pts.length);
    pts.forEach((p, i) => {
      x += p.dx;
      xs[i] = x;
      ys[i] = p.y;
    });
    return { xs, ys };
  });

describe('binary search', () => {
  it('handles equal steps', () => {
    const xs = f64([1, 2, 2, 2, 3]);
    expect(lowerBound(xs, 2)).toBe(1);
    expect(upperBound(xs, 2)).toBe(4);
    expect(lowerBound(xs, 0)).toBe(0);
    expect(upperBound(xs, 9)).toBe(5);
  });
});

describe.each<DownsampleMode>(['minmax', 'lttb'])('downsample (%s)', (mode) => {
  it('bounds length, keeps x non-decreasing and keeps gaps (property)', () => {
    fc.assert(
      fc.property(
        seriesArb,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: -20, max: 700 }),
        fc.nat(800),
        (s, w, a, len) => {
          const x0 = a;
          const x1 = a + len;
          const r = downsample(s.xs, s.ys, { x0, x1, width: w, mode });
          const cap = mode === 'minmax' ? 4 * w + 2 : 2 * w + 2;
          expect(r.xs.length).toBeLessThanOrEqual(Math.max(cap, Math.min(w, r.end - r.start) + 2));
          expect(r.ys.length).toBe(r.xs.length);
          for (let i = 1; i < r.xs.length; i++) expect(r.xs[i]!).toBeGreaterThanOrEqual(r.xs[i - 1]!);
          for (const y of r.ys) expect(Number.isNaN(y) || Number.isFinite(y)).toBe(true);
          let gapInRange = false;
          for (let i = r.start; i < r.end; i++) if (!Number.isFinite(s.ys[i]!)) gapInRange = true;
          if (gapInRange) expect(r.ys.some(Number.isNaN)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('passes through exactly when the range holds ≤ width points, with both outside neighbours', () => {
    const xs = f64([0, 1, 2, 3, 4, 5, 6]);
    const ys = f64([10, 11, NaN, 13, Infinity, 15, 16]);
    const r = downsample(xs, ys, { x0: 2, x1: 4, width: 3, mode });
    expect(r.exact).toBe(true);
    expect(pairs(r)).toEqual([
      [1, 11],
      [2, NaN],
      [3, 13],
      [4, NaN],
      [5, 15],
    ]);
    expect([r.start, r.end]).toEqual([2, 5]);
  });

  it('returns nothing for an empty series or an inverted range; neighbours only for a range between points', () => {
    expect(downsample(f64([]), f64([]), { x0: 0, x1: 10, width: 10, mode }).xs.length).toBe(0);
    expect(downsample(f64([1, 2]), f64([1, 2]), { x0: 5, x1: 1, width: 10, mode }).xs.length).toBe(0);
    const between = downsample(f64([0, 10]), f64([1, 2]), { x0: 4, x1: 6, width: 10, mode });
    expect(pairs(between)).toEqual([
      [0, 1],
      [10, 2],
    ]);
    const past = downsample(f64([0, 10]), f64([1, 2]), { x0: 20, x1: 30, width: 10, mode });
    expect(pairs(past)).toEqual([[10, 2]]);
  });

  it('includes the points just outside the range so lines reach the edges', () => {
    const n = 10_000;
    const xs = Float64Array.from({ length: n }, (_, i) => i);
    const ys = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 100));
    const r = downsample(xs, ys, { x0: 1000.5, x1: 1999.5, width: 50, mode });
    expect(r.xs[0]).toBe(1000);
    expect(r.xs.at(-1)).toBe(2000);
    // minmax keeps each bucket's first point; LTTB picks one point somewhere in the first bucket.
    if (mode === 'minmax') expect(r.xs[1]).toBe(1001);
    else expect(r.xs[1]).toBeLessThan(1000.5 + 1000 / 50);
    expect(r.xs.at(-2)).toBeGreaterThan(1999 - 1000 / 50);
    expect(r.exact).toBe(false);
  });
});

describe('minmax downsampling', () => {
  it('keeps the global min and max in range, at their x (property)', () => {
    fc.assert(
      fc.property(
        seriesArb,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: -20, max: 700 }),
        fc.nat(800),
        (s, w, a, len) => {
          const r = downsample(s.xs, s.ys, { x0: a, x1: a + len, width: w });
          expect(r.xs.length).toBeLessThanOrEqual(4 * w + 2);
          let lo = -1;
          let hi = -1;
          for (let i = r.start; i < r.end; i++) {
            const v = s.ys[i]!;
            if (!Number.isFinite(v)) continue;
            if (lo < 0 || v < s.ys[lo]!) lo = i;
            if (hi < 0 || v > s.ys[hi]!) hi = i;
          }
          const has = (i: number) => r.xs.some((x, k) => x === s.xs[i] && r.ys[k] === s.ys[i]);
          if (lo >= 0) expect(has(lo)).toBe(true);
          if (hi >= 0) expect(has(hi)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the last point in range when no gap, so the line ends where the data does', () => {
    const n = 10_000;
    const xs = Float64Array.from({ length: n }, (_, i) => i);
    const ys = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 100));
    const r = downsample(xs, ys, { x0: 1000.5, x1: 1999.5, width: 50 });
    expect(r.xs.at(-2)).toBe(1999);
  });

  it('keeps a single spike in 1M points and a NaN gap', () => {
    const n = 1_000_000;
    const s = new ScalarSeries(n);
    for (let i = 0; i < n; i++)
      s.append(i, 1_700_000_000 + i, i === 654_321 ? 1e9 : i === 123_456 ? NaN : 0.5);
    const r = downsampleSeries(s, { x0: 0, x1: n - 1, width: 800 });
    expect(r.xs.length).toBeLessThanOrEqual(4 * 800 + 2);
    expect(pairs(r)).toContainEqual([654_321, 1e9]);
    expect(pairs(r).some(([x, y]) => x === 123_456 && Number.isNaN(y))).toBe(true);
    const wall = downsampleSeries(s, { x0: 1_700_000_000, x1: 1_700_000_000 + n, width: 800, xAxis: 'wall' });
    expect(Array.from(wall.ys)).toContain(1e9);
  });

  it('handles a zero-width range (all points at one step)', () => {
    const xs = f64([5, 5, 5, 5, 5, 5]);
    const ys = f64([1, 9, -3, 4, 2, 0]);
    const r = downsample(xs, ys, { x0: 5, x1: 5, width: 2 });
    expect(Array.from(r.ys)).toEqual([1, 9, -3, 0]);
  });
});

describe('lttb downsampling', () => {
  it('keeps at most ~2 points per pixel and the first/last in range', () => {
    const n = 100_000;
    const xs = Float64Array.from({ length: n }, (_, i) => i);
    const ys = Float32Array.from({ length: n }, (_, i) => Math.cos(i / 1000));
    const r = downsample(xs, ys, { x0: 0, x1: n - 1, width: 300, mode: 'lttb' });
    expect(r.xs.length).toBeLessThanOrEqual(301);
    expect(r.xs[0]).toBe(0);
    expect(r.xs.at(-1)).toBeGreaterThan(n - 1 - n / 300);
  });
});
