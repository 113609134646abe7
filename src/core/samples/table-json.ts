// W&B table files (`media/table/*.table.json`: {columns, data}) turned into samples of a store.

import { isPlainObject } from '../readers/rows';
import { parseJsonLenient } from '../readers/values';
import { SAMPLE_SOURCE_CHARS, type SampleStore } from './sample-store';

/** Bytes of one table file read at most: no more than the store keeps of a whole reader (SAMPLE_SOURCE_CHARS; a
 * character is at least a byte), so a file whose rows could not all be kept is not read into memory and parsed whole;
 * a larger one is reported and its rows counted as dropped. */
export const TABLE_FILE_BYTES = SAMPLE_SOURCE_CHARS;

export type TableParse = { ok: true; rows: number } | { ok: false; message: string };

/**
 * Adds the rows of a table file's text to `store` as samples of `source` at `step`: `columns` names
 * the cells of each `data` row (a missing name is `column N`, a short row is null-padded).
 */
export function addTableJson(store: SampleStore, source: string, step: number, text: string): TableParse {
  const parsed = parseJsonLenient(text);
  if (!parsed.ok) return { ok: false, message: `table JSON: ${parsed.message}` };
  const doc = parsed.value;
  if (!isPlainObject(doc) || !Array.isArray(doc.data))
    return { ok: false, message: 'table JSON: no "data" array' };
  const names = Array.isArray(doc.columns) ? doc.columns.map((c, i) => columnName(c, i)) : [];
  let rows = 0;
  for (const row of doc.data) {
    if (!Array.isArray(row)) continue;
    const values: [string, unknown][] = row.map((v, i) => [names[i] ?? `column ${i + 1}`, v]);
    store.add(source, 'wandb', step, values);
    rows++;
  }
  return { ok: true, rows };
}

function columnName(c: unknown, i: number): string {
  if (typeof c === 'string' && c !== '') return c;
  if (typeof c === 'number') return String(c);
  return `column ${i + 1}`;
}
