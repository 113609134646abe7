// The y-range rules: pad around a flat series (one tick, never a zig-zag; flat within the data's precision
// too) and the "ignore outliers" percentile range.

import type { Pt } from './series-model';

/** "Ignore outliers": the y-range spans these percentiles of the drawn values, plus OUTLIER_MARGIN of that span. */
const OUTLIER_PERCENTILES: readonly [number, number] = [0.05, 0.95];
const OUTLIER_MARGIN = 0.1;
/** Percentiles are taken over at most this many values (an even stride through longer series). */
const OUTLIER_SAMPLE = 4096;

/**
 * Values whose whole span is at most this fraction of their magnitude are flat: a change below the data's
 * precision (float32 keeps ~7 digits; a W&B disk gauge 722.51797 → 722.51799 GB is its last bits) is not a
 * climb to fill the chart with. The render check's flat-line invariant uses the same bound.
 */
export const FLAT_RELATIVE_SPAN = 1e-6;

/** What the y scale needs beyond chart.js's own fit: hard bounds (outliers ignored) and the flat value, if any. */
export interface YFit {
  /** Every drawn value is this one (a single point, a constant metric), or they agree on every digit up to
   * their precision (then this is the value with those digits); null otherwise. */
  flat: number | null;
  /** Suggested bounds that give a flat series room around it. */
  suggestedMin: number | undefined;
  suggestedMax: number | undefined;
  /** Hard bounds when outliers are ignored and some value lies outside them. */
  min: number | undefined;
  max: number | undefined;
}

/** The values a y-axis draws: finite ones, and only positive ones on a log axis. */
export function drawnValues(series: readonly { raw: readonly Pt[] }[], logY: boolean): number[] {
  const out: number[] = [];
  for (const s of series) {
    for (const p of s.raw) if (Number.isFinite(p.y) && (!logY || p.y > 0)) out.push(p.y);
  }
  return out;
}

/**
 * The value a series of values from `lo` to `hi` is flat at: lo when they are equal; when their span is
 * within FLAT_RELATIVE_SPAN of their magnitude, the value written with the significant digits both agree
 * on (722.51797 and 722.51799 → 722.518); null when they differ by more.
 */
export function flatLevel(lo: number, hi: number): number | null {
  if (lo === hi) return lo;
  if (!(hi - lo <= FLAT_RELATIVE_SPAN * Math.max(Math.abs(lo), Math.abs(hi)))) return null;
  let agreed = (lo + hi) / 2;
  for (let digits = 1; digits <= 17; digits++) {
    const a = lo.toPrecision(digits);
    if (a !== hi.toPrecision(digits)) break;
    agreed = Number(a);
  }
  return agreed;
}

/** The flat level of the drawn values, without collecting them (this runs on every frame a chart draws). */
function flatDrawnValue(series: readonly { raw: readonly Pt[] }[], logY: boolean): number | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    for (const p of s.raw) {
      if (!Number.isFinite(p.y) || (logY && p.y <= 0)) continue;
      if (p.y < lo) lo = p.y;
      if (p.y > hi) hi = p.y;
    }
  }
  return lo > hi ? null : flatLevel(lo, hi);
}

/** Room around a constant value: ±10 % of it (±1 around 0) on a linear axis, a factor of 2 on a log one. */
export function flatPadding(value: number, logY: boolean): [number, number] {
  if (logY) return [value / 2, value * 2];
  const pad = value === 0 ? 1 : Math.abs(value) * 0.1;
  return [value - pad, value + pad];
}

/** The q-quantile (0..1) of sorted values, interpolated linearly. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * The y-range that ignores outliers (TensorBoard's Time Series default): the 5th–95th percentile plus a
 * 10 % margin, in log10 space on a log axis. Null when every value already fits (nothing would be clipped).
 */
export function outlierRange(values: readonly number[], logY: boolean): [number, number] | null {
  if (values.length < 3) return null;
  const stride = Math.max(1, Math.ceil(values.length / OUTLIER_SAMPLE));
  const t = (v: number): number => (logY ? Math.log10(v) : v);
  const sample: number[] = [];
  for (let i = 0; i < values.length; i += stride) sample.push(t(values[i]!));
  sample.sort((a, b) => a - b);
  const lo = quantile(sample, OUTLIER_PERCENTILES[0]);
  const hi = quantile(sample, OUTLIER_PERCENTILES[1]);
  const margin = hi > lo ? (hi - lo) * OUTLIER_MARGIN : Math.abs(lo) * OUTLIER_MARGIN || 1;
  const range: [number, number] = [lo - margin, hi + margin];
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    const x = t(v);
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min >= range[0] && max <= range[1]) return null;
  return logY ? [10 ** range[0], 10 ** range[1]] : range;
}

/** The y-range facts for the drawn series. */
export function fitY(
  series: readonly { raw: readonly Pt[] }[],
  logY: boolean,
  ignoreOutliers: boolean,
): YFit {
  const flat = flatDrawnValue(series, logY);
  const fit: YFit = {
    flat,
    suggestedMin: undefined,
    suggestedMax: undefined,
    min: undefined,
    max: undefined,
  };
  if (flat !== null) {
    [fit.suggestedMin, fit.suggestedMax] = flatPadding(flat, logY);
    return fit;
  }
  if (ignoreOutliers) {
    const r = outlierRange(drawnValues(series, logY), logY);
    if (r) [fit.min, fit.max] = r;
  }
  return fit;
}

/** Points outside [min, max] (clipped by an outlier range): where to mark them on the plot's edge. */
export function clippedPoints(pts: readonly Pt[], min: number, max: number): { x: number; above: boolean }[] {
  const out: { x: number; above: boolean }[] = [];
  for (const p of pts) {
    if (p.y > max) out.push({ x: p.x, above: true });
    else if (p.y < min) out.push({ x: p.x, above: false });
  }
  return out;
}
