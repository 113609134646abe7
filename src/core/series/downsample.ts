// Display downsampling: per-pixel min/max over an x-range (spikes and gaps survive); the binary searches re-exported.

import { finite } from './finite';

export { lowerBound, upperBound } from '../../shared/bisect';

/** Kept indices in a preallocated array: one allocation per call, none per point. */
class IndexOut {
  readonly idx: Int32Array;
  n = 0;
  constructor(capacity: number) {
    this.idx = new Int32Array(capacity);
  }
  push(i: number): void {
    this.idx[this.n++] = i;
  }
}

/** Bucket b covers x < x0 + (b+1)·span/width; comparing against the boundary (rather than computing
 * each point's pixel) keeps the inner loop to a compare and two min/max tests. */
function bucketEnd(b: number, x0: number, span: number, width: number): number {
  return b === width - 1 ? Number.POSITIVE_INFINITY : x0 + ((b + 1) * span) / width;
}

function minMax(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  start: number,
  end: number,
  x0: number,
  x1: number,
  width: number,
  out: IndexOut,
): void {
  const span = x1 - x0;
  let i = start;
  for (let b = 0; b < width && i < end; b++) {
    const limit = bucketEnd(b, x0, span, width);
    let first = -1;
    let last = -1;
    let lo = -1;
    let hi = -1;
    let loV = Number.POSITIVE_INFINITY;
    let hiV = Number.NEGATIVE_INFINITY;
    let gap = -1;
    for (; i < end && xs[i]! < limit; i++) {
      const v = ys[i]!;
      if (!finite(v)) {
        if (gap < 0) gap = i;
        continue;
      }
      if (first < 0) first = i;
      last = i;
      if (v < loV) {
        loV = v;
        lo = i;
      }
      if (v > hiV) {
        hiV = v;
        hi = i;
      }
    }
    if (first < 0 && gap < 0) continue;
    // Index-ordered picks, deduplicated. With a gap in the bucket, first/last give way to the gap
    // marker so a bucket never exceeds four points; min and max are always kept.
    if (gap >= 0) emitSorted(out, -1, lo, hi, gap);
    else emitSorted(out, first, lo, hi, last);
  }
}

/** Emits up to four indices in ascending order, skipping -1 and repeats. A fixed five-compare sort
 * network on locals: no array per bucket. */
function emitSorted(out: IndexOut, p: number, q: number, r: number, s: number): void {
  let t: number;
  if (p > q) {
    t = p;
    p = q;
    q = t;
  }
  if (r > s) {
    t = r;
    r = s;
    s = t;
  }
  if (p > r) {
    t = p;
    p = r;
    r = t;
  }
  if (q > s) {
    t = q;
    q = s;
    s = t;
  }
  if (q > r) {
    t = q;
    q = r;
    r = t;
  }
  let prev = -1;
  if (p >= 0) out.push((prev = p));
  if (q >= 0 && q !== prev) out.push((prev = q));
  if (r >= 0 && r !== prev) out.push((prev = r));
  if (s >= 0 && s !== prev) out.push(s);
}

/**
 * The indices per-pixel min/max keeps of xs[start, end) (points already known to lie in [x0, x1]),
 * ascending, at most four per pixel: first, min, max and last of each pixel (a non-finite point
 * replaces first/last). For callers that gather several columns of the kept points themselves.
 */
export function minMaxIndices(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  start: number,
  end: number,
  x0: number,
  x1: number,
  width: number,
): Int32Array {
  const w = Math.max(1, Math.floor(Number.isFinite(width) ? width : 1));
  if (end <= start) return new Int32Array(0);
  const out = new IndexOut(Math.min(4 * w, end - start));
  minMax(xs, ys, start, end, x0, Math.max(x1, x0), w, out);
  return out.idx.slice(0, out.n);
}
