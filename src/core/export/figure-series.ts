// A tag's full-resolution series → the lines a figure draws: smoothed at full resolution, then per-pixel min/max.

import type { SeriesLines } from '../../shared/charts/chart-options';
import { xOf, type XAxisMode } from '../../shared/charts/axis';
import { seriesFacts } from '../../shared/charts/figure-notes';
import type { Pt } from '../../shared/charts/series-model';
import { smooth } from '../../shared/charts/smoothing';
import type { RestartMark } from '../../shared/domain';
import { lowerBound, minMaxIndices } from '../series/downsample';
import type { ScalarSeries } from '../series/scalar-series';

export interface LineOptions {
  xAxis: XAxisMode;
  /** EMA weight, 0 = off. */
  smoothing: number;
  /** Plot width in pixels: at most four points per pixel survive (first, min, max, last). */
  pixels: number;
  /** Only points with step in [min, max] (an incident's window). */
  steps?: { min: number; max: number };
  /** A log y-axis: values ≤ 0 are not drawn (and counted). */
  logY?: boolean;
}

/** A figure's series: the lines, and where the run restarted (steps went back) in this tag. */
export interface FigureLines extends SeriesLines {
  restarts: Pick<RestartMark, 'step' | 'wallTime'>[];
}

/**
 * The points of a tag across its files, in file order, with the dashboard's restart rule (TensorBoard's
 * preemption rule): a step lower than the highest kept starts over there, and earlier points with step ≥ it
 * leave the line, so a resumed run never draws as a zig-zag. Then the step window, then x by the axis mode.
 */
function columns(
  parts: readonly ScalarSeries[],
  o: LineOptions,
): { xs: Float64Array; ys: Float64Array; restarts: FigureLines['restarts'] } {
  let n = 0;
  for (const s of parts) n += s.length;
  const steps = new Float64Array(n);
  const walls = new Float64Array(n);
  const ys = new Float64Array(n);
  const restarts: FigureLines['restarts'] = [];
  let origin = Number.NaN;
  for (const s of parts) if (s.length > 0 && !(origin <= s.wallTime(0))) origin = s.wallTime(0);
  let k = 0;
  for (const s of parts) {
    for (let i = 0; i < s.length; i++) {
      const step = s.step(i);
      if (k > 0 && step < steps[k - 1]!) {
        k = lowerBound(steps, step, 0, k); // steps[0, k) never decrease
        restarts.push({ step, wallTime: s.wallTime(i) });
      }
      steps[k] = step;
      walls[k] = s.wallTime(i);
      ys[k] = s.value(i);
      k++;
    }
  }
  const xs = new Float64Array(k);
  let m = 0;
  for (let i = 0; i < k; i++) {
    const step = steps[i]!;
    if (o.steps && (step < o.steps.min || step > o.steps.max)) continue;
    xs[m] = xOf(o.xAxis, step, walls[i]!, origin);
    ys[m] = ys[i]!;
    m++;
  }
  return { xs: xs.subarray(0, m), ys: ys.subarray(0, m), restarts };
}

/** Whether xs never decreases (wall time can go back where steps do not: then sort). */
function ascending(xs: Float64Array): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i]! < xs[i - 1]!) return false;
  return true;
}

function sortedByX(xs: Float64Array, ys: Float64Array): { xs: Float64Array; ys: Float64Array } {
  if (ascending(xs)) return { xs, ys };
  const order = Uint32Array.from(xs, (_, i) => i).sort((a, b) => xs[a]! - xs[b]! || a - b);
  return { xs: Float64Array.from(order, (i) => xs[i]!), ys: Float64Array.from(order, (i) => ys[i]!) };
}

/** Points at `keep`; a non-finite value (or one ≤ 0 on a log axis) becomes a gap (y NaN), as the dashboard draws it. */
function pick(xs: Float64Array, ys: ArrayLike<number>, keep: Int32Array | null, logY: boolean): Pt[] {
  const n = keep ? keep.length : xs.length;
  const out: Pt[] = new Array(n);
  for (let j = 0; j < n; j++) {
    const i = keep ? keep[j]! : j;
    const y = ys[i]!;
    out[j] = { x: xs[i]!, y: Number.isFinite(y) && (!logY || y > 0) ? y : Number.NaN };
  }
  return out;
}

/** One series of a figure: raw and (with smoothing on) smoothed lines, downsampled to the plot's pixels. */
export function figureLines(label: string, parts: readonly ScalarSeries[], o: LineOptions): FigureLines {
  const read = columns(parts, o);
  const { xs, ys } = sortedByX(read.xs, read.ys);
  const n = xs.length;
  const pixels = Math.max(1, Math.round(o.pixels));
  const logY = o.logY === true;
  const keep = n > 4 * pixels ? minMaxIndices(xs, ys, 0, n, xs[0]!, xs[n - 1]!, pixels) : null;
  const raw = pick(xs, ys, keep, logY);
  const facts = seriesFacts(xs, ys, { logY, pixels, drawn: raw.length });
  if (!(o.smoothing > 0)) return { run: label, raw, smoothed: raw, facts, restarts: read.restarts };
  const sm = smooth(ys, o.smoothing);
  // The smoothed line keeps its own per-pixel extremes (they are not where the raw ones are).
  const smKeep = n > 4 * pixels ? minMaxIndices(xs, sm, 0, n, xs[0]!, xs[n - 1]!, pixels) : null;
  return { run: label, raw, smoothed: pick(xs, sm, smKeep, logY), facts, restarts: read.restarts };
}
