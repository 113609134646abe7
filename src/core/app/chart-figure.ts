// export.figure: one dashboard chart (the app's held series, band, alert and restart markers) or composed chart (a line
// per tag × run, coloured by run, dashed by tag) as a standalone PNG or SVG.

import { roleText, type RunScope } from '../../shared/catalog';
import { drawnXAxis, toQueryRange } from '../../shared/charts/axis';
import { resolveBand, type BandInfo } from '../../shared/charts/band';
import type { SeriesLines } from '../../shared/charts/chart-spec';
import type { Figure } from '../../shared/charts/figure';
import { runStyleIndexes } from '../../shared/charts/chart-theme';
import { composedLines, lineLooks, missingNote, type ChartLine } from '../../shared/charts/composed';
import { seriesFacts } from '../../shared/charts/figure-notes';
import { alertsFor, buildMarkers } from '../../shared/charts/markers';
import { RunSeries } from '../../shared/charts/series-model';
import type { RequestArgs } from '../../shared/contract';
import type { AlertInfo, ExportedFigure, SeriesWindow } from '../../shared/domain';
import { formatNumber } from '../../shared/format';
import { ApiError } from '../../shared/result';
import { FIGURE_NAME_SIZE, safeFileName } from '../../shared/file-names';
import { FigureSizeError, renderFigure } from '../export/figure-render';
import type { WindowQuery } from '../series/live-view';

export type FigureArgs = RequestArgs['export.figure'];

/** What a chart figure is drawn from: the app's held series, its alerts, and each run's thresholds and wording. */
export interface ChartSource {
  runs(): readonly string[];
  window(run: string, tag: string, q: WindowQuery & { session?: number }): SeriesWindow | null;
  alerts(): readonly AlertInfo[];
  /** The thresholds the bands use: as the engine resolved them for the run, the user's settings over them. */
  thresholds(run: string): Record<string, number>;
  scope(run: string): RunScope;
}

/** Points asked per run: every point up to 40 000 (2 per pixel), else per-pixel min/max over 10 000 buckets. */
const WINDOW_PIXELS = 20000;

/** The download's file name: the tag as the export names its figure (`safeFileName`: safe on any OS). */
export function figureFileName(tag: string, format: 'png' | 'svg'): string {
  return `${safeFileName(tag, FIGURE_NAME_SIZE)}.${format}`;
}

/** Earlier sessions a chart figure draws per run at most, as the dashboard does. */
const MAX_EARLIER_SESSIONS = 8;

/** One line's drawn points (a run's tag), as the dashboard's own RunSeries builds them, named by the line's key (null
 * when the run lacks the tag); with `session`, that earlier session's own points. */
function lineSeries(
  source: ChartSource,
  line: ChartLine,
  args: FigureArgs,
  fetch: { pixels: number; maxPoints: number },
  session?: number,
): RunSeries | null {
  const { view } = args;
  const { run, tag } = line;
  let q: WindowQuery = { pixels: fetch.pixels };
  if (view.xRange) {
    // A relative x-range goes back to wall seconds from the run's first point (its extent).
    const probe = source.window(run, tag, { pixels: 1 });
    if (!probe) return null;
    const origin = probe.extent?.wallMin ?? 0;
    q = { pixels: fetch.pixels, ...toQueryRange(view.xAxis, view.xRange.min, view.xRange.max, origin) };
  }
  const w = source.window(run, tag, session === undefined ? q : { ...q, session });
  if (!w) return null;
  const s = new RunSeries(line.key);
  s.setWindow(w, fetch.maxPoints, view.xRange !== undefined);
  s.rebuild(view);
  return s;
}

/** "shaded: healthy below 0.02 (target_kl 0.02)": what the band or target line on the chart means. */
export function bandMeaning(band: BandInfo | null): string | null {
  if (!band || (band.min === null && band.max === null)) return null;
  const range =
    band.min !== null && band.max !== null
      ? `shaded: healthy from ${formatNumber(band.min)} to ${formatNumber(band.max)}`
      : band.max !== null
        ? `shaded: healthy below ${formatNumber(band.max)}`
        : `shaded: healthy above ${formatNumber(band.min!)}`;
  const named = band.thresholds.map((t) => `${t.key} ${formatNumber(t.value)}`);
  return named.length > 0 ? `${range} (${named.join(', ')})` : range;
}

/**
 * The figure of one chart: title = tag and its catalog description, subtitle = runs and band meaning; the panel
 * states its transforms and the values not drawn itself (figure-notes), as every exported figure does. A composed
 * chart (`tags`) draws what the window's does: a line per tag × run named by both (shared/charts/composed), in the
 * run's stable colour and the tag's dash, no band or alerts; title = its name and tags, subtitle = runs and the tags
 * some runs do not log.
 */
export function chartFigure(source: ChartSource, args: FigureArgs): Figure {
  const known = new Set(source.runs());
  for (const run of args.runs) if (!known.has(run)) throw new ApiError('not-found', `no run ${run}`);
  const tags = args.tags ?? null;
  const lines: ChartLine[] =
    tags === null
      ? args.runs.map((run) => ({ key: run, run, tag: args.tag }))
      : composedLines(tags, args.runs);
  const maxPoints = Math.max(64, Math.ceil(args.width * args.scale));
  // A composed chart's lines share what one run's line may fetch (never fewer than one point per pixel drawn).
  const fetch = {
    pixels: tags === null ? WINDOW_PIXELS : Math.max(maxPoints, Math.floor(WINDOW_PIXELS / tags.length)),
    maxPoints,
  };
  // As the dashboard draws it: a time axis falls back to step when a line's points have no wall times.
  const untimed = lines.some((l) => (source.window(l.run, l.tag, { pixels: 1 })?.untimed ?? 0) > 0);
  const view = { ...args.view, xAxis: drawnXAxis(args.view.xAxis, untimed) };
  const drawnArgs = { ...args, view };
  const drawnLines = lines
    .map((line) => ({ line, s: lineSeries(source, line, drawnArgs, fetch) }))
    .filter((d): d is { line: ChartLine; s: RunSeries } => d.s !== null);
  const drawn = drawnLines.map((d) => d.s);
  if (drawn.length === 0)
    throw new ApiError(
      'not-found',
      `no series ${tags === null ? args.tag : tags.join(', ')} in ${args.runs.length > 1 ? 'these runs' : args.runs[0]}`,
    );
  const band = tags === null ? resolveBand(args.tag, source.thresholds(drawnLines[0]!.line.run)) : null;
  const alerts = tags === null ? alertsFor(source.alerts(), args.tag, args.runs) : [];
  // Each line in its run's stable look (its index among the folder's runs, as the window colours it), a composed
  // chart's also in its tag's dash: the window's rule (lineLooks).
  const styleIndexes = runStyleIndexes(known);
  const looks = lineLooks(lines, args.runs, tags, (run) => styleIndexes.get(run));
  const lookOf = (s: RunSeries): { colorIndex: number; dash?: number[] } => looks.get(s.run)!;
  const series: SeriesLines[] = drawn.map((s) => ({
    ...lookOf(s),
    run: s.run,
    raw: s.raw,
    smoothed: s.smoothed,
    // The held points (every point up to 40k per run), with the values they hold that are not drawn.
    facts: seriesFacts(
      s.raw.map((p) => p.x),
      s.values,
      { logY: args.view.logY, pixels: args.width * args.scale, drawn: s.raw.length },
    ),
  }));
  // A restarted run's earlier sessions, faded in its colour, as the chart draws them when they are on.
  if (args.view.earlierSessions !== false)
    for (const { line, s } of drawnLines) {
      for (const x of s.sessions.slice(0, -1).slice(-MAX_EARLIER_SESSIONS)) {
        const e = lineSeries(source, line, drawnArgs, fetch, x.index);
        if (e)
          series.push({
            run: `${s.run} · session ${x.index}`,
            raw: e.raw,
            smoothed: e.smoothed,
            colorIndex: lookOf(s).colorIndex,
            faded: true,
          });
      }
    }
  const description = band ? roleText(band.role, source.scope(drawnLines[0]!.line.run)).description : null;
  const markers = buildMarkers(drawn, alerts, view.xAxis, null);
  const runsDrawn = [...new Set(drawnLines.map((d) => d.line.run))];
  const drawnKeys = new Set(drawn.map((s) => s.run));
  const missing = new Set(lines.map((l) => l.key).filter((k) => !drawnKeys.has(k)));
  const subtitle = [
    runsDrawn.length > 1 ? `runs: ${runsDrawn.join(', ')}` : `run: ${runsDrawn[0]!}`,
    args.healthBands === false ? null : bandMeaning(band),
    tags === null ? null : missingNote(lines, missing, args.runs.length > 1) || null,
  ].filter((p): p is string => p !== null);
  const title =
    tags !== null
      ? `${args.tag} — ${tags.join(', ')}`
      : description
        ? `${args.tag} — ${description}`
        : args.tag;
  return {
    title,
    subtitle: subtitle.join(' · '),
    panels: [
      {
        spec: {
          view,
          ...(view.xAxis !== args.view.xAxis ? { askedXAxis: args.view.xAxis } : {}),
          series,
          band: band ? { min: band.min, max: band.max, target: band.target } : null,
          markers,
        },
        title: '',
        // A composed chart's lines are several metrics: the legend names them, no one y title does.
        yTitle: tags === null ? (band?.label ?? args.tag) : '',
        ...(args.view.xRange ? { xRange: args.view.xRange } : {}),
      },
    ],
  };
}

/** The chart rendered: PNG bytes at width·scale × height·scale pixels, or an SVG of width × height. */
export function exportChartFigure(source: ChartSource, args: FigureArgs): ExportedFigure {
  const figure = chartFigure(source, args);
  let bytes: Buffer;
  try {
    bytes = renderFigure(figure, {
      format: args.format,
      width: args.width,
      height: args.height,
      scale: args.format === 'png' ? args.scale : 1,
      theme: args.theme,
      style: args.style ?? 'screen',
      healthBands: args.healthBands !== false,
    });
  } catch (err) {
    if (err instanceof FigureSizeError) throw new ApiError('bad-request', err.message);
    throw err;
  }
  const png = args.format === 'png';
  return {
    fileName: figureFileName(args.tag, args.format),
    mime: png ? 'image/png' : 'image/svg+xml',
    // A plain, exactly sized Uint8Array: a Buffer would cross the wire codec as JSON (Buffer.toJSON).
    bytes: new Uint8Array(bytes),
    width: png ? Math.round(args.width * args.scale) : args.width,
    height: png ? Math.round(args.height * args.scale) : args.height,
  };
}
