// What a chart's export menu asks for, from what the panel holds: the figure request (drawn by the core) and the data download.

import type { RequestArgs } from '../../../shared/contract';
import type { XAxisMode } from '../../../shared/charts/axis';
import type { ChartLine } from '../../../shared/charts/composed';
import { chartCsv, chartJson, chartTable, dataFileName } from '../../../shared/charts/data-table';
import type { RunSeries, ViewOptions } from '../../../shared/charts/series-model';
import { saveBlob } from '../lib/save-file';
import type { EarlierSession } from './chart-data.svelte';
import type { FigureChoice } from './figure-download';

/** The chart as a standalone figure request: its runs and tag(s), this chart's view (the x-axis setting: the core
 * falls back to step as the chart did, and says so on the figure), its zoom and theme, and the menu's choice. */
export function figureRequest(o: {
  runs: readonly string[];
  tag: string;
  tags: readonly string[] | null;
  xAxis: XAxisMode;
  view: ViewOptions;
  earlierSessions: boolean;
  zoom: [number, number] | null;
  dark: boolean;
  choice: FigureChoice;
}): RequestArgs['export.figure'] {
  const { zoom } = o;
  return {
    runs: [...o.runs],
    tag: o.tag,
    ...(o.tags === null ? {} : { tags: [...o.tags] }),
    view: {
      xAxis: o.xAxis,
      logY: o.view.logY,
      smoothing: o.view.smoothing,
      ignoreOutliers: o.view.ignoreOutliers ?? false,
      earlierSessions: o.earlierSessions,
      ...(zoom && zoom[0] < zoom[1] ? { xRange: { min: zoom[0], max: zoom[1] } } : {}),
    },
    theme: o.dark ? 'dark' : 'light',
    ...o.choice,
  };
}

/** The points a chart holds for every line (within `range` when zoomed), raw values, saved as CSV or JSON: each
 * run's live view, then the earlier sessions it draws, each row with its session; a composed chart's rows name each
 * line's own run and tag. */
export function downloadChartData(o: {
  tag: string;
  lines: readonly ChartLine[];
  series: Iterable<RunSeries>;
  earlier: readonly EarlierSession[];
  range: { xAxis: XAxisMode; min: number; max: number } | null;
  format: 'csv' | 'json';
}): void {
  const { tag, format } = o;
  // A line's series is named by its key (a composed line's label): its rows by the run and tag it draws.
  const lineOf = new Map(o.lines.map((l) => [l.key, l]));
  const named = (key: string): { run: string; tag: string } => {
    const l = lineOf.get(key);
    return l ? { run: l.run, tag: l.tag } : { run: key, tag };
  };
  const table = chartTable(
    tag,
    [
      ...[...o.series].map((s) => ({
        steps: s.steps,
        walls: s.walls,
        values: s.values,
        origin: s.origin,
        restarts: s.restarts,
        ...named(s.run),
      })),
      ...o.earlier.map((e) => ({
        ...named(e.series.run),
        steps: e.series.steps,
        walls: e.series.walls,
        values: e.series.values,
        origin: e.series.origin,
        session: e.session,
      })),
    ],
    o.range,
  );
  const text = format === 'csv' ? chartCsv(table) : chartJson(table);
  const type = format === 'csv' ? 'text/csv' : 'application/json';
  saveBlob(new Blob([text], { type: `${type};charset=utf-8` }), dataFileName(tag, format));
}
