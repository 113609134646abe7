// A bounded copy of each remote series' whole view, kept up to date, so every chart of an endpoint still draws while it is away.

import type { SeriesDelta, SeriesWindow } from '../../shared/domain';
import { minMaxIndices } from '../series/downsample';

export interface KeepBounds {
  /** Points kept per series: a longer view is thinned by per-bucket min/max (spikes and NaN survive). */
  pointsPerSeries: number;
  /** Series kept per endpoint; past it the least recently stored goes. */
  series: number;
}

/** 1,024 × 1,024 points at 24 B each: at most ~24 MiB per endpoint. */
export const DEFAULT_KEEP: KeepBounds = { pointsPerSeries: 1024, series: 1024 };

/** A query answered from the copy (the live window's own, less the session). */
export interface KeptQuery {
  xMin?: number;
  xMax?: number;
  axis?: 'step' | 'wall';
}

/** One series' key in a map (run keys and tags may hold anything but NUL). */
export const keyOf = (run: string, tag: string): string => `${run}\u0000${tag}`;

/** Each copy is a whole-view window under our run key, its `length` the remote view's, at most
 * `pointsPerSeries` points (then `downsampled`). */
export class KeptSeries {
  private readonly windows = new Map<string, SeriesWindow>();

  constructor(private readonly bounds: KeepBounds = DEFAULT_KEEP) {}

  get size(): number {
    return this.windows.size;
  }

  has(run: string, tag: string): boolean {
    return this.windows.has(keyOf(run, tag));
  }

  /** A window of the whole view (no range, no session), as the endpoint answered it: kept unless the copy
   * already holds this view at a finer resolution. */
  store(w: SeriesWindow): void {
    const key = keyOf(w.run, w.tag);
    const old = this.windows.get(key);
    const thinned = thin(w, this.bounds.pointsPerSeries);
    if (old && old.length === w.length && old.steps.length > thinned.steps.length) return;
    this.windows.delete(key);
    this.windows.set(key, thinned);
    for (const k of this.windows.keys()) {
      if (this.windows.size <= this.bounds.series) break;
      this.windows.delete(k);
    }
  }

  /** Grows a copy by a pushed delta. Points it already holds are skipped; false when the delta leaves a gap
   * (points were missed: the copy needs a fresh window). */
  append(d: SeriesDelta): boolean {
    const key = keyOf(d.run, d.tag);
    const w = this.windows.get(key);
    if (!w) return true;
    if (d.from > w.length) return false;
    const skip = w.length - d.from;
    const n = d.steps.length - skip;
    if (n <= 0) return true;
    const steps = d.steps.subarray(skip);
    const wallTimes = d.wallTimes.subarray(skip);
    const grown: SeriesWindow = {
      ...w,
      steps: concat(w.steps, steps),
      wallTimes: concat(w.wallTimes, wallTimes),
      values: concat(w.values, d.values.subarray(skip)),
      length: w.length + n,
      inRange: w.length + n,
    };
    const ext = w.extent;
    // Wall bounds over the points that have a wall time (NaN: none), as the live view's extent.
    let wallMin = ext?.wallMin ?? Number.NaN;
    let wallMax = ext?.wallMax ?? Number.NaN;
    for (let i = 0; i < n; i++) {
      const t = wallTimes[i]!;
      if (t !== t) grown.untimed++;
      else {
        if (!(t >= wallMin)) wallMin = t;
        if (!(t <= wallMax)) wallMax = t;
      }
    }
    let stepMin = ext?.stepMin ?? steps[0]!;
    let stepMax = ext?.stepMax ?? steps[0]!;
    for (let i = 0; i < n; i++) {
      stepMin = Math.min(stepMin, steps[i]!);
      stepMax = Math.max(stepMax, steps[i]!);
    }
    grown.extent = { stepMin, stepMax, wallMin, wallMax };
    // Over the bound: thinned to half of it, so the next thinning is as many points away (amortised O(1)).
    const max = this.bounds.pointsPerSeries;
    this.windows.set(key, grown.steps.length > max ? thin(grown, Math.max(1, max >> 1)) : grown);
    return true;
  }

  /** The copy answering a query: the whole copy, or its points in [xMin, xMax] with one neighbour each side
   * (so lines reach the edges); null when none is kept. */
  get(run: string, tag: string, q: KeptQuery = {}): SeriesWindow | null {
    const w = this.windows.get(keyOf(run, tag));
    if (!w || (q.xMin === undefined && q.xMax === undefined)) return w ?? null;
    const xs = q.axis === 'wall' && w.untimed === 0 ? w.wallTimes : w.steps;
    const lo = q.xMin ?? Number.NEGATIVE_INFINITY;
    const hi = q.xMax ?? Number.POSITIVE_INFINITY;
    let first = -1;
    let last = -1;
    for (let i = 0; i < xs.length; i++) {
      if (xs[i]! >= lo && xs[i]! <= hi) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first < 0) return { ...pick(w, 0, 0), inRange: 0 };
    const a = Math.max(0, first - 1);
    const b = Math.min(xs.length, last + 2);
    return { ...pick(w, a, b), inRange: last - first + 1 };
  }

  /** Every run+tag kept, for re-query hints after a reconnect. */
  keys(): { run: string; tag: string }[] {
    return [...this.windows.values()].map((w) => ({ run: w.run, tag: w.tag }));
  }

  /** Forgets the copies of runs the endpoint no longer lists. */
  retainRuns(runs: ReadonlySet<string>): void {
    for (const [k, w] of this.windows) if (!runs.has(w.run)) this.windows.delete(k);
  }
}

function pick(w: SeriesWindow, a: number, b: number): SeriesWindow {
  return {
    ...w,
    steps: w.steps.slice(a, b),
    wallTimes: w.wallTimes.slice(a, b),
    values: w.values.slice(a, b),
  };
}

/** At most `max` points of a window, by per-bucket min/max over the point index (steps may go back at a
 * restart; the index never does). */
function thin(w: SeriesWindow, max: number): SeriesWindow {
  const n = w.steps.length;
  if (n <= max) return w;
  const index = Float64Array.from({ length: n }, (_, i) => i);
  const keep = minMaxIndices(index, w.values, 0, n, 0, n - 1, Math.max(1, Math.floor(max / 4)));
  const gather = (col: Float64Array): Float64Array => Float64Array.from(keep, (i) => col[i]!);
  return {
    ...w,
    steps: gather(w.steps),
    wallTimes: gather(w.wallTimes),
    values: gather(w.values),
    downsampled: true,
  };
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
