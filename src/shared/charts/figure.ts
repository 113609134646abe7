// A figure that stands alone (exports, reports): titled panels drawn with the one chart definition, themed without CSS.

import type { ChartConfiguration, ChartOptions, Plugin } from 'chart.js';
import { AXIS_TITLES } from './axis';
import { shortenNames } from '../names';
import { chartConfiguration, overlayPoints } from './chart-options';
import type { ChartSpec } from './chart-spec';
import { runColor, type ChartTheme } from './chart-theme';
import { bandFillPlugin, bandFills, groupDatasets, groupName, type DrawnGroup } from './group-bands';
import { panelNotes } from './figure-notes';
import { FIGURE_STYLES, type FigureStyle } from './figure-style';
import { legendEntries } from './legend';
import type { Pt } from './series-model';
import { fitY } from './y-range';

/** One chart of a figure: what it shows, its own title (the tag) and y-axis title. */
export interface FigurePanel {
  spec: ChartSpec;
  title: string;
  /** The y-axis title (the metric's description or unit); none when empty. */
  yTitle?: string;
  /** The x-axis title when the x is not the view's axis (a performance profile's score threshold τ). */
  xTitle?: string;
  /** The x window shown (a zoomed chart's visible range, in x-axis units); absent: the data's own range. */
  xRange?: { min: number; max: number };
  /** Seed groups drawn as a mean line over a filled band (and a dashed IQM with `iqm`), in their colours. */
  groups?: { drawn: readonly DrawnGroup[]; iqm: boolean };
}

/** A whole figure: a title band (title, subtitle) over panels laid out in a grid. */
export interface Figure {
  title: string;
  /** Second line of the title band: run names, what the band means, the date. */
  subtitle?: string;
  panels: readonly FigurePanel[];
  /** Panels per row; default: one row up to two panels, otherwise two columns. */
  columns?: number;
}

export type FigureThemeName = 'light' | 'dark';

/** The fixed figure themes: the dashboard's colours without reading CSS (headless has none). */
export function figureTheme(name: FigureThemeName): ChartTheme {
  const dark = name === 'dark';
  return {
    text: dark ? '#e6e9ed' : '#1b1f24',
    muted: dark ? '#98a2ad' : '#5b6470',
    grid: dark ? '#2c333b' : '#d8dde3',
    panel: dark ? '#1a1f25' : '#ffffff',
    warning: '#d97706',
    critical: dark ? '#f87171' : '#dc2626',
    band: dark ? 'rgba(34, 197, 94, 0.13)' : 'rgba(22, 163, 74, 0.10)',
    target: dark ? 'rgba(74, 222, 128, 0.85)' : 'rgba(21, 128, 61, 0.85)',
    restart: dark ? '#98a2ad' : '#5b6470',
    focus: '#2563eb',
    dark,
  };
}

/** Fonts that exist on macOS, Windows and Linux (Liberation/DejaVu come with most distributions). */
export const FIGURE_FONT =
  'system-ui, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", "DejaVu Sans", sans-serif';

/** Height of the title band in CSS pixels (title and one subtitle line, the screen style's). */
export const TITLE_BAND = 56;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where each panel goes in a `width` × `height` figure (CSS pixels), below the title band (`top` high). */
export function figureLayout(figure: Figure, width: number, height: number, top = TITLE_BAND): Rect[] {
  const n = figure.panels.length;
  if (n === 0) return [];
  const columns = Math.max(1, Math.min(n, figure.columns ?? (n <= 2 ? n : 2)));
  const rows = Math.ceil(n / columns);
  const cellW = Math.floor(width / columns);
  const cellH = Math.floor((height - top) / rows);
  return figure.panels.map((_, i) => ({
    x: (i % columns) * cellW,
    y: top + Math.floor(i / columns) * cellH,
    width: cellW,
    height: Math.max(1, cellH),
  }));
}

/** Paints the panel's background before anything else: an exported image is opaque (transparent reads badly). */
function backgroundPlugin(colour: string): Plugin<'line'> {
  return {
    id: 'rlwatchBackground',
    beforeDraw(chart) {
      const { ctx, width, height } = chart;
      ctx.save();
      ctx.globalCompositeOperation = 'destination-over';
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, width, height);
      ctx.restore();
    },
  };
}

/** CSS pixels per character of 11 px text (a conservative average: a note line never overflows); scaled with the
 * style's text size. */
const NOTE_CHAR_PX = 6.2;

/** `notes` joined with " · " into lines of at most `chars` characters (a note longer than a line is its own line). */
export function wrapNotes(notes: readonly string[], chars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const n of notes) {
    if (line === '') line = n;
    else if (line.length + 3 + n.length <= chars) line += ` · ${n}`;
    else {
      lines.push(line);
      line = n;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The overlay of a panel with seed groups: a blank-plot message only when no group has a finite mean either. */
function groupsOverlay(spec: ChartSpec, theme: ChartTheme, groups: readonly DrawnGroup[]) {
  const fit = fitY(spec.series, spec.view.logY, spec.view.ignoreOutliers ?? false);
  const points = overlayPoints(spec.series, fit, spec.view.logY);
  const drawn = groups.some((g) => g.band.mean.some((y) => Number.isFinite(y)));
  return {
    theme,
    band: spec.band,
    markers: [...(spec.markers ?? [])],
    ...points,
    message: drawn ? null : points.message,
  };
}

/**
 * One panel's chart.js configuration: the dashboard's chart (band, markers, smoothing, lone points) plus a
 * panel title, axis titles, a legend of the series (one entry per run, also with smoothing on) and an
 * opaque background. Needs chart.js's Title and Legend plugins registered.
 */
export function panelConfiguration(
  panel: FigurePanel,
  theme: ChartTheme,
  pixelRatio = 1,
  width = 800,
  style: FigureStyle = FIGURE_STYLES.screen,
): ChartConfiguration<'line', Pt[]> {
  const groups = panel.groups?.drawn ?? [];
  const config = chartConfiguration(
    panel.spec,
    theme,
    panel.groups ? groupsOverlay(panel.spec, theme, groups) : undefined,
  );
  if (panel.groups) {
    config.data.datasets.push(...groupDatasets(groups, panel.groups.iqm));
    config.plugins = [
      ...(config.plugins ?? []),
      bandFillPlugin({ fills: bandFills(groups), fontPx: style.textPx, lineScale: style.lineScale }),
    ];
  }
  if (style.lineScale !== 1)
    for (const d of config.data.datasets)
      if (typeof d.borderWidth === 'number') d.borderWidth *= style.lineScale;
  const options = config.options as ChartOptions<'line'>;
  const font = { family: FIGURE_FONT };
  options.devicePixelRatio = pixelRatio;
  options.font = font;
  options.layout = { padding: { ...style.padding } };
  const text = { ...font, size: style.textPx };
  const charPx = (NOTE_CHAR_PX * style.textPx) / 11;
  // Groups are listed by name and run count ("a (3 runs)"), in their colour, before any single run.
  const drawn = [
    ...groups
      .filter((g) => g.band.mean.some((y) => Number.isFinite(y)))
      .map((g) => ({ run: groupName(g), colour: runColor(g.colorIndex), dash: [] as number[] })),
    ...legendEntries(panel.spec.series),
  ];
  const names = shortenNames(
    drawn.map((e) => e.run),
    Math.max(style.legendChars, Math.floor(width / 2 / charPx)),
  );
  // Every transform and every value not drawn, under the panel's title (one wording for every figure).
  const notes = wrapNotes(panelNotes(panel.spec), Math.max(20, Math.floor((width - 40) / charPx)));
  options.plugins = {
    ...options.plugins,
    title: {
      display: panel.title !== '',
      text: panel.title,
      color: theme.text,
      font: { ...font, size: style.panelTitlePx, weight: 'bold' },
      padding: { top: 4, bottom: 4 },
    },
    subtitle: {
      display: notes.length > 0,
      text: notes,
      color: theme.muted,
      font: text,
      padding: { top: 0, bottom: 4 },
    },
    legend: {
      display: drawn.length > 0,
      position: 'top',
      align: 'end',
      labels: {
        color: theme.text,
        font: text,
        boxWidth: style.swatchPx,
        padding: style.legendPadding,
        boxHeight: 3,
        // As the dashboard's legend: only runs with points in this chart, each in its line's colour.
        generateLabels: () =>
          drawn.map((e, i) => ({
            text: names[i]!,
            fillStyle: e.dash.length > 0 ? theme.panel : e.colour,
            strokeStyle: e.colour,
            // A dashed run's swatch is its dash: colour is never the only cue.
            lineWidth: e.dash.length > 0 ? 2 : 0,
            lineDash: e.dash,
            hidden: false,
            fontColor: theme.text,
          })),
      },
    },
  };
  const scales = options.scales!;
  if (panel.xRange) Object.assign(scales.x!, { min: panel.xRange.min, max: panel.xRange.max });
  scales.x!.title = {
    display: true,
    text: panel.xTitle ?? AXIS_TITLES[panel.spec.view.xAxis],
    color: theme.muted,
    font: text,
  };
  scales.y!.title = {
    display: (panel.yTitle ?? '') !== '',
    text: panel.yTitle ?? '',
    color: theme.muted,
    font: text,
  };
  for (const axis of [scales.x!, scales.y!]) {
    const ticks = (axis as { ticks?: { font?: object } }).ticks;
    if (ticks) ticks.font = text;
  }
  config.plugins = [backgroundPlugin(theme.panel), ...(config.plugins ?? [])];
  return config;
}

/** The figure without its health bands (the shaded healthy range and target line): the data and groups alone. */
export const withoutHealthBands = (figure: Figure): Figure => ({
  ...figure,
  panels: figure.panels.map((p) => ({ ...p, spec: { ...p.spec, band: null } })),
});

/** The figure as a style draws it: on paper a lone panel's figure has no title line (its panel title names the tag,
 * its legend the groups; the caption, what the band means, stays), so the plot keeps the room. */
export function styledFigure(figure: Figure, style: FigureStyle): Figure {
  if (style.name === 'screen' || figure.panels.length !== 1) return figure;
  return { ...figure, title: '' };
}
