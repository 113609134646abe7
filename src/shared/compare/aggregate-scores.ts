// Aggregate scores across runs and tasks as rliable defines them (Agarwal et al. 2021): IQM, mean, median, optimality gap, score distributions, probability of improvement, with stratified bootstrap CIs.

import { lowerBound, upperBound } from '../bisect';
import { interquartileMean, quantileSorted } from './group-stats';
import { seededRandom } from '../seeded-random';

/**
 * One group's (one algorithm's) scores: per task, its runs' scores. Tasks may hold different numbers of runs (rliable
 * wants a runs × tasks matrix; a ragged one is read the same way: per-task statistics per task, pooled ones over all).
 */
export type TaskScores = readonly (readonly number[])[];

/** A point estimate with its percentile-bootstrap interval. */
export interface Estimate {
  value: number;
  lower: number;
  upper: number;
}

export interface BootstrapOptions {
  /** Bootstrap resamples (rliable: 50 000 for aggregates, 2 000 for profiles). */
  reps: number;
  /** Seed of the generator (mulberry32): the same intervals on every machine. */
  seed: number;
  /** Coverage of the interval (default 0.95): its bounds are the (1 − size)/2 and (1 + size)/2 percentiles. */
  size?: number;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const pooled = (t: TaskScores): number[] => t.flat();
const taskMeans = (t: TaskScores): number[] => t.map((s) => sum(s) / s.length);

/** Mean over tasks of each task's mean over runs (rliable's aggregate_mean). */
export function aggregateMean(t: TaskScores): number {
  const m = taskMeans(t);
  return m.length === 0 ? NaN : sum(m) / m.length;
}

/** Median over tasks of each task's mean over runs (rliable's aggregate_median). */
export function aggregateMedian(t: TaskScores): number {
  // As numpy's median: the middle value, or the mean of the two middle ones.
  const m = Float64Array.from(taskMeans(t)).sort();
  const h = m.length >> 1;
  return m.length === 0 ? NaN : m.length % 2 === 1 ? m[h]! : (m[h - 1]! + m[h]!) / 2;
}

/** The 25 % trimmed mean of every run's score, all tasks pooled (rliable's aggregate_iqm: trim_mean(·, 0.25, axis=None)). */
export function aggregateIqm(t: TaskScores): number {
  return interquartileMean(pooled(t));
}

/** γ − the mean of min(score, γ) over every run of every task: how far below the target γ the runs fall on average. */
export function optimalityGap(t: TaskScores, gamma: number): number {
  const xs = pooled(t);
  return xs.length === 0 ? NaN : gamma - sum(xs.map((x) => Math.min(x, gamma))) / xs.length;
}

/** The run score distribution (the performance profile): per τ the fraction of all runs' scores strictly above τ. */
export function scoreDistribution(t: TaskScores, taus: readonly number[]): number[] {
  const xs = Float64Array.from(pooled(t)).sort();
  // Above τ: the scores after the last one ≤ τ (one sort, a binary search per τ).
  return taus.map((tau) => (xs.length === 0 ? NaN : (xs.length - upperBound(xs, tau)) / xs.length));
}

/** P(X > Y) for one task: the Mann–Whitney U statistic of x over y (ties count ½) divided by |x|·|y|. */
export function probabilityOfSuperiority(x: readonly number[], y: readonly number[]): number {
  if (x.length === 0 || y.length === 0) return NaN;
  // Per a in x: the ys below it count 1, the ys equal to it ½ (y sorted once, two binary searches per a).
  const ys = Float64Array.from(y).sort();
  let u = 0;
  for (const a of x) {
    const below = lowerBound(ys, a);
    u += below + (upperBound(ys, a) - below) / 2;
  }
  return u / (x.length * y.length);
}

/** P(X > Y) averaged over tasks (rliable's probability_of_improvement); `x` and `y` hold the same tasks in one order. */
export function probabilityOfImprovement(x: TaskScores, y: TaskScores): number {
  if (x.length !== y.length)
    throw new RangeError('probability of improvement: the two groups hold different tasks');
  if (x.length === 0) return NaN;
  return sum(x.map((xs, i) => probabilityOfSuperiority(xs, y[i]!))) / x.length;
}

/** One stratified resample: each task's runs drawn with replacement from that task's own runs. Indices are
 * ⌊random() × n_task⌋, task by task in order, run slot by run slot. */
export function stratifiedResample(t: TaskScores, random: () => number): number[][] {
  return t.map((s) => Array.from(s, () => s[Math.floor(random() * s.length)]!));
}

/** The percentile interval of bootstrap values: their (1 − size)/2 and (1 + size)/2 quantiles (numpy's linear). */
export function percentileInterval(values: Float64Array, size = 0.95): [number, number] {
  const sorted = Float64Array.from(values).sort();
  return [quantileSorted(sorted, (1 - size) / 2), quantileSorted(sorted, (1 + size) / 2)];
}

/** A vector of statistics computed on the data and on each of `reps` stratified resamples of it (one generator, in
 * resample order), each with its percentile interval: every statistic sees the same resamples, as rliable's do. */
function bootstrapped(data: TaskScores, stats: (t: TaskScores) => number[], o: BootstrapOptions): Estimate[] {
  const random = seededRandom(o.seed);
  const point = stats(data);
  const draws = point.map(() => new Float64Array(o.reps));
  for (let b = 0; b < o.reps; b++) {
    const values = stats(stratifiedResample(data, random));
    for (let k = 0; k < point.length; k++) draws[k]![b] = values[k]!;
  }
  return point.map((value, k) => {
    const [lower, upper] = o.reps > 0 ? percentileInterval(draws[k]!, o.size) : [NaN, NaN];
    return { value, lower, upper };
  });
}

export interface AggregateEstimates {
  iqm: Estimate;
  mean: Estimate;
  median: Estimate;
  /** Only with a target γ (scores normalised, or a γ given): a gap to a raw reward's γ = 1 says nothing. */
  optimalityGap: Estimate | null;
  runs: number;
  tasks: number;
}

/** A group's IQM, mean, median and (with `gamma`) optimality gap, each with its stratified bootstrap interval. */
export function aggregateEstimates(
  t: TaskScores,
  o: BootstrapOptions & { gamma?: number | null },
): AggregateEstimates {
  const gamma = o.gamma ?? null;
  const stats = (s: TaskScores): number[] => [
    aggregateIqm(s),
    aggregateMean(s),
    aggregateMedian(s),
    ...(gamma === null ? [] : [optimalityGap(s, gamma)]),
  ];
  const [iqm, mean, median, gap] = bootstrapped(t, stats, o);
  return {
    iqm: iqm!,
    mean: mean!,
    median: median!,
    optimalityGap: gap ?? null,
    runs: t.reduce((n, s) => n + s.length, 0),
    tasks: t.length,
  };
}

/** The performance profile: per τ the fraction of runs scoring above it, with its stratified bootstrap interval. */
export function performanceProfile(
  t: TaskScores,
  taus: readonly number[],
  o: BootstrapOptions,
): { tau: number; fraction: Estimate }[] {
  return bootstrapped(t, (s) => scoreDistribution(s, taus), o).map((fraction, i) => ({
    tau: taus[i]!,
    fraction,
  }));
}

/** P(X > Y) with its interval from independent stratified resamples of X then Y per rep (rliable's
 * StratifiedIndependentBootstrap), one generator. */
export function improvementEstimate(x: TaskScores, y: TaskScores, o: BootstrapOptions): Estimate {
  const random = seededRandom(o.seed);
  const draws = new Float64Array(o.reps);
  for (let b = 0; b < o.reps; b++) {
    const rx = stratifiedResample(x, random);
    draws[b] = probabilityOfImprovement(rx, stratifiedResample(y, random));
  }
  const [lower, upper] = o.reps > 0 ? percentileInterval(draws, o.size) : [NaN, NaN];
  return { value: probabilityOfImprovement(x, y), lower, upper };
}

/** `count` evenly spaced thresholds from `lo` to `hi` (numpy's linspace), the profile's x. */
export function linspace(lo: number, hi: number, count: number): number[] {
  if (count <= 1 || hi === lo) return [lo];
  return Array.from({ length: count }, (_, i) => lo + ((hi - lo) * i) / (count - 1));
}
