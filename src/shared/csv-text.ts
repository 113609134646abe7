// CSV text: field quoting, spreadsheet-safe cells, and the long format (run, tag, step, wall_time, value, session) of `rlwatch export` and "Download data".

import { exactNumberText } from './number-text';

/** RFC 4180 quoting where a field needs it; a tag is text from a file and may hold anything. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A text cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) is written with a leading `'`. */
export function spreadsheetSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) && !Number.isFinite(Number(text)) ? `'${text}` : text;
}

/** `session`: which session wrote the point (1-based; each restart starts one), empty where unknown. */
export const LONG_CSV_HEADER = 'run,tag,step,wall_time,value,session\n';

/** A step as written: float64's shortest round-trip form. */
export const stepText = (step: number): string => exactNumberText(step, false);

/** Wall time in seconds since epoch; empty when the source has none. */
export const wallText = (wall: number): string => (Number.isFinite(wall) ? String(wall) : '');

/** One long-format line; `runField` and `tagField` already through csvField (they repeat on every line). */
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
