// One run's drawn series: columns from a downsampled window plus live deltas, turned into chart.js {x,y} points.

import type { RestartMark, SeriesDelta, SeriesWindow, SessionInfo } from '../domain';
import { xOf, type XAxisMode } from './axis';
import { emaStart, smoothInto, type EmaState } from './smoothing';

export interface Pt {
  x: number;
  y: number;
}

export interface ViewOptions {
  xAxis: XAxisMode;
  logY: boolean;
  /** 0 = off; otherwise the EMA weight. */
  smoothing: number;
  /** Scale y to the 5th–95th percentile (TensorBoard's "ignore outliers"); points outside are marked. */
  ignoreOutliers?: boolean;
}

export type DeltaOutcome = 'appended' | 'stale' | 'gap';

/** How many points a chart may hold per pixel of width before it asks the core for a fresh downsampled window. */
export const GROWTH_FACTOR = 4;

/**
 * Which indices of `n` points to keep so at most ~4 per bucket survive (first, min, max, last of each of
 * `buckets` index ranges, in order). A fallback for a window the core did not downsample enough.
 */
export function decimateIndices(values: ArrayLike<number>, buckets: number): Uint32Array {
  const n = values.length;
  if (n <= buckets * GROWTH_FACTOR) return Uint32Array.from({ length: n }, (_, i) => i);
  const keep: number[] = [];
  const per = n / buckets;
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor(b * per);
    const hi = Math.min(n, Math.floor((b + 1) * per));
    if (hi <= lo) continue;
    let iMin = -1;
    let iMax = -1;
    for (let i = lo; i < hi; i++) {
      const v = values[i]!;
      if (!Number.isFinite(v)) continue;
      if (iMin < 0 || v < values[iMin]!) iMin = i;
      if (iMax < 0 || v > values[iMax]!) iMax = i;
    }
    const picks = [lo, iMin, iMax, hi - 1].filter((i) => i >= 0).sort((a, b) => a - b);
    for (let k = 0; k < picks.length; k++) if (k === 0 || picks[k] !== picks[k - 1]) keep.push(picks[k]!);
    // A non-finite value inside the bucket still breaks the line: keep the first one.
    for (let i = lo; i < hi; i++) {
      if (!Number.isFinite(values[i]!)) {
        keep.push(i);
        break;
      }
    }
  }
  keep.sort((a, b) => a - b);
  return Uint32Array.from(keep.filter((v, i) => i === 0 || v !== keep[i - 1]));
}

export class RunSeries {
  steps: number[] = [];
  walls: number[] = [];
  values: number[] = [];
  /** Live-view index the next delta continues from (SeriesWindow.length, then grown by deltas). */
  length = 0;
  /** Wall time (s) of the run's first point: the zero of the relative axis. */
  origin = Number.NaN;
  restarts: RestartMark[] = [];
  /** The series' sessions (each restart starts one), from the last window. */
  sessions: SessionInfo[] = [];
  extent: SeriesWindow['extent'] = null;
  /** Points of the run's live view without a wall time (the window's count plus NaN wall times of deltas). */
  untimed = 0;
  /** The window the columns came from was a zoomed x-range (not the whole series). */
  partial = false;
  /** Replaced by rebuild() (new arrays: chart.js re-links them), grown in place by extend() (chart.js sees pushes). */
  raw: Pt[] = [];
  smoothed: Pt[] = [];
  /** Points hidden because log y cannot draw values ≤ 0. */
  nonPositive = 0;
  private ema: EmaState = emaStart();
  private smoothBuf: number[] = [];
  private built = 0;
  /** The line's palette index and dash when the chart sets them (stable per run); unset: its position decides. */
  colorIndex?: number;
  dash?: readonly number[];

  constructor(readonly run: string) {}

  /** Replaces the columns with a fresh window; `maxPoints` decimates a window the core sent too dense. */
  setWindow(w: SeriesWindow, maxPoints: number, partial: boolean): void {
    let keep: Uint32Array | null = null;
    if (w.steps.length > maxPoints * GROWTH_FACTOR) keep = decimateIndices(w.values, maxPoints);
    const pick = (a: Float64Array): number[] => {
      if (!keep) return Array.from(a);
      const out = new Array<number>(keep.length);
      for (let i = 0; i < keep.length; i++) out[i] = a[keep[i]!]!;
      return out;
    };
    this.steps = pick(w.steps);
    this.walls = pick(w.wallTimes);
    this.values = pick(w.values);
    this.length = w.length;
    this.restarts = w.restarts;
    this.sessions = w.sessions;
    this.extent = w.extent;
    this.untimed = w.untimed;
    this.partial = partial;
    // The run's first point, earlier sessions included (a restart from step 0 leaves them out of the view).
    const start = w.sessions[0]?.startWall ?? Number.NaN;
    const viewFirst = w.extent?.wallMin ?? (partial ? Number.NaN : this.walls[0]);
    const first = Number.isFinite(start) && !(viewFirst! < start) ? start : viewFirst;
    if (first !== undefined && Number.isFinite(first)) this.origin = first;
    else if (!Number.isFinite(this.origin) && this.walls.length > 0) this.origin = this.walls[0]!;
    this.built = 0;
  }

  /** Takes the new part of a delta; a delta that skips ahead of what we hold means points were missed. */
  applyDelta(d: SeriesDelta): DeltaOutcome {
    const n = d.steps.length;
    if (d.from > this.length) return 'gap';
    if (d.from + n <= this.length) return 'stale';
    const start = this.length - d.from;
    for (let i = start; i < n; i++) {
      const wall = d.wallTimes[i]!;
      this.steps.push(d.steps[i]!);
      this.walls.push(wall);
      this.values.push(d.values[i]!);
      if (wall !== wall) this.untimed++;
    }
    if (!Number.isFinite(this.origin)) {
      const first = this.walls.find(Number.isFinite);
      if (first !== undefined) this.origin = first;
    }
    this.length = d.from + n;
    if (this.extent) {
      const last = n - 1;
      const wall = d.wallTimes[last]!;
      // A point without a wall time (NaN) moves no wall bound.
      this.extent = {
        stepMin: this.extent.stepMin,
        wallMin: this.extent.wallMin === this.extent.wallMin ? this.extent.wallMin : wall,
        stepMax: Math.max(this.extent.stepMax, d.steps[last]!),
        wallMax:
          wall > this.extent.wallMax || this.extent.wallMax !== this.extent.wallMax
            ? wall
            : this.extent.wallMax,
      };
    }
    return 'appended';
  }

  /** Points the chart holds now (columns, whether or not converted yet). */
  get count(): number {
    return this.steps.length;
  }

  /** Rebuilds every point (mode, log or smoothing changed, or a new window) into new arrays. */
  rebuild(o: ViewOptions): void {
    this.raw = [];
    this.smoothed = [];
    this.smoothBuf.length = 0;
    this.ema = emaStart();
    this.nonPositive = 0;
    this.built = 0;
    this.extend(o);
  }

  /** Converts columns appended since the last build into points (appends to the same arrays). */
  extend(o: ViewOptions): number {
    const from = this.built;
    const n = this.steps.length;
    if (from >= n) return 0;
    const smoothing = o.smoothing > 0;
    if (smoothing) smoothInto(this.values, o.smoothing, this.ema, this.smoothBuf, from);
    for (let i = from; i < n; i++) {
      const x = xOf(o.xAxis, this.steps[i]!, this.walls[i]!, this.origin);
      const v = this.values[i]!;
      let y = Number.isFinite(v) ? v : Number.NaN;
      if (o.logY && y <= 0) {
        y = Number.NaN;
        this.nonPositive++;
      }
      this.raw.push({ x, y });
      if (smoothing) {
        let s = this.smoothBuf[i]!;
        if (!Number.isFinite(s) || (o.logY && s <= 0)) s = Number.NaN;
        this.smoothed.push({ x, y: s });
      }
    }
    this.built = n;
    return n - from;
  }

  /** Smoothed value at column i (NaN when smoothing is off or not built). */
  smoothedAt(i: number): number {
    return this.smoothed[i]?.y ?? Number.NaN;
  }
}

/** Index of the point nearest to x in points sorted by x; -1 when empty. */
export function nearestIndex(pts: readonly Pt[], x: number): number {
  const n = pts.length;
  if (n === 0) return -1;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pts[mid]!.x < x) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return 0;
  if (lo === n) return n - 1;
  return x - pts[lo - 1]!.x <= pts[lo]!.x - x ? lo - 1 : lo;
}

/** What a chart holds, summed over its runs: the panel's data-* attributes and its log-y note. */
export interface SeriesSummary {
  /** Points drawn (raw line), all runs. */
  points: number;
  /** Values hidden by log y (≤ 0). */
  nonPositive: number;
  restarts: number;
  /** The newest step held by any run; null when none holds a point. */
  lastStep: number | null;
}

export function summarize(series: readonly RunSeries[]): SeriesSummary {
  const out: SeriesSummary = { points: 0, nonPositive: 0, restarts: 0, lastStep: null };
  for (const s of series) {
    out.points += s.raw.length;
    out.nonPositive += s.nonPositive;
    out.restarts += s.restarts.length;
    const n = s.steps.length;
    if (n > 0 && (out.lastStep === null || s.steps[n - 1]! > out.lastStep)) out.lastStep = s.steps[n - 1]!;
  }
  return out;
}
