// The hover readout: the x label and each run's raw (and smoothed) value at the point nearest the pointer.

import { formatNumber } from '../../../shared/format';
import { formatX, type XAxisMode } from '../../../shared/charts/axis';
import { runColor } from '../../../shared/charts/chart-theme';
import { nearestIndex, type Pt } from '../../../shared/charts/series-model';

/** What the readout needs of a run's series (a RunSeries satisfies this). */
export interface ReadoutSeries {
  run: string;
  raw: readonly Pt[];
  values: readonly number[];
  steps: readonly number[];
  smoothedAt(i: number): number;
}

export interface ReadoutRow {
  /** '' on a single-run chart (the title already names it). */
  run: string;
  colour: string;
  raw: string;
  smooth: string | null;
}

export interface Readout {
  x: string;
  rows: ReadoutRow[];
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

/** The readout at data x `xv`; null when no run has a point. The first run with a point sets the x read. */
export function readoutAt(series: Iterable<ReadoutSeries>, xv: number, view: ReadoutView): Readout | null {
  const rows: ReadoutRow[] = [];
  let at: number | null = null;
  let first: ReadoutSeries | undefined;
  let i = 0;
  for (const s of series) {
    first ??= s;
    const colour = runColor(i++);
    const k = nearestIndex(s.raw, xv);
    if (k < 0) continue;
    if (at === null) at = s.raw[k]!.x;
    rows.push({
      run: view.multiRun ? s.run : '',
      colour,
      raw: formatNumber(s.values[k]!),
      smooth: view.smoothing > 0 ? formatNumber(s.smoothedAt(k)) : null,
    });
  }
  if (at === null || !first) return null;
  const k0 = nearestIndex(first.raw, at);
  const stepAt = k0 >= 0 ? first.steps[k0] : undefined;
  const x =
    view.xAxis === 'step'
      ? `step ${at}`
      : `${formatX(view.xAxis, at, view.span)}${stepAt !== undefined ? ` · step ${stepAt}` : ''}`;
  return { x, rows, at };
}
