// CSV text: field quoting, spreadsheet-safe cells, and the long format (run, tag, step, wall_time, value, session) of `rlwatch export` and "Download data".

import { exactNumberText } from './number-text';

/** RFC 4180 quoting where a field needs it; a tag is text from a file and may hold anything. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A text cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) is written with a leading `'`;
 * text that is a number (`-0.43`, `+1e-5`) stays as it is. */
function spreadsheetSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) && !Number.isFinite(Number(text)) ? `'${text}` : text;
}

/**
 * The one CSV cell writer of every CSV rlwatch writes (export's long and wide tables, the chart's data, the runs
 * table, samples): text spreadsheet-safe, then quoted where it needs it; a number as `String` writes it; null empty.
 * A run name, tag or column label is text from a file, and may hold anything.
 */
export function csvCell(c: string | number | null): string {
  return c === null ? '' : typeof c === 'number' ? String(c) : csvField(spreadsheetSafe(c));
}

/** One CSV line of cells (`csvCell`), with its newline. */
export function csvLine(cells: readonly (string | number | null)[]): string {
  return cells.map(csvCell).join(',') + '\n';
}

/** `session`: which session wrote the point (1-based; each restart starts one), empty where unknown. */
export const LONG_CSV_HEADER = 'run,tag,step,wall_time,value,session\n';

/** A step as written: float64's shortest round-trip form. */
export const stepText = (step: number): string => exactNumberText(step, false);

/** Wall time in seconds since epoch; empty when the source has none. */
export const wallText = (wall: number): string => (Number.isFinite(wall) ? String(wall) : '');

/** One long-format line; `runField` and `tagField` already through csvCell (they repeat on every line). */
export function longCsvLine(
  runField: string,
  tagField: string,
  step: number,
  wall: number,
  value: number,
  isFloat32: boolean,
  session: number | null,
): string {
  return `${runField},${tagField},${stepText(step)},${wallText(wall)},${exactNumberText(value, isFloat32)},${session ?? ''}\n`;
}
