// The last series windows an endpoint answered, kept (bounded) so its charts still answer while it is away.

import type { SeriesDelta, SeriesWindow } from '../../shared/domain';

/** Points kept over all windows of one endpoint (24 B each: ~24 MiB). */
export const KEPT_POINTS = 1_000_000;

const keyOf = (run: string, tag: string): string => `${run}\u0000${tag}`;

/** Least recently stored goes first once over the budget. Windows are stored under our run keys. */
export class KeptSeries {
  private readonly windows = new Map<string, SeriesWindow>();
  private points = 0;

  constructor(private readonly budget = KEPT_POINTS) {}

  store(w: SeriesWindow): void {
    this.drop(keyOf(w.run, w.tag));
    if (w.steps.length > this.budget) return;
    this.windows.set(keyOf(w.run, w.tag), w);
    this.points += w.steps.length;
    for (const [k, old] of this.windows) {
      if (this.points <= this.budget) break;
      this.windows.delete(k);
      this.points -= old.steps.length;
    }
  }

  /** A full-resolution window grows by a delta that continues it; any other delta leaves it as it was. */
  append(d: SeriesDelta): void {
    const w = this.windows.get(keyOf(d.run, d.tag));
    if (!w || w.downsampled || d.from !== w.length || w.steps.length !== w.length) return;
    const n = d.steps.length;
    if (this.points + n > this.budget) return;
    const grown: SeriesWindow = {
      ...w,
      steps: concat(w.steps, d.steps),
      wallTimes: concat(w.wallTimes, d.wallTimes),
      values: concat(w.values, d.values),
      length: w.length + n,
      inRange: w.inRange + n,
    };
    if (n > 0) {
      const ext = w.extent;
      const last = n - 1;
      // Wall bounds over the points that have a wall time (NaN: none), as the live view's extent.
      let wallMin = ext?.wallMin ?? Number.NaN;
      let wallMax = ext?.wallMax ?? Number.NaN;
      for (let i = 0; i < n; i++) {
        const t = d.wallTimes[i]!;
        if (t !== t) grown.untimed++;
        else {
          if (!(t >= wallMin)) wallMin = t;
          if (!(t <= wallMax)) wallMax = t;
        }
      }
      grown.extent = {
        stepMin: ext ? Math.min(ext.stepMin, d.steps[0]!) : d.steps[0]!,
        stepMax: ext ? Math.max(ext.stepMax, d.steps[last]!) : d.steps[last]!,
        wallMin,
        wallMax,
      };
    }
    this.windows.set(keyOf(d.run, d.tag), grown);
    this.points += n;
  }

  get(run: string, tag: string): SeriesWindow | null {
    return this.windows.get(keyOf(run, tag)) ?? null;
  }

  /** Every run+tag kept, for re-query hints after a reconnect. */
  keys(): { run: string; tag: string }[] {
    return [...this.windows.values()].map((w) => ({ run: w.run, tag: w.tag }));
  }

  private drop(key: string): void {
    const old = this.windows.get(key);
    if (!old) return;
    this.windows.delete(key);
    this.points -= old.steps.length;
  }
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
