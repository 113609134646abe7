// The hover readout: the x read (step and time) and each run's raw (and smoothed) value at the point nearest it, sorted and capped.

import { formatNumber } from '../../../shared/format';
import { formatDuration, formatWall, formatX, type XAxisMode } from '../../../shared/charts/axis';
import { lineLook } from '../../../shared/charts/chart-theme';
import { nearestIndex, type Pt } from '../../../shared/charts/series-model';

/** Rows a readout lists at most; the rest are counted ("+N more"). */
export const READOUT_ROWS = 12;

/** What the readout needs of a run's series (a RunSeries satisfies this). */
export interface ReadoutSeries {
  run: string;
  raw: readonly Pt[];
  values: readonly number[];
  steps: readonly number[];
  /** Wall seconds per point (NaN where the source logs none). */
  walls: readonly number[];
  /** Wall seconds of the run's first point: the zero of its relative time. */
  origin: number;
  smoothedAt(i: number): number;
  /** Palette index and dash as the chart draws the line (default: its position's). */
  colorIndex?: number;
  dash?: readonly number[];
}

export interface ReadoutRow {
  /** '' on a single-run chart (the title already names it). */
  run: string;
  colour: string;
  /** The line's dash (absent or [] solid), for the swatch. */
  dash?: readonly number[];
  raw: string;
  smooth: string | null;
  /** The row's own step where it differs from the one in the x label (an overlay read by time), else null. */
  step: number | null;
}

export interface Readout {
  /** The x read: the step and the time (clock time on step and wall axes, time since start on relative). */
  x: string;
  /** At most READOUT_ROWS rows, highest value first (the smoothed value when smoothing is on). */
  rows: ReadoutRow[];
  /** Runs with a point here that the rows leave out. */
  more: number;
  /** The x (data units) of the point read: where the crosshair goes. */
  at: number;
}

export interface ReadoutView {
  xAxis: XAxisMode;
  smoothing: number;
  /** Visible x-span (wall labels show the date when it is over a day). */
  span: number;
  multiRun: boolean;
}

/** Orders rows by value, highest first; NaN last; equal values keep the runs' order. */
export function byValue(a: { value: number }, b: { value: number }): number {
  const an = Number.isNaN(a.value);
  const bn = Number.isNaN(b.value);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a.value === b.value ? 0 : b.value > a.value ? 1 : -1;
}

/** The x label: the step and the time of the point read (no time when the source logs none). */
export function readoutLabel(
  xAxis: XAxisMode,
  at: number,
  span: number,
  step: number,
  wall: number,
  origin: number,
): string {
  if (xAxis !== 'step') return `${formatX(xAxis, at, span)} · step ${step}`;
  if (!Number.isFinite(wall)) return `step ${step}`;
  const since = Number.isFinite(origin) ? ` (${formatDuration(wall - origin)})` : '';
  return `step ${step} · ${formatWall(wall, 0)}${since}`;
}

/** The x of the point a hover at data x `xv` reads: the first run's (in the chart's order) nearest point; null
 * when no run has one. The hovered chart shares this x with the others. */
export function readX(series: Iterable<ReadoutSeries>, xv: number): number | null {
  for (const s of series) {
    const k = nearestIndex(s.raw, xv);
    if (k >= 0) return s.raw[k]!.x;
  }
  return null;
}

/**
 * The readout at data x `xv`; null when no run has a point. The first run (in the chart's order) with a
 * point sets the x read; every run then shows its point nearest that x.
 */
export function readoutAt(
  series: Iterable<ReadoutSeries>,
  xv: number,
  view: ReadoutView,
  maxRows = READOUT_ROWS,
): Readout | null {
  const found: { s: ReadoutSeries; k: number; colour: string; dash: readonly number[]; value: number }[] = [];
  let i = 0;
  for (const s of series) {
    const { colour, dash } = lineLook(s, i);
    i++;
    const k = nearestIndex(s.raw, xv);
    if (k < 0) continue;
    const value = view.smoothing > 0 ? s.smoothedAt(k) : s.values[k]!;
    found.push({ s, k, colour, dash, value });
  }
  const first = found[0];
  if (!first) return null;
  const at = first.s.raw[first.k]!.x;
  const step = first.s.steps[first.k]!;
  const x = readoutLabel(view.xAxis, at, view.span, step, first.s.walls[first.k]!, first.s.origin);
  const shown = found.slice().sort(byValue).slice(0, maxRows);
  const rows = shown.map(({ s, k, colour, dash }) => ({
    run: view.multiRun ? s.run : '',
    colour,
    ...(dash.length > 0 ? { dash } : {}),
    raw: formatNumber(s.values[k]!),
    smooth: view.smoothing > 0 ? formatNumber(s.smoothedAt(k)) : null,
    step: s.steps[k] === step ? null : s.steps[k]!,
  }));
  return { x, rows, more: found.length - rows.length, at };
}
