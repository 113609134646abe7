// Histograms a run's sources carry (TensorBoard histogram summaries, W&B histogram records): the shapes, rebinning and TensorBoard's distribution percentiles.

/** One logged histogram: bucket i spans [buckets[3i], buckets[3i+1]] and holds buckets[3i+2] values. */
export interface HistogramStep {
  step: number;
  /** Seconds since the epoch, as the source stores it (NaN when unknown). */
  wallTime: number;
  /** (left, right, count) triples, TensorBoard's [k, 3] layout. */
  buckets: Float64Array;
}

/** A tag's histograms in a run: how many steps are kept, how many were seen, over which steps. */
export interface HistogramTagInfo {
  tag: string;
  /** Steps kept (the store thins a long tag by stride). */
  steps: number;
  /** Steps logged (kept or thinned out). */
  seen: number;
  firstStep: number;
  lastStep: number;
}

/** What a source's histograms offer to readers of them (the workspace, inspect). */
export interface HistogramSource {
  /** Steps kept over all tags. */
  readonly count: number;
  /** Steps left out because the source's byte budget was spent. */
  readonly dropped: number;
  tags(): HistogramTagInfo[];
  /** The tag's kept steps in the order they were logged. */
  steps(tag: string): readonly HistogramStep[];
  /** Steps of the tag logged, kept or not (0 for a tag it does not have). */
  seen(tag: string): number;
}

/** histograms.get's answer: a tag's kept steps (≤ 200) on one common edge grid (≤ 64 bins), with percentiles. */
export interface HistogramView {
  run: string;
  tag: string;
  /** The common bin edges (bins + 1 of them; empty when no step has a finite bucket). */
  edges: number[];
  steps: number[];
  wallTimes: number[];
  /** Per step, its counts on `edges` (each bucket's count spread over the bins it overlaps). */
  counts: number[][];
  /** Per step, the values at DISTRIBUTION_BPS computed from the step's own buckets (not the rebinned ones). */
  percentiles: number[][];
  /** Steps the run kept for this tag, and how many it saw (the view shows at most HISTOGRAM_VIEW_STEPS). */
  kept: number;
  seen: number;
  /** Steps of the run's sources dropped because a source's byte budget was spent (all tags). */
  dropped: number;
}

/** The basis points of TensorBoard's distributions chart (±∞, ±1.5σ, ±1σ, ±0.5σ, median of a normal). */
export const DISTRIBUTION_BPS = [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000] as const;
/** Steps and bins one histograms.get answers at most. */
export const HISTOGRAM_VIEW_STEPS = 200;
export const HISTOGRAM_VIEW_BINS = 64;

/**
 * The values at `bps` of a step's buckets, as TensorBoard's distribution compressor computes them
 * (tensorboard/plugins/distribution/compressor.py): cumulative weights over the buckets, each basis
 * point linearly interpolated inside the bucket that crosses it; all at the last right edge when the
 * weights run out, all 0 for no buckets.
 */
export function distributionPercentiles(
  buckets: ArrayLike<number>,
  bps: readonly number[] = DISTRIBUTION_BPS,
): number[] {
  const k = Math.floor(buckets.length / 3);
  if (k === 0) return bps.map(() => 0);
  const minmin = buckets[0]!;
  const maxmax = buckets[3 * (k - 1) + 1]!;
  const last = bps[bps.length - 1]!;
  let total = 0;
  for (let i = 0; i < k; i++) total += buckets[3 * i + 2]!;
  const scale = last / (total || 1);
  // numpy: (counts * last / total).cumsum()
  const weights = new Float64Array(k);
  let acc = 0;
  for (let i = 0; i < k; i++) weights[i] = acc += buckets[3 * i + 2]! * scale;
  const out: number[] = [];
  let b = 0;
  outer: while (b < bps.length) {
    const bp = bps[b]!;
    // searchsorted(weights, bp, side='right'): the first index whose weight exceeds bp.
    let lo = 0;
    let hi = k;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (weights[mid]! <= bp) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < k; i++) {
      const cum = weights[i]!;
      const prev = i > 0 ? weights[i - 1]! : 0;
      if (cum === prev) continue;
      const lhs = i === 0 || prev === 0 ? minmin : Math.max(buckets[3 * (i - 1) + 1]!, minmin);
      const rhs = Math.min(buckets[3 * i + 1]!, maxmax);
      out.push(lhs + ((bp - prev) * (rhs - lhs)) / (cum - prev));
      b++;
      continue outer;
    }
    break;
  }
  while (out.length < bps.length) out.push(maxmax);
  return out;
}

/** `bins` equal bins over the finite edges of all the steps' buckets; [] when there are none. */
export function commonEdges(steps: readonly { buckets: ArrayLike<number> }[], bins: number): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of steps) {
    const b = s.buckets;
    for (let i = 0; i + 2 < b.length; i += 3) {
      const l = b[i]!;
      const r = b[i + 1]!;
      if (Number.isFinite(l) && l < lo) lo = l;
      if (Number.isFinite(r) && r > hi) hi = r;
      if (Number.isFinite(l) && l > hi) hi = l;
      if (Number.isFinite(r) && r < lo) lo = r;
    }
  }
  if (!(lo <= hi)) return [];
  if (lo === hi) {
    // One point: a unit-wide grid around it.
    lo -= 0.5;
    hi += 0.5;
  }
  const n = Math.max(1, Math.floor(bins));
  const edges: number[] = [];
  for (let i = 0; i <= n; i++) edges.push(i === n ? hi : lo + ((hi - lo) * i) / n);
  return edges;
}

/**
 * A step's buckets summed into the bins of `edges`: a bucket's count is split over the bins it
 * overlaps in proportion to the overlap (values spread evenly inside a bucket); a zero-width bucket
 * goes whole to the bin holding it. Counts outside the grid (or with non-finite edges) go to the
 * nearest end bin, so the total is kept.
 */
export function rebin(buckets: ArrayLike<number>, edges: readonly number[]): number[] {
  const n = edges.length - 1;
  if (n < 1) return [];
  const out = new Array<number>(n).fill(0);
  const lo = edges[0]!;
  const hi = edges[n]!;
  const binOf = (x: number): number => {
    if (!(x > lo)) return 0;
    if (!(x < hi)) return n - 1;
    let a = 0;
    let b = n;
    while (b - a > 1) {
      const mid = (a + b) >> 1;
      if (edges[mid]! <= x) a = mid;
      else b = mid;
    }
    return a;
  };
  for (let i = 0; i + 2 < buckets.length; i += 3) {
    const count = buckets[i + 2]!;
    if (!count) continue;
    const l = buckets[i]!;
    const r = buckets[i + 1]!;
    if (!(r > l) || !Number.isFinite(l) || !Number.isFinite(r)) {
      const at = Number.isFinite(l) ? l : r;
      out[binOf(at)]! += count;
      continue;
    }
    const first = binOf(l);
    const lastBin = binOf(r);
    if (first === lastBin) {
      out[first]! += count;
      continue;
    }
    const width = r - l;
    let given = 0;
    for (let j = first; j <= lastBin; j++) {
      const from = Math.max(l, j === 0 ? -Infinity : edges[j]!);
      const to = Math.min(r, j === n - 1 ? Infinity : edges[j + 1]!);
      if (j === lastBin) out[j]! += count - given;
      else if (to > from) {
        const part = (count * (to - from)) / width;
        out[j]! += part;
        given += part;
      }
    }
  }
  return out;
}

/** At most `max` indices of 0..n-1, evenly spread, the first and the last always among them. */
export function pickIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  if (max <= 1) return [n - 1];
  const out: number[] = [];
  for (let i = 0; i < max; i++) out.push(Math.round((i * (n - 1)) / (max - 1)));
  return out;
}

/** The view of a tag's steps: at most `maxSteps` of them, rebinned onto one grid of `bins` bins. */
export function histogramView(
  run: string,
  tag: string,
  steps: readonly HistogramStep[],
  seen: number,
  dropped: number,
  maxSteps: number = HISTOGRAM_VIEW_STEPS,
  bins: number = HISTOGRAM_VIEW_BINS,
): HistogramView {
  const picked = pickIndices(steps.length, maxSteps).map((i) => steps[i]!);
  const edges = commonEdges(picked, bins);
  return {
    run,
    tag,
    edges,
    steps: picked.map((s) => s.step),
    wallTimes: picked.map((s) => s.wallTime),
    counts: picked.map((s) => rebin(s.buckets, edges)),
    percentiles: picked.map((s) => distributionPercentiles(s.buckets)),
    kept: steps.length,
    seen,
    dropped,
  };
}
