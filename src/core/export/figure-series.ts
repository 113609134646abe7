// A tag's full-resolution series → the lines a figure draws: smoothed at full resolution, then per-pixel min/max.

import type { SeriesLines } from '../../shared/charts/chart-spec';
import { xOf, type XAxisMode } from '../../shared/charts/axis';
import { seriesFacts } from '../../shared/charts/figure-notes';
import type { Pt } from '../../shared/charts/series-model';
import { smooth } from '../../shared/charts/smoothing';
import type { RestartMark } from '../../shared/domain';
import { minMaxIndices } from '../series/downsample';
import { LiveView, type ViewPoints } from '../series/live-view';
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

/** A figure's series: the lines, where the run restarted (steps went back) in this tag, and its earlier sessions. */
export interface FigureLines extends SeriesLines {
  restarts: Pick<RestartMark, 'step' | 'wallTime'>[];
  /** Each earlier session's own lines (faded), oldest first; none when the tag never restarted. */
  earlier: SeriesLines[];
}

/** The tag's files as the dashboard reads them: one live view (the restart rule cuts in), every session kept. */
function viewOf(parts: readonly ScalarSeries[]): LiveView {
  const view = new LiveView();
  view.setParts(parts, 'bulk');
  view.feed(Number.POSITIVE_INFINITY);
  return view;
}

/** Points (in write order, steps never decreasing) → the step window, then x by the axis mode. */
function columns(p: ViewPoints, origin: number, o: LineOptions): { xs: Float64Array; ys: Float64Array } {
  const k = p.steps.length;
  const xs = new Float64Array(k);
  const ys = new Float64Array(k);
  let m = 0;
  for (let i = 0; i < k; i++) {
    const step = p.steps[i]!;
    if (o.steps && (step < o.steps.min || step > o.steps.max)) continue;
    xs[m] = xOf(o.xAxis, step, p.wallTimes[i]!, origin);
    ys[m] = p.values[i]!;
    m++;
  }
  return { xs: xs.subarray(0, m), ys: ys.subarray(0, m) };
}

/** The zero of the relative axis: the run's first point, earlier sessions included. */
function originOf(view: LiveView): number {
  let origin = Number.NaN;
  for (const s of view.sessions()) if (s.startWall !== null && !(origin <= s.startWall)) origin = s.startWall;
  return Number.isFinite(origin) ? origin : (view.extent()?.wallMin ?? Number.NaN);
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

/** Raw and (with smoothing on) smoothed lines of some points, downsampled to the plot's pixels. */
function lines(label: string, p: ViewPoints, origin: number, o: LineOptions): SeriesLines {
  const read = columns(p, origin, o);
  const { xs, ys } = sortedByX(read.xs, read.ys);
  const n = xs.length;
  const pixels = Math.max(1, Math.round(o.pixels));
  const logY = o.logY === true;
  const keep = n > 4 * pixels ? minMaxIndices(xs, ys, 0, n, xs[0]!, xs[n - 1]!, pixels) : null;
  const raw = pick(xs, ys, keep, logY);
  const facts = seriesFacts(xs, ys, { logY, pixels, drawn: raw.length });
  if (!(o.smoothing > 0)) return { run: label, raw, smoothed: raw, facts };
  const sm = smooth(ys, o.smoothing);
  // The smoothed line keeps its own per-pixel extremes (they are not where the raw ones are).
  const smKeep = n > 4 * pixels ? minMaxIndices(xs, sm, 0, n, xs[0]!, xs[n - 1]!, pixels) : null;
  return { run: label, raw, smoothed: pick(xs, sm, smKeep, logY), facts };
}

/**
 * One series of a figure as the dashboard draws it: the live view of the tag's files (TensorBoard's preemption
 * rule: a resumed run never draws as a zig-zag) and, unless `currentOnly`, every earlier session whole, faded
 * (a crashed session's points past the restart stay visible, as on the dashboard).
 */
export function figureLines(
  label: string,
  parts: readonly ScalarSeries[],
  o: LineOptions & { currentOnly?: boolean },
): FigureLines {
  const view = viewOf(parts);
  const origin = originOf(view);
  const current = lines(label, view.gather(0, view.length), origin, o);
  const earlier: SeriesLines[] = [];
  if (!o.currentOnly)
    for (let k = 1; k < view.sessionCount; k++)
      earlier.push({ ...lines(`${label} · session ${k}`, view.sessionPoints(k)!, origin, o), faded: true });
  return {
    ...current,
    restarts: view.restarts.map((r) => ({ step: r.step, wallTime: r.wallTime })),
    earlier,
  };
}

/**
 * A panel's lines: each series, then the earlier sessions of each in its colour (drawn faded, under them). `lookOf`
 * gives a line's palette index (a run's stable look); without it, or where it gives none, its position.
 */
export function withEarlier(
  list: readonly FigureLines[],
  lookOf: (l: FigureLines, i: number) => number | undefined = () => undefined,
): SeriesLines[] {
  const looks = list.map((l, i) => lookOf(l, i) ?? i);
  return [
    ...list.map((l, i) => ({ ...l, colorIndex: looks[i]! })),
    ...list.flatMap((l, i) => l.earlier.map((e) => ({ ...e, colorIndex: looks[i]! }))),
  ];
}
