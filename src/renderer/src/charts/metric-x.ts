// Any metric as the x axis: the step colour scale, axis titles, join caption and chart.js datasets/config of a metric-x chart.

import type { ChartConfiguration, ChartDataset } from 'chart.js';
import type { MetricPairs } from '../../../shared/compare/metric-pairs';
import { csvCell, stepText } from '../../../shared/csv-text';
import {
  RIGHT_PADDING,
  TOP_PADDING,
  yTickLabel,
  type ScaleOptions,
} from '../../../shared/charts/chart-options';
import { runColor, runDash, withAlpha, type ChartTheme } from '../../../shared/charts/chart-theme';
import type { Pt } from '../../../shared/charts/series-model';

/**
 * Viridis (matplotlib's default sequential map) at nine stops: perceptually uniform, readable in grey and under
 * the common colour-vision deficiencies. Early steps are dark purple, late ones yellow.
 */
export const STEP_SCALE: readonly string[] = [
  '#440154',
  '#472d7b',
  '#3b528b',
  '#2c728e',
  '#21918c',
  '#28ae80',
  '#5ec962',
  '#addc30',
  '#fde725',
];

const channels = (hex: string): [number, number, number] => {
  const n = parseInt(hex.slice(1), 16);
  return [n >> 16, (n >> 8) & 255, n & 255];
};
const hex2 = (v: number): string => Math.round(v).toString(16).padStart(2, '0');

/** The step scale's colour at `t` in [0, 1] (clamped; NaN reads as 0), linear between the stops, as `#rrggbb`. */
export function stepColour(t: number): string {
  const u = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const at = u * (STEP_SCALE.length - 1);
  const i = Math.min(STEP_SCALE.length - 2, Math.floor(at));
  const f = at - i;
  const a = channels(STEP_SCALE[i]!);
  const b = channels(STEP_SCALE[i + 1]!);
  return `#${hex2(a[0] + (b[0] - a[0]) * f)}${hex2(a[1] + (b[1] - a[1]) * f)}${hex2(a[2] + (b[2] - a[2]) * f)}`;
}

/** The step legend's CSS background: the scale left (first step) to right (last step). */
export function stepGradientCss(): string {
  return `linear-gradient(to right, ${STEP_SCALE.join(', ')})`;
}

/** The axis titles and the canvas's accessible name: y is the chart's tag, x the chosen metric. */
export function metricAxisTitles(xTag: string, yTag: string): { x: string; y: string; label: string } {
  return { x: xTag, y: yTag, label: `${yTag} against ${xTag}` };
}

/** One run's pairs as drawn on a metric-x chart, with its palette index (its colour and dash as on step charts). */
export interface PairedRun {
  run: string;
  colorIndex: number;
  pairs: MetricPairs;
}

/** The first and last step over every run's pairs; null when no run has a pair. */
export function stepRange(runs: readonly PairedRun[]): { first: number; last: number } | null {
  let first = Infinity;
  let last = -Infinity;
  for (const r of runs)
    for (const s of r.pairs.steps) {
      if (s < first) first = s;
      if (s > last) last = s;
    }
  return first <= last ? { first, last } : null;
}

/** How the pairs were joined, for the caption: one wording when every run agrees, else per run. */
export function joinCaption(runs: readonly PairedRun[], xTag: string): string {
  const drawn = runs.filter((r) => r.pairs.x.length > 0);
  if (drawn.length === 0) return '';
  const word = (j: MetricPairs['joined']): string =>
    j === 'same-step' ? 'pairs logged at the same step' : `${xTag} interpolated at this metric's steps`;
  const kinds = new Set(drawn.map((r) => r.pairs.joined));
  if (kinds.size === 1) return word(drawn[0]!.pairs.joined);
  return drawn.map((r) => `${r.run}: ${word(r.pairs.joined)}`).join('; ');
}

/**
 * A dataset per run: its points in step order joined by a thin line in the run's colour (and dash), each point
 * filled from the step scale over `range` (shared by every run of the chart, so a colour is one step everywhere).
 * Log y leaves out values ≤ 0.
 */
export function metricDatasets(
  runs: readonly PairedRun[],
  range: { first: number; last: number } | null,
  logY: boolean,
): ChartDataset<'line', Pt[]>[] {
  const span = range ? range.last - range.first : 0;
  return runs.map((r) => {
    const data: Pt[] = [];
    const colours: string[] = [];
    const { x, y, steps } = r.pairs;
    for (let i = 0; i < x.length; i++) {
      if (logY && !(y[i]! > 0)) continue;
      data.push({ x: x[i]!, y: y[i]! });
      colours.push(stepColour(span > 0 ? (steps[i]! - range!.first) / span : 1));
    }
    const dash = runDash(r.colorIndex);
    return {
      label: r.run,
      data,
      borderColor: withAlpha(runColor(r.colorIndex), 0.55),
      borderWidth: 1,
      ...(dash.length > 0 ? { borderDash: dash } : {}),
      pointRadius: 2.5,
      pointBorderWidth: 0,
      pointBackgroundColor: colours,
      pointHitRadius: 0,
      spanGaps: false,
    };
  });
}

/** A linear (or log, for y) scale titled with its tag, in the step charts' colours and tick labels. */
function scale(title: string, theme: ChartTheme, log: boolean): ScaleOptions {
  return {
    type: log ? 'logarithmic' : 'linear',
    grid: { color: theme.grid },
    border: { color: theme.grid },
    title: { display: true, text: title, color: theme.muted, font: { size: 10 }, padding: 2 },
    ticks: {
      color: theme.muted,
      ...(log ? {} : { maxTicksLimit: 6 }),
      maxRotation: 0,
      includeBounds: false,
      font: { size: 10 },
      callback: yTickLabel(log) as never,
    },
  };
}

/**
 * The chart.js configuration of a metric-x chart: static (no animation, events, tooltip or zoom). Parsing stays on
 * here, unlike the step charts: with parsing off chart.js takes the data as sorted by x (its x-range from the first
 * and last points only), which a metric x is not.
 */
export function metricChartConfig(
  datasets: ChartDataset<'line', Pt[]>[],
  titles: { x: string; y: string },
  theme: ChartTheme,
  logY: boolean,
): ChartConfiguration<'line', Pt[]> {
  return {
    type: 'line',
    data: { datasets },
    options: {
      animation: false,
      responsive: false,
      events: [],
      layout: { padding: { top: TOP_PADDING, right: RIGHT_PADDING } },
      plugins: { legend: { display: false }, tooltip: { enabled: false }, decimation: { enabled: false } },
      scales: { x: scale(titles.x, theme, false), y: scale(titles.y, theme, logY) },
    },
  };
}

/** The pairs a metric-x chart draws, as its "Download data": one row per point (run, step, x, y), in step order. */
export function pairsText(
  runs: readonly PairedRun[],
  xTag: string,
  yTag: string,
  format: 'csv' | 'json',
): string {
  if (format === 'json') {
    const rows = runs.flatMap((r) =>
      Array.from(r.pairs.steps, (step, i) => ({
        run: r.run,
        step,
        [xTag]: r.pairs.x[i]!,
        [yTag]: r.pairs.y[i]!,
      })),
    );
    return `${JSON.stringify(rows, null, 1)}\n`;
  }
  const lines = [`run,step,${csvCell(xTag)},${csvCell(yTag)}`];
  for (const r of runs) {
    const run = csvCell(r.run);
    for (let i = 0; i < r.pairs.steps.length; i++)
      lines.push(`${run},${stepText(r.pairs.steps[i]!)},${String(r.pairs.x[i])},${String(r.pairs.y[i])}`);
  }
  return `${lines.join('\n')}\n`;
}
