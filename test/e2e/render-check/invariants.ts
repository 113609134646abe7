// The render check's invariants: pure functions over a drawn chart's state (and the page's text), one per rule.

import { FLAT_RELATIVE_SPAN } from '../../../src/shared/charts/y-range';
import type { ChartState, PointState } from './chart-state';

export type InvariantName =
  | 'single-point-mark'
  | 'flat-line'
  | 'distinct-ticks'
  | 'labels-inside'
  | 'y-covers-data'
  | 'freshness'
  | 'read-errors'
  | 'shows-its-run'
  | 'sessions'
  | 'no-invented-time'
  | 'drawn';

export interface Failure {
  invariant: InvariantName;
  detail: string;
}

/** Thresholds, in one place so they can be tuned once the renderer fixes land. */
export const THRESHOLDS = {
  /** A point mark must be at least this radius (CSS px) to be visible. */
  minMarkRadius: 1,
  /** A series whose values span at most this fraction of their magnitude is flat (the charts' own rule). */
  flatRelativeSpan: FLAT_RELATIVE_SPAN,
  /** A flat series may spread over less than this many pixel rows (sub-pixel rounding). */
  flatPixelSpread: 1,
  /** A tick label may overhang the canvas by this much (anti-aliasing) before it counts as clipped. */
  labelOverhang: 0.5,
  /** Relative slack when comparing the y-range with the data (float32 values against float64 scales). */
  rangeSlack: 1e-9,
};

const finitePoints = (state: ChartState): PointState[] =>
  state.series.flatMap((s) => s.points.filter((p) => p.y !== null));

/** Smallest and largest of `values` (a loop: spreading 100K values into Math.min overflows the stack). */
function extent(values: readonly number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/** The suffix chart-options gives a run's smoothed line. */
const SMOOTHED = ' (smoothed)';
/** The suffix of a restarted run's earlier session, drawn faded beside its current line (` · session 2`). */
const EARLIER_SESSION = / · session \d+$/;

/** The run a dataset belongs to: its label without the smoothed or earlier-session suffix. */
const runOfLabel = (label: string): string =>
  (label.endsWith(SMOOTHED) ? label.slice(0, -SMOOTHED.length) : label).replace(EARLIER_SESSION, '');

/** (a) A series with exactly one finite point shows a mark there: a radius you can see, inside the canvas.
 * A run's smoothed line of one point is that point, marked by the run's own (raw) series. */
export function singlePointHasMark(state: ChartState): Failure[] {
  return state.series.flatMap((s) => {
    if (s.label.endsWith(SMOOTHED)) return [];
    const finite = s.points.filter((p) => p.y !== null);
    if (finite.length !== 1) return [];
    const p = finite[0]!;
    if (p.radius < THRESHOLDS.minMarkRadius)
      return [{ invariant: 'single-point-mark', detail: `${s.label}: its one point has radius ${p.radius}` }];
    if (!(p.py >= 0 && p.py <= state.height))
      return [{ invariant: 'single-point-mark', detail: `${s.label}: its one point is drawn at y=${p.py}` }];
    return [];
  });
}

/** (b) A constant series (two or more points, all one value) draws one horizontal line: a single pixel row. */
export function flatSeriesIsOneRow(state: ChartState): Failure[] {
  const points = finitePoints(state);
  if (points.length < 2) return [];
  const [lo, hi] = extent(points.map((p) => p.y!));
  const magnitude = Math.max(Math.abs(lo), Math.abs(hi), Number.MIN_VALUE);
  if (hi - lo > THRESHOLDS.flatRelativeSpan * magnitude) return [];
  const [top, bottom] = extent(points.map((p) => p.py));
  const spread = bottom - top;
  if (spread < THRESHOLDS.flatPixelSpread) return [];
  return [
    {
      invariant: 'flat-line',
      detail: `values ${lo}…${hi} are constant but drawn over ${spread.toFixed(1)} px rows`,
    },
  ];
}

/** (b) No two y tick labels read the same (a flat or narrow range formatted too coarsely repeats them). */
export function yTicksAreDistinct(state: ChartState): Failure[] {
  const labels = state.ticks.filter((t) => t.axis === 'y' && t.text !== '').map((t) => t.text);
  const repeated = [...new Set(labels.filter((l, i) => labels.indexOf(l) !== i))];
  return repeated.length === 0
    ? []
    : [{ invariant: 'distinct-ticks', detail: `y tick labels repeat: ${repeated.join(', ')}` }];
}

/** (c) Every tick label is drawn wholly inside the canvas. */
export function tickLabelsInside(state: ChartState): Failure[] {
  const slack = THRESHOLDS.labelOverhang;
  return state.ticks
    .filter(
      (t) =>
        t.box.left < -slack ||
        t.box.top < -slack ||
        t.box.right > state.width + slack ||
        t.box.bottom > state.height + slack,
    )
    .map((t) => ({
      invariant: 'labels-inside' as const,
      detail: `${t.axis} label "${t.text}" at [${t.box.left.toFixed(1)}, ${t.box.top.toFixed(1)}, ${t.box.right.toFixed(1)}, ${t.box.bottom.toFixed(1)}] in ${state.width}×${state.height}`,
    }));
}

/**
 * (d) The y-range covers the data: every finite value (positive ones on a log scale), or, with outlier
 * trimming on, the trimmed range, with every point outside it marked as clipped.
 */
export function yRangeCoversData(state: ChartState): Failure[] {
  const ys = finitePoints(state)
    .map((p) => p.y!)
    .filter((y) => !state.logY || y > 0);
  if (ys.length === 0) return [];
  let [lo, hi] = extent(ys);
  const failures: Failure[] = [];
  if (state.trim) {
    const { low, high, markedClipped } = state.trim;
    const outside = ys.filter((y) => y < low || y > high).length;
    if (markedClipped < outside)
      failures.push({
        invariant: 'y-covers-data',
        detail: `${outside} points lie outside the trimmed range ${low}…${high} but ${markedClipped} are marked`,
      });
    lo = Math.max(lo, low);
    hi = Math.min(hi, high);
  }
  const slack = THRESHOLDS.rangeSlack * Math.max(Math.abs(lo), Math.abs(hi), 1);
  if (state.yMin > lo + slack || state.yMax < hi - slack)
    failures.push({
      invariant: 'y-covers-data',
      detail: `y-range ${state.yMin}…${state.yMax} does not cover the data ${lo}…${hi}`,
    });
  return failures;
}

/** The chart draws the runs its figure names (`data-run`), no other run's lines (a stale chart after a switch). */
export function showsItsRuns(state: ChartState): Failure[] {
  const runs = new Set(state.run.split(','));
  const strangers = [...new Set(state.series.map((s) => runOfLabel(s.label)).filter((r) => !runs.has(r)))];
  return strangers.length === 0
    ? []
    : [{ invariant: 'shows-its-run', detail: `draws ${strangers.join(', ')} for ${state.run}` }];
}

/**
 * (h) No time axis invented: a chart on a time axis (relative or wall) draws its points at their own times — a
 * series of several points never collapses onto one x (file mtimes stamped on every row did that) — and a chart
 * that says its series have no times is drawn by step.
 */
export function timeAxisIsReal(state: ChartState): Failure[] {
  if (state.untimed)
    return state.xAxis === 'step'
      ? []
      : [{ invariant: 'no-invented-time', detail: `no wall times, yet drawn on the ${state.xAxis} axis` }];
  if (state.xAxis === 'step') return [];
  const failures: Failure[] = [];
  for (const s of state.series) {
    if (s.label.endsWith(SMOOTHED)) continue;
    const xs = s.points.flatMap((p) => (p.x === null || p.y === null ? [] : [p.x]));
    if (xs.length < 3) continue;
    const [lo, hi] = extent(xs);
    if (hi === lo)
      failures.push({
        invariant: 'no-invented-time',
        detail: `${s.label}: ${xs.length} points all drawn at one ${state.xAxis} time (${lo})`,
      });
  }
  return failures;
}

/** Every chart invariant: the chart is of its run, then (a)–(d) and (h). */
export function checkChart(state: ChartState): Failure[] {
  return [
    ...showsItsRuns(state),
    ...singlePointHasMark(state),
    ...flatSeriesIsOneRow(state),
    ...yTicksAreDistinct(state),
    ...tickLabelsInside(state),
    ...yRangeCoversData(state),
    ...timeAxisIsReal(state),
  ];
}

/** The earlier sessions a chart draws (faded), by number. */
export function earlierSessionsDrawn(state: ChartState): number[] {
  const out = new Set<number>();
  for (const s of state.series) {
    const m = / · session (\d+)(?: \(smoothed\))?$/.exec(s.label);
    if (m) out.add(Number(m[1]));
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * (g) Sessions and writers as the reader counts them (`inspect --json` sessions, which keeps concurrent writers
 * apart): the run list says "N sessions" exactly when there are several, and after a restart the earlier
 * sessions stay visible — some chart draws each of them (the latest 8), faded. A restart the reader does not see
 * (two writers at once taken for one) would show as a sessions badge or restart marks inspect does not have.
 */
export function sessionsShown(
  sessions: number,
  badge: string | null,
  charts: readonly ChartState[],
): Failure[] {
  const failures: Failure[] = [];
  const want = sessions > 1 ? `· ${sessions} sessions` : null;
  if (badge !== want)
    failures.push({
      invariant: 'sessions',
      detail: `the run list says ${JSON.stringify(badge)} for ${sessions} session${sessions === 1 ? '' : 's'}`,
    });
  if (sessions > 1) {
    const drawn = new Set(charts.flatMap(earlierSessionsDrawn));
    const missing = [];
    for (let k = Math.max(1, sessions - 8); k < sessions; k++) if (!drawn.has(k)) missing.push(k);
    if (missing.length > 0)
      failures.push({
        invariant: 'sessions',
        detail: `earlier session ${missing.join(', ')} drawn on no chart`,
      });
  } else {
    const faded = charts.filter((c) => earlierSessionsDrawn(c).length > 0).map((c) => c.tag);
    if (faded.length > 0)
      failures.push({ invariant: 'sessions', detail: `one session, but ${faded[0]} draws an earlier one` });
  }
  return failures;
}

/** What the run list shows about a run's freshness: its meta line and status. */
export interface FreshnessView {
  text: string;
  status: string;
}

/** (e) After the run's file grew, its freshness text or status changed. */
export function freshnessMoved(before: FreshnessView, after: FreshnessView): Failure[] {
  if (before.text !== after.text || before.status !== after.status) return [];
  return [
    {
      invariant: 'freshness',
      detail: `still "${after.text}" (${after.status}) after a row was appended`,
    },
  ];
}

/** A read error as `rlwatch inspect --json` reports it. */
export interface ReportedReadError {
  file: string;
  kind: string;
}

/** (f) Every read error the reader reports is on the page: some element's text names its file and kind. */
export function readErrorsShown(errors: readonly ReportedReadError[], texts: readonly string[]): Failure[] {
  return (
    errors
      // Case-blind: the page may upper-case a kind badge with CSS (innerText is the rendered text).
      .filter((e) => !texts.some((t) => t.includes(e.file) && t.toLowerCase().includes(e.kind.toLowerCase())))
      .map((e) => ({ invariant: 'read-errors' as const, detail: `${e.kind} in ${e.file} is not shown` }))
  );
}
