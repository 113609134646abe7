// Display downsampling: per-pixel min/max (spikes survive) or LTTB, over an x-range, into packed arrays.

import type { ScalarSeries } from './scalar-series';

export type DownsampleMode = 'minmax' | 'lttb';

export interface DownsampleOptions {
  /** Visible x-range, inclusive, in the units of `xs` (steps, or wall seconds). */
  x0: number;
  x1: number;
  /** Plot width in pixels; one bucket per pixel. */
  width: number;
  /** 'minmax' (default) keeps first/min/max/last per pixel; 'lttb' keeps one shape-preserving point. */
  mode?: DownsampleMode;
}

export interface Downsampled {
  /** Packed, exact-length arrays (structured clone copies a view's whole buffer, so no subarrays). */
  xs: Float64Array;
  /** NaN marks a gap: the source had NaN or ±Infinity there. The line breaks; the renderer may mark it. */
  ys: Float64Array;
  /** Source index of each kept point, ascending (to gather other columns of the same points). */
  indices: Int32Array;
  /** Source indices [start, end) that fall inside [x0, x1]. */
  start: number;
  end: number;
  /** True when every source point in range was passed through unchanged (n ≤ width). */
  exact: boolean;
}

/** First index with xs[i] >= x (n when none). xs must be non-decreasing; equal runs are fine. */
export function lowerBound(xs: ArrayLike<number>, x: number, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with xs[i] > x (n when none). */
export function upperBound(xs: ArrayLike<number>, x: number, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY: Downsampled = Object.freeze({
  xs: new Float64Array(0),
  ys: new Float64Array(0),
  indices: new Int32Array(0),
  start: 0,
  end: 0,
  exact: true,
}) as Downsampled;

/** `v - v === 0` is false exactly for NaN and ±Infinity: one subtraction instead of isFinite's call. */
const finite = (v: number): boolean => v - v === 0;

/** Output writer over preallocated arrays: one allocation per call, none per point. */
class Out {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  /** Source index of each kept point (a gap marker keeps the index of the non-finite point). */
  readonly idx: Int32Array;
  n = 0;
  constructor(capacity: number) {
    this.xs = new Float64Array(capacity);
    this.ys = new Float64Array(capacity);
    this.idx = new Int32Array(capacity);
  }
  push(x: number, y: number, i: number): void {
    this.xs[this.n] = x;
    this.ys[this.n] = finite(y) ? y : Number.NaN;
    this.idx[this.n] = i;
    this.n++;
  }
  done(start: number, end: number, exact: boolean): Downsampled {
    return {
      xs: this.xs.slice(0, this.n),
      ys: this.ys.slice(0, this.n),
      indices: this.idx.slice(0, this.n),
      start,
      end,
      exact,
    };
  }
}

/**
 * Downsamples columnar (xs, ys) to at most 4·width + 2 points for the range [x0, x1]:
 * the nearest point on each side outside the range is included so lines reach the plot edges.
 * O(points in range) time, O(width) memory.
 */
export function downsample(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  opts: DownsampleOptions,
): Downsampled {
  const n = Math.min(xs.length, ys.length);
  const { x0, x1 } = opts;
  const width = Math.max(1, Math.floor(Number.isFinite(opts.width) ? opts.width : 1));
  if (n === 0 || !(x1 >= x0)) return EMPTY;

  const start = lowerBound(xs, x0, 0, n);
  const end = upperBound(xs, x1, start, n);
  const before = start > 0 ? start - 1 : -1;
  const after = end < n ? end : -1;
  const count = end - start;

  if (count <= width) {
    const out = new Out(count + 2);
    if (before >= 0) out.push(xs[before]!, ys[before]!, before);
    for (let i = start; i < end; i++) out.push(xs[i]!, ys[i]!, i);
    if (after >= 0) out.push(xs[after]!, ys[after]!, after);
    return out.done(start, end, true);
  }

  const out = new Out(4 * width + 2);
  if (before >= 0) out.push(xs[before]!, ys[before]!, before);
  if (opts.mode === 'lttb') lttb(xs, ys, start, end, x0, x1, width, before, after, out);
  else minMax(xs, ys, start, end, x0, x1, width, out);
  if (after >= 0) out.push(xs[after]!, ys[after]!, after);
  return out.done(start, end, false);
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
  out: Out,
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
    if (gap >= 0) emitSorted(xs, ys, out, -1, lo, hi, gap);
    else emitSorted(xs, ys, out, first, lo, hi, last);
  }
}

/** Emits up to four indices in ascending order, skipping -1 and repeats. A fixed five-compare sort
 * network on locals: no array per bucket. */
function emitSorted(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  out: Out,
  p: number,
  q: number,
  r: number,
  s: number,
): void {
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
  if (p >= 0) out.push(xs[(prev = p)]!, ys[p]!, p);
  if (q >= 0 && q !== prev) out.push(xs[(prev = q)]!, ys[q]!, q);
  if (r >= 0 && r !== prev) out.push(xs[(prev = r)]!, ys[r]!, r);
  if (s >= 0 && s !== prev) out.push(xs[s]!, ys[s]!, s);
}

/**
 * Largest-Triangle-Three-Buckets over pixel buckets (by x, not by index, so zoomed views stay
 * evenly spaced): each bucket keeps the point forming the largest triangle with the previous pick and
 * the next bucket's centroid. A bucket holding NaN/±Inf also emits a gap marker, so at most
 * 2 points per pixel. Smooth curves look right; isolated spikes may be dropped — use minmax for those.
 */
function lttb(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  start: number,
  end: number,
  x0: number,
  x1: number,
  width: number,
  before: number,
  after: number,
  out: Out,
): void {
  const span = x1 - x0;
  // Pass 1: bucket bounds and centroids of finite points (O(width) memory).
  const bStart = new Int32Array(width + 1);
  const cx = new Float64Array(width);
  const cy = new Float64Array(width);
  const cn = new Int32Array(width);
  let i = start;
  for (let b = 0; b < width; b++) {
    bStart[b] = i;
    const limit = bucketEnd(b, x0, span, width);
    let sx = 0;
    let sy = 0;
    let k = 0;
    for (; i < end && xs[i]! < limit; i++) {
      const v = ys[i]!;
      if (!finite(v)) continue;
      sx += xs[i]!;
      sy += v;
      k++;
    }
    cn[b] = k;
    if (k) {
      cx[b] = sx / k;
      cy[b] = sy / k;
    }
  }
  bStart[width] = end;

  // The anchor before the first bucket: the outside neighbour if finite, else the first point itself.
  let ax = Number.NaN;
  let ay = Number.NaN;
  if (before >= 0 && finite(ys[before]!)) {
    ax = xs[before]!;
    ay = ys[before]!;
  }
  // The centroid after the last bucket: the outside neighbour, else the last in-range point.
  const tail = after >= 0 && finite(ys[after]!) ? after : end - 1;

  for (let b = 0; b < width; b++) {
    const s = bStart[b]!;
    const e = bStart[b + 1]!;
    if (s === e) continue;
    let nb = b + 1;
    while (nb < width && cn[nb] === 0) nb++;
    const nx = nb < width ? cx[nb]! : xs[tail]!;
    const ny = nb < width ? cy[nb]! : ys[tail]!;
    let best = -1;
    let bestArea = -1;
    let gap = -1;
    for (let j = s; j < e; j++) {
      const y = ys[j]!;
      if (!finite(y)) {
        if (gap < 0) gap = j;
        continue;
      }
      if (Number.isNaN(ax)) {
        // No anchor yet (range starts the series): keep the first finite point, as LTTB keeps point 0;
        // keep scanning only to find a gap.
        if (best < 0) best = j;
        continue;
      }
      const area = Math.abs((ax - nx) * (y - ay) - (ax - xs[j]!) * (ny - ay));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    if (gap >= 0 && (best < 0 || gap < best)) out.push(xs[gap]!, Number.NaN, gap);
    if (best >= 0) {
      out.push(xs[best]!, ys[best]!, best);
      ax = xs[best]!;
      ay = ys[best]!;
    }
    if (gap >= 0 && best >= 0 && gap > best) out.push(xs[gap]!, Number.NaN, gap);
  }
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
  const out = new Out(Math.min(4 * w, end - start));
  minMax(xs, ys, start, end, x0, Math.max(x1, x0), w, out);
  return out.idx.slice(0, out.n);
}

export type XAxis = 'step' | 'wall';

/** Downsamples a ScalarSeries against its steps or wall times. Wall times are materialised (one
 * float64 copy) because the series stores them as float32 offsets; callers that zoom repeatedly on
 * wall time should cache `series.wallTimes()` and call `downsample` directly. */
export function downsampleSeries(
  series: ScalarSeries,
  opts: DownsampleOptions & { xAxis?: XAxis },
): Downsampled {
  const xs = opts.xAxis === 'wall' ? series.wallTimes() : series.steps();
  return downsample(xs, series.values(), opts);
}
