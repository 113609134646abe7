// The one chart definition: view settings, series, band, markers and a theme → a chart.js line configuration (no DOM).

import type { ChartConfiguration, ChartDataset, ChartOptions, Scale } from 'chart.js';
import { formatNumber } from '../format';
import { AXIS_TITLES, formatX, type XAxisMode } from './axis';
import type { BandRange } from './band';
import { EARLIER_SESSION_DASH, runColor, runDash, withAlpha, type ChartTheme } from './chart-theme';
import { emptyMessage, type SeriesFacts } from './figure-notes';
import type { Marker } from './markers';
import { overlayPlugin, type OverlayState } from './overlay-plugin';
import type { Pt, ViewOptions } from './series-model';
import { isolatedPoints } from './isolated-points';
import { clippedPoints, fitY, type YFit } from './y-range';

/** One run's lines as drawn: raw points, and the smoothed ones (used when smoothing is on). */
export interface SeriesLines {
  run: string;
  raw: Pt[];
  smoothed: Pt[];
  /** Palette index (default: the line's position): an earlier session takes its run's colour. */
  colorIndex?: number;
  /** An earlier session of a restarted run: drawn faded and dashed, under the current lines. */
  faded?: boolean;
  /** What was read beyond the points drawn (a figure's lines carry it: counts, non-finite positions). */
  facts?: SeriesFacts;
}

/** Everything a chart shows, as data. */
export interface ChartSpec {
  view: ViewOptions;
  /** In drawing order: run i gets palette colour i. */
  series: readonly SeriesLines[];
  band: BandRange | null;
  markers?: readonly Marker[];
}

/** One scale's options (what chart.js keeps under options.scales.x / .y). */
export type ScaleOptions = NonNullable<NonNullable<ChartOptions<'line'>['scales']>[string]>;

/** The y-range bounds that keep the healthy band's finite edges in view (a log axis cannot show edges ≤ 0). */
export function bandRange(
  band: BandRange | null,
  logY: boolean,
): { suggestedMin: number | undefined; suggestedMax: number | undefined } {
  const lo = band?.min ?? undefined;
  const hi = band?.max ?? undefined;
  return {
    suggestedMin: logY && lo !== undefined && lo <= 0 ? undefined : lo,
    suggestedMax: logY && hi !== undefined && hi <= 0 ? undefined : hi,
  };
}

/** The lines: per run the raw line (faint and thin under smoothing) and, with smoothing on, the smoothed one. */
export function lineDatasets(
  series: readonly SeriesLines[],
  smoothing: number,
): ChartDataset<'line', Pt[]>[] {
  const out: ChartDataset<'line', Pt[]>[] = [];
  const smoothingOn = smoothing > 0;
  series.forEach((s, i) => {
    const colour = runColor(s.colorIndex ?? i);
    // Faded (an earlier session): lighter, finely dashed, drawn first (chart.js draws higher `order` sooner).
    const fade = s.faded ? 0.45 : 1;
    const tint = (alpha: number): string => (alpha === 1 ? colour : withAlpha(colour, alpha));
    const dash = s.faded ? [...EARLIER_SESSION_DASH] : runDash(s.colorIndex ?? i);
    const look = { order: s.faded ? 1 : 0 };
    out.push({
      label: s.run,
      data: s.raw,
      borderColor: tint((smoothingOn ? 0.28 : 1) * fade),
      borderWidth: smoothingOn ? 1 : 1.5,
      ...(dash.length > 0 && !smoothingOn ? { borderDash: dash } : {}),
      pointRadius: 0,
      pointHitRadius: 0,
      spanGaps: false,
      ...look,
    });
    if (smoothingOn) {
      out.push({
        label: `${s.run} (smoothed)`,
        data: s.smoothed,
        borderColor: tint(fade),
        borderWidth: 1.75,
        ...(dash.length > 0 ? { borderDash: dash } : {}),
        pointRadius: 0,
        pointHitRadius: 0,
        spanGaps: false,
        ...look,
      });
    }
  });
  return out;
}

/** The x scale for an axis mode: linear, labelled as steps, durations or clock times. */
export function xScaleOptions(xAxis: XAxisMode, theme: ChartTheme): ScaleOptions {
  return {
    type: 'linear',
    grid: { color: theme.grid },
    border: { color: theme.grid },
    title: { display: false, text: AXIS_TITLES[xAxis] },
    ticks: {
      color: theme.muted,
      maxTicksLimit: 7,
      minRotation: 0,
      maxRotation: 0,
      sampleSize: 4,
      includeBounds: false,
      font: { size: 10 },
      callback(v) {
        return formatX(xAxis, Number(v), this.max - this.min);
      },
    },
  };
}

/** Room above the plot so the top tick label (drawn centred on the top edge) is never cut by the canvas. */
export const TOP_PADDING = 8;
/** Room right of the plot for the last x label, drawn centred on the right edge ("1m 00s" on a time axis). */
export const RIGHT_PADDING = 18;

/**
 * The y tick labels: log y labels only the powers of ten (or its one tick), linear y every tick. A label equal
 * to the previous tick's is left blank: a narrow range never shows "1.5 / 1.5" as if the metric moved.
 */
export function yTickLabel(
  logY: boolean,
): (v: number | string, i: number, ticks: { value: number }[]) => string {
  const label = (n: number, single: boolean): string => {
    if (!logY || single) return formatNumber(n);
    const e = Math.log10(n);
    return Math.abs(e - Math.round(e)) < 1e-9 ? formatNumber(n) : '';
  };
  return (v, i, ticks) => {
    const single = ticks.length === 1;
    const text = label(Number(v), single);
    const prev = i > 0 ? ticks[i - 1] : undefined;
    return text !== '' && prev !== undefined && label(prev.value, single) === text ? '' : text;
  };
}

/** The y scale: linear or logarithmic, its suggested range covering the band's finite edges. */
export function yScaleOptions(logY: boolean, band: BandRange | null, theme: ChartTheme): ScaleOptions {
  return {
    type: logY ? 'logarithmic' : 'linear',
    grid: { color: theme.grid },
    border: { color: theme.grid },
    ticks: {
      color: theme.muted,
      // Every label is measured to size the axis: no sampleSize, and no maxTicksLimit on a log axis (chart.js
      // measures only every length/maxTicksLimit-th label; log ticks are mostly blank, so the skipped ones
      // included "100" and the axis came out too narrow, cutting it to its last digits).
      ...(logY ? {} : { maxTicksLimit: 6 }),
      // Few ticks stacked vertically never overlap: skip chart.js's label auto-skipping pass.
      autoSkip: false,
      // Hard bounds (outliers ignored) are not round numbers: no "103.2" tick at the top, only the step grid.
      includeBounds: false,
      font: { size: 10 },
      callback: yTickLabel(logY) as never,
    },
    ...yBounds(band, logY, fitY([], logY, false)),
  };
}

/** The y scale options that follow the data: assigned onto the live scale's options on every draw. */
export interface YBounds {
  suggestedMin: number | undefined;
  suggestedMax: number | undefined;
  min: number | undefined;
  max: number | undefined;
  afterBuildTicks: ((scale: Scale) => void) | undefined;
}

/**
 * The y-range options for the data drawn: the band's finite edges and room around a flat series as
 * suggestions, hard bounds when outliers are ignored, and a flat series' single tick at its value (unless a
 * band widens the range: then the usual ticks, which the label rule keeps distinct).
 */
export function yBounds(band: BandRange | null, logY: boolean, fit: YFit): YBounds {
  const b = bandRange(band, logY);
  const lower = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const upper = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  const flat = fit.flat;
  const bandWidens = b.suggestedMin !== undefined || b.suggestedMax !== undefined;
  return {
    suggestedMin: lower(b.suggestedMin, fit.suggestedMin),
    suggestedMax: upper(b.suggestedMax, fit.suggestedMax),
    min: fit.min,
    max: fit.max,
    afterBuildTicks:
      flat === null || bandWidens
        ? undefined
        : (scale) => {
            scale.ticks = [{ value: flat }];
          },
  };
}

/** The chart's options: static (no animation, no events, no responsive sizing: the panel sizes the canvas). */
export function chartOptions(spec: ChartSpec, theme: ChartTheme): ChartOptions<'line'> {
  return {
    parsing: false,
    normalized: true,
    animation: false,
    responsive: false,
    events: [],
    layout: { padding: { top: TOP_PADDING, right: RIGHT_PADDING } },
    plugins: {
      legend: { display: false },
      tooltip: { enabled: false },
      decimation: { enabled: false },
    },
    scales: {
      x: xScaleOptions(spec.view.xAxis, theme),
      y: {
        ...yScaleOptions(spec.view.logY, spec.band, theme),
        ...yBounds(
          spec.band,
          spec.view.logY,
          fitY(spec.series, spec.view.logY, spec.view.ignoreOutliers ?? false),
        ),
      },
    },
  };
}

/**
 * What the overlay draws over the lines for these series: lone points as dots, marks where points are clipped,
 * non-finite values' positions on the x-axis and, on a plot with nothing to draw, the reason in words.
 */
export function overlayPoints(
  series: readonly SeriesLines[],
  fit: YFit,
  /** The y-axis kind for the blank-plot message; omitted (the live dashboard): no message. */
  logY?: boolean,
): Pick<OverlayState, 'dots' | 'clipped' | 'nonFinite' | 'message'> {
  const dots: OverlayState['dots'] = [];
  const clipped: OverlayState['clipped'] = [];
  const nonFinite: NonNullable<OverlayState['nonFinite']> = [];
  series.forEach((s, i) => {
    const colour = runColor(s.colorIndex ?? i);
    for (const p of isolatedPoints(s.raw)) dots.push({ x: p.x, y: p.y, colour });
    if (fit.min !== undefined && fit.max !== undefined)
      for (const c of clippedPoints(s.raw, fit.min, fit.max)) clipped.push({ ...c, colour });
    for (const m of s.facts?.marks ?? []) nonFinite.push({ ...m, colour });
  });
  const message = logY === undefined ? null : emptyMessage(series, logY);
  return { dots, clipped, nonFinite, message };
}

/**
 * The whole configuration. The overlay (band, target, markers, crosshair) draws from `overlay`: by default a
 * fixed one from the spec; the live panel passes its own state object and mutates it between redraws.
 */
export function chartConfiguration(
  spec: ChartSpec,
  theme: ChartTheme,
  overlay: OverlayState = {
    theme,
    band: spec.band,
    markers: [...(spec.markers ?? [])],
    hoverX: null,
    ...overlayPoints(
      spec.series,
      fitY(spec.series, spec.view.logY, spec.view.ignoreOutliers ?? false),
      spec.view.logY,
    ),
  },
): ChartConfiguration<'line', Pt[]> {
  return {
    type: 'line',
    data: { datasets: lineDatasets(spec.series, spec.view.smoothing) },
    options: chartOptions(spec, theme),
    plugins: [overlayPlugin(overlay)],
  };
}
