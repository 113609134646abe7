// Where markers go on the x-axis: alerts, restarts and a focused step, converted to the current axis mode.

import { lowerBound } from '../bisect';
import type { AlertInfo, Severity } from '../domain';
import { xOf, type XAxisMode } from './axis';
import { utcStamp } from '../session-text';

/** The columns a marker's x is looked up in (a RunSeries satisfies this). */
export interface StepColumns {
  run: string;
  steps: readonly number[];
  walls: readonly number[];
  origin: number;
  restarts: readonly { step: number; wallTime: number }[];
}

export interface Marker {
  kind: 'alert' | 'restart' | 'focus';
  x: number;
  severity?: Severity;
  active?: boolean;
  label: string;
  /** Drawn beside the marker (a restart's session and start time); the label is the long form. */
  short?: string;
}

/**
 * The x of a step in the given mode: the step itself, or the wall time of the nearest held point at or
 * after it (NaN when the series holds no point near it, e.g. outside a zoomed window).
 */
export function stepToX(s: StepColumns, step: number, mode: XAxisMode): number {
  if (mode === 'step') return step;
  const n = s.steps.length;
  if (n === 0) return Number.NaN;
  let i = lowerBound(s.steps, step);
  if (i === n) {
    if (step > s.steps[n - 1]!) return Number.NaN;
    i = n - 1;
  }
  if (i > 0 && step - s.steps[i - 1]! < s.steps[i]! - step) i--;
  return xOf(mode, s.steps[i]!, s.walls[i]!, s.origin);
}

/** Alerts of this tag on one of these runs (what the chart marks). */
export function alertsFor(alerts: readonly AlertInfo[], tag: string, runs: readonly string[]): AlertInfo[] {
  return alerts.filter((a) => a.tag === tag && runs.includes(a.run));
}

export function buildMarkers(
  series: readonly StepColumns[],
  alerts: readonly AlertInfo[],
  mode: XAxisMode,
  focusStep: number | null,
): Marker[] {
  const out: Marker[] = [];
  // One mark per restart: a composed chart's tags of one run restart at the same place, each would repeat it.
  const restartsMarked = new Set<string>();
  for (const s of series) {
    s.restarts.forEach((r, k) => {
      const x = mode === 'step' ? r.step : xOf(mode, r.step, r.wallTime, s.origin);
      const session = k + 2;
      const at = utcStamp(r.wallTime);
      // By step and start time, not x: in time modes each tag's x is its own wall time (or origin), a hair apart.
      const key = `${r.step}\u0000${session}\u0000${at}`;
      if (restartsMarked.has(key)) return;
      restartsMarked.add(key);
      out.push({
        kind: 'restart',
        x,
        label: `restart at step ${r.step}: session ${session} started ${at}`,
        short: Number.isFinite(r.wallTime) ? `${session} · ${at.slice(11, 16)}` : `${session}`,
      });
    });
  }
  for (const a of alerts) {
    const s = series.find((c) => c.run === a.run);
    const x = s ? stepToX(s, a.step, mode) : mode === 'step' ? a.step : Number.NaN;
    out.push({
      kind: 'alert',
      x,
      severity: a.severity,
      active: a.active,
      label: `${a.severity}: ${a.message} (step ${a.step})`,
    });
  }
  if (focusStep !== null && series[0]) {
    out.push({ kind: 'focus', x: stepToX(series[0], focusStep, mode), label: `step ${focusStep}` });
  }
  return out;
}
