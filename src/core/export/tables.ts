// A run's series as tables: long CSV (every point as read), wide CSV (one row per step), JSON history.

import type { ScalarSeries } from '../series/scalar-series';
import { csvField, LONG_CSV_HEADER, longCsvLine, stepText } from '../../shared/csv-text';
import { exactNumberText } from '../../shared/number-text';

/** Per tag, the series of each file that has it, in file-name order (as `inspect` concatenates them). */
export type RunSeries = ReadonlyMap<string, readonly ScalarSeries[]>;

/** `run,tag,step,wall_time,value`: every point exactly as read, tags sorted, files in order. */
export function* longCsv(run: string, series: RunSeries): Generator<string> {
  yield LONG_CSV_HEADER;
  const runField = csvField(run);
  for (const tag of [...series.keys()].sort()) {
    const tagField = csvField(tag);
    for (const s of series.get(tag)!) {
      const f32 = !s.isDouble;
      let chunk = '';
      for (let i = 0; i < s.length; i++) {
        chunk += longCsvLine(runField, tagField, s.step(i), s.wallTime(i), s.value(i), f32);
        if (chunk.length > 1 << 16) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    }
  }
}

/** One row per step across the run's tags: for each tag its value at that step (the last one read at
 * that step when a file repeats it), empty where the tag has none. */
export interface WideTable {
  tags: string[];
  steps: Float64Array;
  /** Column per tag: value per step index, `undefined` where absent. */
  columns: Map<string, { values: (number | undefined)[]; f32: boolean }>;
}

export function wideTable(series: RunSeries): WideTable {
  const tags = [...series.keys()].sort();
  const stepSet = new Set<number>();
  for (const list of series.values())
    for (const s of list) for (let i = 0; i < s.length; i++) stepSet.add(s.step(i));
  const steps = Float64Array.from(stepSet).sort();
  const index = new Map<number, number>();
  steps.forEach((st, i) => index.set(st, i));
  const columns = new Map<string, { values: (number | undefined)[]; f32: boolean }>();
  for (const tag of tags) {
    const values: (number | undefined)[] = new Array(steps.length);
    let f32 = true;
    for (const s of series.get(tag)!) {
      if (s.isDouble) f32 = false;
      for (let i = 0; i < s.length; i++) values[index.get(s.step(i))!] = s.value(i);
    }
    columns.set(tag, { values, f32 });
  }
  return { tags, steps, columns };
}

/** `step,TAG1,TAG2,…` (header quoted where a tag needs it). */
export function* wideCsv(table: WideTable): Generator<string> {
  yield ['step', ...table.tags.map(csvField)].join(',') + '\n';
  let chunk = '';
  for (let r = 0; r < table.steps.length; r++) {
    let line = stepText(table.steps[r]!);
    for (const tag of table.tags) {
      const c = table.columns.get(tag)!;
      const v = c.values[r];
      line += ',' + (v === undefined ? '' : exactNumberText(v, c.f32));
    }
    chunk += line + '\n';
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** `[{ "step": …, "TAG": value, … }, …]`, like seed 003's training_metrics.json; JSON has no NaN or
 * Infinity, so those are `null` (the CSV keeps them). */
export function* jsonHistory(table: WideTable): Generator<string> {
  yield '[';
  for (let r = 0; r < table.steps.length; r++) {
    const row: Record<string, number | null> = { step: table.steps[r]! };
    for (const tag of table.tags) {
      const c = table.columns.get(tag)!;
      const v = c.values[r];
      if (v === undefined) continue;
      row[tag] = Number.isFinite(v) ? Number(exactNumberText(v, c.f32)) : null;
    }
    yield (r === 0 ? '\n' : ',\n') + JSON.stringify(row);
  }
  yield '\n]\n';
}
