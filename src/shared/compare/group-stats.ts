// Seed-group statistics: runs interpolated onto one step grid, their mean with a band (min–max, ± std, bootstrap 95 %), IQM.

import { lowerBound } from '../bisect';
import { seededRandom } from '../seeded-random';

export { seededRandom };

/** One run's series: steps ascending (as a live view holds them), values with NaN where not finite. */
export interface StepSeries {
  steps: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** What the band around the mean shows. */
export type BandKind = 'minmax' | 'std' | 'ci95';

export const BAND_MEANING: Record<BandKind, string> = {
  minmax: 'band: min–max over the runs',
  std: 'band: mean ± 1 standard deviation over the runs',
  ci95: 'band: 95 % bootstrap confidence interval of the mean (percentile bootstrap)',
};

/** The band of a group at each grid step; NaN where fewer than one run covers the step. */
export interface GroupBand {
  x: Float64Array;
  mean: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  /** Interquartile mean (the mean of the middle 50 %, scipy's trim_mean(·, 0.25), as rliable recommends). */
  iqm: Float64Array;
  /** How many runs cover each step (runs of different lengths: the band thins where some stopped). */
  n: Int32Array;
  band: BandKind;
}

/** The series' value at step x by linear interpolation between its neighbours; NaN outside its steps or next to a NaN. */
export function interpolateAt(s: StepSeries, x: number): number {
  const n = s.steps.length;
  if (n === 0 || !(x >= s.steps[0]!) || !(x <= s.steps[n - 1]!)) return NaN;
  const i = lowerBound(s.steps, x);
  const x1 = s.steps[i]!;
  const y1 = s.values[i]!;
  if (x1 === x) return y1;
  const x0 = s.steps[i - 1]!;
  const y0 = s.values[i - 1]!;
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/** `points` evenly spaced steps from the smallest first step to the largest last one (the union of the runs). */
export function commonGrid(series: readonly StepSeries[], points: number): Float64Array {
  const firsts = series.filter((s) => s.steps.length > 0).map((s) => s.steps[0]!);
  const lasts = series.filter((s) => s.steps.length > 0).map((s) => s.steps[s.steps.length - 1]!);
  if (firsts.length === 0 || points < 1) return new Float64Array(0);
  const lo = Math.min(...firsts);
  const hi = Math.max(...lasts);
  if (points === 1 || hi === lo) return Float64Array.of(lo);
  return Float64Array.from({ length: points }, (_, i) => lo + ((hi - lo) * i) / (points - 1));
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample standard deviation (n − 1); 0 for a single value. */
export function sampleStd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) * (x - m), 0) / (xs.length - 1));
}

/** Interquartile mean as scipy.stats.trim_mean(xs, 0.25): ⌊n/4⌋ values cut from each end, the rest averaged. */
export function interquartileMean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  // A typed array sorts numerically without a comparator (a bootstrap calls this thousands of times).
  const sorted = Float64Array.from(xs).sort();
  const cut = Math.floor(xs.length * 0.25);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i++) sum += sorted[i]!;
  return sum / (sorted.length - 2 * cut);
}

/** Linear-interpolated quantile of sorted values (numpy's default, "linear"). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The percentile-bootstrap 95 % interval of the mean: `resamples` means of n draws with replacement, their 2.5th
 * and 97.5th percentiles. Indices are ⌊random() × n⌋ from `random`, in resample order. */
export function bootstrapMeanCi(
  xs: readonly number[],
  resamples: number,
  random: () => number,
): [number, number] {
  const n = xs.length;
  if (n === 0) return [NaN, NaN];
  if (n === 1) return [xs[0]!, xs[0]!];
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += xs[Math.floor(random() * n)]!;
    means[b] = sum / n;
  }
  means.sort();
  return [quantileSorted(means, 0.025), quantileSorted(means, 0.975)];
}

export interface GroupBandOptions {
  points: number;
  band: BandKind;
  /** Bootstrap resamples per step for `ci95` (default 1000) and the generator's seed (default 0). */
  resamples?: number;
  seed?: number;
}

/** The group's statistic at one step: its mean, the band's edges and the IQM of the values there (NaN when none). */
export interface StepStats {
  n: number;
  mean: number;
  lower: number;
  upper: number;
  iqm: number;
}

function stepStats(
  ys: readonly number[],
  band: BandKind,
  resamples: number,
  random: () => number,
): StepStats {
  if (ys.length === 0) return { n: 0, mean: NaN, lower: NaN, upper: NaN, iqm: NaN };
  const m = mean(ys);
  const out = { n: ys.length, mean: m, lower: NaN, upper: NaN, iqm: interquartileMean(ys) };
  if (band === 'minmax') {
    out.lower = Math.min(...ys);
    out.upper = Math.max(...ys);
  } else if (band === 'std') {
    const sd = sampleStd(ys);
    out.lower = m - sd;
    out.upper = m + sd;
  } else [out.lower, out.upper] = bootstrapMeanCi(ys, resamples, random);
  return out;
}

/** Whether series `s` logged a point at exactly step x (a finite value there). */
export function loggedAt(s: StepSeries, x: number): boolean {
  const i = lowerBound(s.steps, x);
  return i < s.steps.length && s.steps[i] === x && Number.isFinite(s.values[i]!);
}

/**
 * The group at step x itself (not the grid's nearest point): `logged` when every run covering x logged a point
 * there (the values as logged), else the covering runs interpolated onto x. The band as groupBand computes it
 * (a `ci95` band from its own seeded generator, so a hover gives the same interval every time).
 */
export function groupAt(
  series: readonly StepSeries[],
  x: number,
  o: Omit<GroupBandOptions, 'points'>,
): StepStats & { logged: boolean } {
  const covering = series.filter((s) => Number.isFinite(interpolateAt(s, x)));
  const ys = covering.map((s) => interpolateAt(s, x));
  const st = stepStats(ys, o.band, o.resamples ?? 1000, seededRandom(o.seed ?? 0));
  return { ...st, logged: covering.length > 0 && covering.every((s) => loggedAt(s, x)) };
}

/**
 * Where fewer runs go on than before: per run that ends before the last one, its last logged step and how many
 * runs log past it ("n = 2 of 3 after step 61286" names a step that run logged). Runs ending together are one drop.
 */
export function endDrops(series: readonly StepSeries[]): { k: number; after: number }[] {
  const lasts = series.filter((s) => s.steps.length > 0).map((s) => s.steps[s.steps.length - 1]!);
  const ends = [...new Set(lasts)].sort((a, b) => a - b).slice(0, -1);
  return ends.map((after) => ({ k: lasts.filter((l) => l > after).length, after }));
}

/** A seed group's mean, band and IQM over the common grid of its runs. */
export function groupBand(series: readonly StepSeries[], o: GroupBandOptions): GroupBand {
  const x = commonGrid(series, o.points);
  const len = x.length;
  const out: GroupBand = {
    x,
    mean: new Float64Array(len),
    lower: new Float64Array(len),
    upper: new Float64Array(len),
    iqm: new Float64Array(len),
    n: new Int32Array(len),
    band: o.band,
  };
  const random = seededRandom(o.seed ?? 0);
  for (let i = 0; i < len; i++) {
    const ys = series.map((s) => interpolateAt(s, x[i]!)).filter((y) => Number.isFinite(y));
    const st = stepStats(ys, o.band, o.resamples ?? 1000, random);
    out.n[i] = st.n;
    out.mean[i] = st.mean;
    out.lower[i] = st.lower;
    out.upper[i] = st.upper;
    out.iqm[i] = st.iqm;
  }
  return out;
}
