// Display downsampling: per-pixel min/max keeps spikes and gaps (property test), bounds, binary search.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBound, minMaxIndices, upperBound } from '../../../src/core/series/downsample';

const f64 = (a: number[]) => Float64Array.from(a);

/** minMaxIndices over the points of xs/ys inside [x0, x1]. */
function kept(xs: Float64Array, ys: ArrayLike<number>, x0: number, x1: number, width: number) {
  const start = lowerBound(xs, x0);
  const end = upperBound(xs, x1, start);
  return { start, end, indices: Array.from(minMaxIndices(xs, ys, start, end, x0, x1, width)) };
}

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

describe('minmax downsampling', () => {
  it('keeps at most four ascending indices per pixel, the global min and max and a gap (property)', () => {
    fc.assert(
      fc.property(
        seriesArb,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: -20, max: 700 }),
        fc.nat(800),
        (s, w, a, len) => {
          const r = kept(s.xs, s.ys, a, a + len, w);
          expect(r.indices.length).toBeLessThanOrEqual(Math.min(4 * w, r.end - r.start));
          for (let k = 1; k < r.indices.length; k++) expect(r.indices[k]!).toBeGreaterThan(r.indices[k - 1]!);
          for (const i of r.indices) expect(i >= r.start && i < r.end).toBe(true);
          let lo = -1;
          let hi = -1;
          let gap = false;
          for (let i = r.start; i < r.end; i++) {
            const v = s.ys[i]!;
            if (!Number.isFinite(v)) {
              gap = true;
              continue;
            }
            if (lo < 0 || v < s.ys[lo]!) lo = i;
            if (hi < 0 || v > s.ys[hi]!) hi = i;
          }
          const values = r.indices.map((i) => s.ys[i]!);
          if (lo >= 0) expect(values).toContain(s.ys[lo]);
          if (hi >= 0) expect(values).toContain(s.ys[hi]);
          if (gap) expect(values.some((v) => !Number.isFinite(v))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the first and last point in range when no gap, so the line spans the data', () => {
    const n = 10_000;
    const xs = Float64Array.from({ length: n }, (_, i) => i);
    const ys = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 100));
    const r = kept(xs, ys, 1000.5, 1999.5, 50);
    expect(r.indices[0]).toBe(1001);
    expect(r.indices.at(-1)).toBe(1999);
  });

  it('keeps a single spike in 1M points and a NaN gap', () => {
    const n = 1_000_000;
    const xs = Float64Array.from({ length: n }, (_, i) => i);
    const ys = Float32Array.from({ length: n }, (_, i) => (i === 654_321 ? 1e9 : i === 123_456 ? NaN : 0.5));
    const r = kept(xs, ys, 0, n - 1, 800);
    expect(r.indices.length).toBeLessThanOrEqual(4 * 800);
    expect(r.indices).toContain(654_321);
    expect(r.indices).toContain(123_456);
  });

  it('handles a zero-width range (all points at one step) and an empty range', () => {
    const xs = f64([5, 5, 5, 5, 5, 5]);
    const ys = f64([1, 9, -3, 4, 2, 0]);
    expect(kept(xs, ys, 5, 5, 2).indices.map((i) => ys[i])).toEqual([1, 9, -3, 0]);
    expect(kept(xs, ys, 6, 9, 2).indices).toEqual([]);
  });
});
