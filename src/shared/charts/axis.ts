// X-axis modes: step, relative (seconds since the run's first point) and wall time; query ranges and tick labels.

import type { MetricGroup } from '../catalog';

export type XAxisMode = 'step' | 'relative' | 'wall';

/** The x-axis a chart of `group` uses (dashboard and figures): system metrics are sampled on a clock, so
 * "step" shows them against time. */
export function xAxisFor(group: MetricGroup, xAxis: XAxisMode): XAxisMode {
  return group === 'System' && xAxis === 'step' ? 'relative' : xAxis;
}

/**
 * The x-axis a chart draws with: a time axis (relative or wall) falls back to step when one of its series has
 * points without a wall time (their source logs none: trainer_state.json, a CSV without a time column) — a
 * time made up for them would squeeze them into one instant. `untimedNote` says so on the chart.
 */
export function drawnXAxis(mode: XAxisMode, untimed: boolean): XAxisMode {
  return untimed && mode !== 'step' ? 'step' : mode;
}

/** What a chart says when its time axis fell back to step (drawnXAxis); null when it did not. */
export function untimedNote(mode: XAxisMode, untimed: boolean): string | null {
  return untimed && mode !== 'step'
    ? `by step: no wall times logged (${AXIS_TITLES[mode]} needs them)`
    : null;
}

/** The x value a point is drawn at. Wall time stays in seconds since epoch (a linear scale, labelled as clock time). */
export function xOf(mode: XAxisMode, step: number, wallTime: number, origin: number): number {
  return mode === 'step' ? step : mode === 'relative' ? wallTime - origin : wallTime;
}

export interface QueryRange {
  axis: 'step' | 'wall';
  xMin: number;
  xMax: number;
}

/** The `series.get` range for a visible x-range; relative ranges go back to wall seconds with the run's origin. */
export function toQueryRange(mode: XAxisMode, min: number, max: number, origin: number): QueryRange {
  if (mode === 'step') return { axis: 'step', xMin: min, xMax: max };
  const shift = mode === 'relative' ? origin : 0;
  return { axis: 'wall', xMin: min + shift, xMax: max + shift };
}

/** Widens [min, max] by `fraction` of its width on each side, so a short pan still has data to show. */
export function widen(min: number, max: number, fraction: number): [number, number] {
  const pad = (max - min) * fraction;
  return [min - pad, max + pad];
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** "45s", "3m 20s", "2h 05m", "3d 04h" — a duration in seconds as a tick label. */
export function formatDuration(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  let s = Math.abs(seconds);
  if (s < 60) return `${sign}${Number(s.toFixed(s < 10 && s % 1 !== 0 ? 1 : 0))}s`;
  s = Math.round(s);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${sign}${d}d ${pad2(h)}h`;
  if (h > 0) return `${sign}${h}h ${pad2(m)}m`;
  return `${sign}${m}m ${pad2(sec)}s`;
}

/** Clock time of a wall-seconds value (local time); the date too when the visible span is over a day. */
export function formatWall(seconds: number, spanSeconds: number): string {
  const d = new Date(seconds * 1000);
  const hms = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  if (spanSeconds <= 86400) return hms;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${hms.slice(0, 5)}`;
}

/** Compact step labels: 1200 → "1.2k", 3_000_000 → "3M"; `digits` significant digits for k/M/G (more where a
 * zoomed axis's ticks would read alike: 20,020 → "20.02k" at 4). */
export function formatStep(step: number, digits = 3): string {
  const a = Math.abs(step);
  if (a >= 1e9) return `${Number((step / 1e9).toPrecision(digits))}G`;
  if (a >= 1e6) return `${Number((step / 1e6).toPrecision(digits))}M`;
  if (a >= 1e4) return `${Number((step / 1e3).toPrecision(digits))}k`;
  return String(Number(step.toPrecision(6)));
}

/** The fewest significant digits (3 to 12) at which no two neighbouring step ticks read the same: a zoom of
 * steps 20,000–20,100 reads "20.02k, 20.04k…", never "20k" on every tick. */
export function stepTickDigits(values: readonly number[]): number {
  for (let digits = 3; digits < 12; digits++) {
    let distinct = true;
    for (let i = 1; i < values.length && distinct; i++)
      distinct = formatStep(values[i]!, digits) !== formatStep(values[i - 1]!, digits);
    if (distinct) return digits;
  }
  return 12;
}

export function formatX(mode: XAxisMode, x: number, span: number): string {
  return mode === 'step' ? formatStep(x) : mode === 'relative' ? formatDuration(x) : formatWall(x, span);
}

export const AXIS_TITLES: Record<XAxisMode, string> = {
  step: 'step',
  relative: 'time since start',
  wall: 'wall time',
};
