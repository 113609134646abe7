// A chart's "Download data": the raw points it holds (every run, or every tag × run of a composed chart; the visible
// x-window when zoomed) as CSV or JSON.

import { csvCell, LONG_CSV_HEADER, longCsvLine } from '../csv-text';
import { FIGURE_NAME_SIZE, safeFileName } from '../file-names';
import { exactNumberText, isFloat32Column } from '../number-text';
import { xOf, type XAxisMode } from './axis';
import { viewSession } from '../session-text';

/** One run's columns as a chart holds them (RunSeries fits). */
export interface ChartColumns {
  run: string;
  /** The line's tag where it is not the chart's (a composed chart's line). */
  tag?: string;
  steps: readonly number[];
  walls: readonly number[];
  values: readonly number[];
  /** Wall time (s) of the run's first point: the zero of the relative axis. */
  origin: number;
  /** The live view's restart marks: each point's session follows from them (shared/session-text viewSession). */
  restarts?: readonly { step: number }[];
  /** Set for an earlier session's own points (drawn faded): every point is that session's. */
  session?: number;
}

/** The visible x-range in the chart's axis units; null for everything the chart holds. */
export interface VisibleRange {
  xAxis: XAxisMode;
  min: number;
  max: number;
}

/** One run's points inside the range, with the precision its values were read at. */
export interface TableRun {
  run: string;
  tag: string;
  /** Per point: the session that wrote it (1-based). */
  sessions: number[];
  steps: number[];
  walls: number[];
  values: number[];
  isFloat32: boolean;
}

export interface ChartTable {
  /** The chart's tag (a composed chart's name): the file's name. */
  tag: string;
  runs: TableRun[];
}

/** The points of each line inside `range` (inclusive), raw values (never smoothed), lines in chart order. */
export function chartTable(
  tag: string,
  series: Iterable<ChartColumns>,
  range: VisibleRange | null,
): ChartTable {
  const runs: TableRun[] = [];
  for (const s of series) {
    const out: TableRun = {
      run: s.run,
      tag: s.tag ?? tag,
      sessions: [],
      steps: [],
      walls: [],
      values: [],
      isFloat32: isFloat32Column(s.values),
    };
    for (let i = 0; i < s.steps.length; i++) {
      const step = s.steps[i]!;
      const wall = s.walls[i]!;
      if (range) {
        const x = xOf(range.xAxis, step, wall, s.origin);
        if (!(x >= range.min && x <= range.max)) continue;
      }
      out.sessions.push(s.session ?? viewSession(s.restarts ?? [], step));
      out.steps.push(step);
      out.walls.push(wall);
      out.values.push(s.values[i]!);
    }
    runs.push(out);
  }
  return { tag, runs };
}

/** `run,tag,step,wall_time,value,session` lines, numbers exactly as `rlwatch export` writes them. */
export function chartCsv(table: ChartTable): string {
  const parts = [LONG_CSV_HEADER];
  for (const r of table.runs) {
    const runField = csvCell(r.run);
    const tagField = csvCell(r.tag);
    for (let i = 0; i < r.steps.length; i++)
      parts.push(
        longCsvLine(runField, tagField, r.steps[i]!, r.walls[i]!, r.values[i]!, r.isFloat32, r.sessions[i]!),
      );
  }
  return parts.join('');
}

/** A JSON number where JSON has one; JSON has no NaN or Infinity, so those are the strings "NaN", "Infinity", "-Infinity". */
function jsonValue(v: number, isFloat32: boolean): number | string {
  const text = exactNumberText(v, isFloat32);
  return Number.isFinite(v) ? Number(text) : text;
}

/** `[{"run","tag","step","wall_time","value"}, …]`: the CSV's rows as objects (wall_time null where absent). */
export function chartJson(table: ChartTable): string {
  const rows: string[] = [];
  for (const r of table.runs) {
    for (let i = 0; i < r.steps.length; i++) {
      const wall = r.walls[i]!;
      rows.push(
        JSON.stringify({
          run: r.run,
          tag: r.tag,
          step: r.steps[i]!,
          wall_time: Number.isFinite(wall) ? wall : null,
          value: jsonValue(r.values[i]!, r.isFloat32),
          session: r.sessions[i]!,
        }),
      );
    }
  }
  return rows.length === 0 ? '[]\n' : `[\n${rows.join(',\n')}\n]\n`;
}

/** The download's file name: the tag as the export names its figure (`safeFileName`), and the format's extension. */
export function dataFileName(tag: string, format: 'csv' | 'json'): string {
  return `${safeFileName(tag, FIGURE_NAME_SIZE)}.${format}`;
}
