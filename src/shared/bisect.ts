// Binary searches over non-decreasing numbers (steps, wall times): the one pair every layer uses.

/** First index in [lo, hi) with xs[i] >= x (hi when none). xs must be non-decreasing; equal runs are fine. */
export function lowerBound(xs: ArrayLike<number>, x: number, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in [lo, hi) with xs[i] > x (hi when none). */
export function upperBound(xs: ArrayLike<number>, x: number, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
