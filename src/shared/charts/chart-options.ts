// The one chart definition: view settings, series, band, markers and a theme → a chart.js line configuration (no DOM).

import type { ChartConfiguration, ChartDataset, ChartOptions, Scale } from 'chart.js';
import { formatFull, formatNumber } from '../format';
import { AXIS_TITLES, formatStep, formatX, stepTickDigits, type XAxisMode } from './axis';
import type { BandRange } from './band';
import { EARLIER_SESSION_DASH, lineLook, withAlpha, type ChartTheme } from './chart-theme';
import type { ChartSpec, SeriesLines } from './chart-spec';
import { emptyMessage } from './figure-notes';
import { overlayPlugin, type OverlayState } from './overlay-plugin';
import type { Pt } from './series-model';
import { isolatedPoints } from './isolated-points';
import { clippedPoints, fitY, type YFit } from './y-range';

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
    const { colour, dash: own } = lineLook(s, i);
    // Faded (an earlier session): lighter, finely dashed, drawn first (chart.js draws higher `order` sooner).
    const fade = s.faded ? 0.45 : 1;
    const tint = (alpha: number): string => (alpha === 1 ? colour : withAlpha(colour, alpha));
    const dash = s.faded ? [...EARLIER_SESSION_DASH] : own;
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

/**
 * Round tick values inside [min, max] at the spacing chart.js chose. With `bounds: 'data'` chart.js counts its
 * ticks from the data's first x (25, 1025, 2025…) and adds one at the last: these are the multiples of its
 * spacing instead (1000, 2000…), the ends left unlabelled.
 */
export function roundTicksWithin(
  ticks: readonly { value: number }[],
  min: number,
  max: number,
): { value: number }[] {
  if (ticks.length < 3) return [...ticks];
  const spacing = ticks[1]!.value - ticks[0]!.value;
  if (!(spacing > 0) || !Number.isFinite(min) || !Number.isFinite(max)) return [...ticks];
  const out: { value: number }[] = [];
  const slack = spacing * 1e-9;
  for (let k = Math.ceil((min - slack) / spacing); k * spacing <= max + slack; k++)
    out.push({ value: Number((k * spacing).toPrecision(12)) });
  return out;
}

/** The x scale for an axis mode: linear, labelled as steps, durations or clock times, ending where the data
 * ends (not at the next round tick: data ending at 601,600 steps is not drawn on an axis to 800k). */
export function xScaleOptions(xAxis: XAxisMode, theme: ChartTheme): ScaleOptions {
  return {
    type: 'linear',
    bounds: 'data',
    afterBuildTicks(scale: Scale) {
      scale.ticks = roundTicksWithin(scale.ticks, scale.min, scale.max);
    },
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
      callback(v, _i, ticks) {
        if (xAxis === 'step') return formatStep(Number(v), stepTickDigits(ticks.map((t) => t.value)));
        return formatX(xAxis, Number(v), this.max - this.min);
      },
    },
  };
}

/** Room above the plot so the top tick label (drawn centred on the top edge) is never cut by the canvas. */
export const TOP_PADDING = 8;
/** Room right of the plot for the last x label, drawn centred on the right edge ("1m 00s" on a time axis). */
export const RIGHT_PADDING = 18;

/** Tick labels have at least this many significant digits, and more only where ticks would read alike. */
const TICK_DIGITS = 4;
const MAX_TICK_DIGITS = 15;

/** The fewest significant digits (from TICK_DIGITS) at which no two neighbouring tick values read the same. */
export function tickDigits(values: readonly number[]): number {
  for (let digits = TICK_DIGITS; digits < MAX_TICK_DIGITS; digits++) {
    let distinct = true;
    for (let i = 1; i < values.length && distinct; i++)
      distinct = formatNumber(values[i]!, digits) !== formatNumber(values[i - 1]!, digits);
    if (distinct) return digits;
  }
  return MAX_TICK_DIGITS;
}

/**
 * The y tick labels: a single tick (a flat series, one point) shows its value in full; log y labels only the
 * powers of ten; linear y every tick, with as many digits as it takes for neighbouring labels to differ (a
 * narrow range reads 722.5180 / 722.5182, never "722.5" twice). A label still equal to the previous tick's
 * is left blank.
 */
export function yTickLabel(
  logY: boolean,
): (v: number | string, i: number, ticks: { value: number }[]) => string {
  const label = (n: number, digits: number): string => {
    if (!logY) return formatNumber(n, digits);
    const e = Math.log10(n);
    return Math.abs(e - Math.round(e)) < 1e-9 ? formatNumber(n) : '';
  };
  return (v, i, ticks) => {
    if (ticks.length === 1) return formatFull(Number(v));
    const digits = logY ? TICK_DIGITS : tickDigits(ticks.map((t) => t.value));
    const text = label(Number(v), digits);
    const prev = i > 0 ? ticks[i - 1] : undefined;
    return text !== '' && prev !== undefined && label(prev.value, digits) === text ? '' : text;
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
    const { colour } = lineLook(s, i);
    for (const p of isolatedPoints(s.raw)) dots.push({ x: p.x, y: p.y, colour });
    if (fit.min !== undefined && fit.max !== undefined)
      for (const c of clippedPoints(s.raw, fit.min, fit.max)) clipped.push({ ...c, colour });
    for (const m of s.facts?.marks ?? []) nonFinite.push({ ...m, colour });
  });
  const message = logY === undefined ? null : emptyMessage(series, logY);
  return { dots, clipped, nonFinite, message };
}

/**
 * The whole configuration. The overlay (band, target, markers) draws from `overlay`: by default a
 * fixed one from the spec; the live panel passes its own state object and mutates it between redraws.
 */
export function chartConfiguration(
  spec: ChartSpec,
  theme: ChartTheme,
  overlay: OverlayState = {
    theme,
    band: spec.band,
    markers: [...(spec.markers ?? [])],
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
