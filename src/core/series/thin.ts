// Thins a series in place into a min/max envelope per bucket of points: first, last, min, max, every NaN/±Inf and every restart kept.

import { finite } from './finite';
import type { ScalarSeries } from './scalar-series';

/**
 * The indices an envelope of `bucket` consecutive points keeps, in order: per bucket its first and last point,
 * the point of its least and of its greatest finite value, every non-finite value, and both sides of every step
 * that goes back (a restart stays a restart). Returns the indices and how many there are.
 */
export function envelopeIndices(
  steps: ArrayLike<number>,
  values: ArrayLike<number>,
  length: number,
  bucket: number,
): { keep: Int32Array; n: number } {
  const b = Math.max(2, Math.floor(bucket));
  // Four per bucket, plus what the non-finite values and restarts add (counted as they are met).
  let keep = new Int32Array(Math.min(length, Math.ceil(length / b) * 4 + 16));
  let n = 0;
  for (let a = 0; a < length; a += b) {
    const end = Math.min(length, a + b);
    let lo = -1;
    let hi = -1;
    let loV = Number.POSITIVE_INFINITY;
    let hiV = Number.NEGATIVE_INFINITY;
    for (let i = a; i < end; i++) {
      const v = values[i]!;
      if (!finite(v)) continue;
      if (v < loV) {
        loV = v;
        lo = i;
      }
      if (v > hiV) {
        hiV = v;
        hi = i;
      }
    }
    for (let i = a; i < end; i++) {
      const restart = (i > 0 && steps[i]! < steps[i - 1]!) || (i + 1 < length && steps[i + 1]! < steps[i]!);
      if (i === a || i === end - 1 || i === lo || i === hi || !finite(values[i]!) || restart) {
        if (n === keep.length) {
          const more = new Int32Array(Math.min(length, keep.length * 2));
          more.set(keep);
          keep = more;
        }
        keep[n++] = i;
      }
    }
  }
  return { keep, n };
}

/** Thins `series` in place to its envelope over buckets of `bucket` points (`envelopeIndices`), in columns of
 * exactly the kept length; returns the points dropped (0 when the envelope keeps them all). */
export function thinSeries(series: ScalarSeries, bucket: number): number {
  const length = series.length;
  const { keep, n } = envelopeIndices(series.steps(), series.values(), length, bucket);
  // Kept whole: nothing to drop, but a reservation larger than the points is still given back.
  if (n >= length && series.capacity === length) return 0;
  series.keepOnly(keep, n);
  return length - n;
}
