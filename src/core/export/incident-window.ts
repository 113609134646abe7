// An incident's window of steps around the alert, and every tag's full-resolution points inside it, read from live views.

import type { SeriesWindow } from '../../shared/domain';
import { ScalarSeries } from '../series/scalar-series';
import type { WindowQuery } from '../series/live-view';
import type { RunSeries } from './tables';

/** Where the points come from: a workspace's live views (the app's own, or a replay's). */
export interface ViewReader {
  getWindow(run: string, tag: string, q: WindowQuery): SeriesWindow | null;
}

/** The window's half-width by default: this fraction of the run's step range on each side of the alert. */
export const WINDOW_FRACTION = 0.1;
/** The most points the window may hold over all tags: the half-width is halved until it fits (~20 MB of CSV). */
export const MAX_WINDOW_POINTS = 500_000;

export interface IncidentWindow {
  /** Steps in [min, max] are in the window (min = step − halfWidth, max = step + halfWidth). */
  min: number;
  max: number;
  halfWidth: number;
  /** The run's step range over every tag (null when the run holds no point). */
  runSteps: { min: number; max: number } | null;
}

/** The run's first and last step over all its tags. */
function runStepRange(reader: ViewReader, run: string, tags: readonly string[]): IncidentWindow['runSteps'] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const tag of tags) {
    const e = reader.getWindow(run, tag, { pixels: 1 })?.extent;
    if (!e) continue;
    min = Math.min(min, e.stepMin);
    max = Math.max(max, e.stepMax);
  }
  return min <= max ? { min, max } : null;
}

/** Points of `tag` with step in [min, max] (counted by the view's binary search, not read). */
function pointsIn(reader: ViewReader, run: string, tag: string, min: number, max: number): number {
  return reader.getWindow(run, tag, { pixels: 1, xMin: min, xMax: max, axis: 'step' })?.inRange ?? 0;
}

/**
 * The window around `step`: `halfWidth` steps each side when given, else WINDOW_FRACTION of the run's step
 * range (at least 1 step); then halved until the tags hold at most MAX_WINDOW_POINTS points in it together,
 * so a snapshot of a run of any size stays small.
 */
export function incidentWindow(
  reader: ViewReader,
  run: string,
  tags: readonly string[],
  step: number,
  halfWidth?: number,
): IncidentWindow {
  const runSteps = runStepRange(reader, run, tags);
  let w =
    halfWidth !== undefined && Number.isFinite(halfWidth) && halfWidth >= 0
      ? halfWidth
      : Math.max(1, Math.ceil(WINDOW_FRACTION * (runSteps ? runSteps.max - runSteps.min : 0)));
  const total = (): number => tags.reduce((n, t) => n + pointsIn(reader, run, t, step - w, step + w), 0);
  while (w > 0 && total() > MAX_WINDOW_POINTS) w = Math.floor(w / 2);
  // Never past the run's own steps ("steps −139 to 461" for an alert near the start).
  const min = runSteps ? Math.max(step - w, Math.min(runSteps.min, step)) : step - w;
  const max = runSteps ? Math.min(step + w, Math.max(runSteps.max, step)) : step + w;
  return { min, max, halfWidth: w, runSteps };
}

/** Every tag's points in the window at full resolution, as series (float32 values stay float32: exact CSV text). */
export function windowSeries(
  reader: ViewReader,
  run: string,
  tags: readonly string[],
  win: Pick<IncidentWindow, 'min' | 'max'>,
): RunSeries {
  const out = new Map<string, ScalarSeries[]>();
  for (const tag of tags) {
    // The view answers every point when at most 2 per pixel are in range: the cap's worth of pixels is enough.
    const w = reader.getWindow(run, tag, {
      pixels: MAX_WINDOW_POINTS,
      xMin: win.min,
      xMax: win.max,
      axis: 'step',
    });
    if (!w) continue;
    const s = new ScalarSeries(Math.max(1, w.steps.length));
    // The view adds the nearest point outside the range on each side (lines reach the edges): not in the window.
    for (let i = 0; i < w.steps.length; i++) {
      const st = w.steps[i]!;
      if (st >= win.min && st <= win.max) s.append(st, w.wallTimes[i]!, w.values[i]!);
    }
    if (s.length > 0) out.set(tag, [s]);
  }
  return out;
}
