// A step's samples as JSONL and as spreadsheet-safe CSV text (`rlwatch export --samples`).

import { csvLine } from './csv-text';
import type { SampleTable } from './samples';

/** The CSV header: `step`, `sample_index` (the sample's position in its step), then the columns (a `step` column is the first). */
export function samplesCsvHeader(columns: readonly string[]): string {
  return csvLine(['step', 'sample_index', ...columns.filter((c) => c !== 'step')]);
}

/** One line per sample of `table` at `step`, its cells under `columns` (a column it lacks: empty). */
export function* samplesCsvLines(
  table: SampleTable,
  step: number,
  columns: readonly string[],
): Generator<string> {
  const at = columns
    .filter((c) => c !== 'step')
    .map((name) => table.columns.findIndex((c) => c.name === name));
  for (let i = 0; i < table.rows.length; i++) {
    const cells = table.rows[i]!.cells;
    yield csvLine([step, i, ...at.map((j) => (j < 0 ? null : (cells[j] ?? null)))]);
  }
}

/** One JSON object per sample: `step`, `sample_index`, its columns' cells (a `step` column is the first), and `truncated: true` where a cell was cut. */
export function* samplesJsonlLines(table: SampleTable, step: number): Generator<string> {
  for (let i = 0; i < table.rows.length; i++) {
    const row = table.rows[i]!;
    const obj: Record<string, unknown> = { step, sample_index: i };
    table.columns.forEach((c, j) => {
      if (c.name !== 'step' && c.name !== 'sample_index') obj[c.name] = row.cells[j] ?? null;
    });
    if (row.truncated) obj.truncated = true;
    yield JSON.stringify(obj) + '\n';
  }
}
