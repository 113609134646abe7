// The one chart definition: view settings, series, band, markers and a theme → a chart.js line configuration (no DOM).

import type { ChartConfiguration, ChartDataset, ChartOptions } from 'chart.js';
import { formatNumber } from '../../../shared/format';
import { AXIS_TITLES, formatX, type XAxisMode } from './axis';
import type { BandRange } from './band';
import { runColor, withAlpha, type ChartTheme } from './chart-theme';
import type { Marker } from './markers';
import { overlayPlugin, type OverlayState } from './overlay-plugin';
import type { Pt, ViewOptions } from './series-model';

/** One run's lines as drawn: raw points, and the smoothed ones (used when smoothing is on). */
export interface SeriesLines {
  run: string;
  raw: Pt[];
  smoothed: Pt[];
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
    const colour = runColor(i);
    out.push({
      label: s.run,
      data: s.raw,
      borderColor: smoothingOn ? withAlpha(colour, 0.28) : colour,
      borderWidth: smoothingOn ? 1 : 1.5,
      pointRadius: 0,
      pointHitRadius: 0,
      spanGaps: false,
    });
    if (smoothingOn) {
      out.push({
        label: `${s.run} (smoothed)`,
        data: s.smoothed,
        borderColor: colour,
        borderWidth: 1.75,
        pointRadius: 0,
        pointHitRadius: 0,
        spanGaps: false,
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

/** Log y labels only the powers of ten; linear y labels every tick. */
function yTickLabel(logY: boolean): (v: number | string) => string {
  if (!logY) return (v) => formatNumber(Number(v));
  return (v) => {
    const n = Number(v);
    const e = Math.log10(n);
    return Math.abs(e - Math.round(e)) < 1e-9 ? formatNumber(n) : '';
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
      maxTicksLimit: 6,
      // Few ticks stacked vertically never overlap: skip chart.js's label auto-skipping pass.
      autoSkip: false,
      sampleSize: 4,
      font: { size: 10 },
      callback: yTickLabel(logY),
    },
    ...bandRange(band, logY),
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
    plugins: {
      legend: { display: false },
      tooltip: { enabled: false },
      decimation: { enabled: false },
    },
    scales: {
      x: xScaleOptions(spec.view.xAxis, theme),
      y: yScaleOptions(spec.view.logY, spec.band, theme),
    },
  };
}

/**
 * The whole configuration. The overlay (band, target, markers, crosshair) draws from `overlay`: by default a
 * fixed one from the spec; the live panel passes its own state object and mutates it between redraws.
 */
export function chartConfiguration(
  spec: ChartSpec,
  theme: ChartTheme,
  overlay: OverlayState = { theme, band: spec.band, markers: [...(spec.markers ?? [])], hoverX: null },
): ChartConfiguration<'line', Pt[]> {
  return {
    type: 'line',
    data: { datasets: lineDatasets(spec.series, spec.view.smoothing) },
    options: chartOptions(spec, theme),
    plugins: [overlayPlugin(overlay)],
  };
}
