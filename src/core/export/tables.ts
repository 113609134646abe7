// A run's shown series as tables: long CSV (every point of every session), wide CSV and JSON (one row per session
// and step: sessions never mix).

import type { ScalarSeries } from '../series/scalar-series';
import type { RunViews } from '../series/shown-views';
import { csvCell, csvLine, LONG_CSV_HEADER, longCsvLine, stepText } from '../../shared/csv-text';
import { exactNumberText } from '../../shared/number-text';
import { viewSession } from '../../shared/session-text';

/** Per tag, the series of each file that has it, in file-name order (as `inspect` concatenates them). */
export type RunSeries = ReadonlyMap<string, readonly ScalarSeries[]>;

/** Lines of `rows` joined in chunks of ~64 KiB. */
function* chunked(rows: Iterable<string>): Generator<string> {
  let chunk = '';
  for (const r of rows) {
    chunk += r;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** `run,tag,step,wall_time,value,session`: every point of every session exactly as read, tags sorted, sessions in
 * the order they were written (a crashed session's points a restart hid from the chart included). */
export function* longCsv(run: string, views: RunViews): Generator<string> {
  yield LONG_CSV_HEADER;
  const runField = csvCell(run);
  for (const tag of [...views.keys()].sort()) {
    const view = views.get(tag)!;
    const tagField = csvCell(tag);
    const f32 = view.float32;
    for (let k = 1; k <= view.sessionCount; k++) {
      const p = view.sessionPoints(k)!;
      yield* chunked(
        (function* () {
          for (let i = 0; i < p.steps.length; i++)
            yield longCsvLine(runField, tagField, p.steps[i]!, p.wallTimes[i]!, p.values[i]!, f32, k);
        })(),
      );
    }
  }
}

/** `run,tag,step,wall_time,value,session` for points of a live view (an incident's window): each point's session
 * from the view's restart marks. */
export function* longCsvOf(
  run: string,
  series: RunSeries,
  restartsOf: (tag: string) => readonly { step: number }[],
): Generator<string> {
  yield LONG_CSV_HEADER;
  const runField = csvCell(run);
  for (const tag of [...series.keys()].sort()) {
    const tagField = csvCell(tag);
    const restarts = restartsOf(tag);
    for (const s of series.get(tag)!) {
      const f32 = !s.isDouble;
      yield* chunked(
        (function* () {
          for (let i = 0; i < s.length; i++) {
            const step = s.step(i);
            yield longCsvLine(
              runField,
              tagField,
              step,
              s.wallTime(i),
              s.value(i),
              f32,
              viewSession(restarts, step),
            );
          }
        })(),
      );
    }
  }
}

/** One row per session and step across the run's tags: for each tag its value at that step in that session (the
 * last one read there when a file repeats a step), empty where the tag has none. */
export interface WideTable {
  tags: string[];
  /** Per row: its session (1-based) and step; rows by session, then step. */
  sessions: Uint32Array;
  steps: Float64Array;
  /** Column per tag: value per row, `undefined` where absent. */
  columns: Map<string, { values: (number | undefined)[]; f32: boolean }>;
}

export function wideTable(views: RunViews): WideTable {
  const tags = [...views.keys()].sort();
  // Steps of each session across tags (session k of every tag is the same session: one restart shows in every tag).
  const stepsBySession: Set<number>[] = [];
  for (const view of views.values())
    for (let k = 1; k <= view.sessionCount; k++) {
      const set = (stepsBySession[k - 1] ??= new Set());
      for (const st of view.sessionPoints(k)!.steps) set.add(st);
    }
  const rows: { session: number; step: number }[] = [];
  const index = stepsBySession.map(() => new Map<number, number>());
  stepsBySession.forEach((set, k) => {
    for (const st of Float64Array.from(set).sort()) {
      index[k]!.set(st, rows.length);
      rows.push({ session: k + 1, step: st });
    }
  });
  const columns = new Map<string, { values: (number | undefined)[]; f32: boolean }>();
  for (const tag of tags) {
    const view = views.get(tag)!;
    const values: (number | undefined)[] = new Array(rows.length);
    for (let k = 1; k <= view.sessionCount; k++) {
      const p = view.sessionPoints(k)!;
      const at = index[k - 1]!;
      for (let i = 0; i < p.steps.length; i++) values[at.get(p.steps[i]!)!] = p.values[i]!;
    }
    columns.set(tag, { values, f32: view.float32 });
  }
  return {
    tags,
    sessions: Uint32Array.from(rows, (r) => r.session),
    steps: Float64Array.from(rows, (r) => r.step),
    columns,
  };
}

/** `step,session,TAG1,TAG2,…` (each tag a spreadsheet-safe text cell). */
export function* wideCsv(table: WideTable): Generator<string> {
  yield csvLine(['step', 'session', ...table.tags]);
  yield* chunked(
    (function* () {
      for (let r = 0; r < table.steps.length; r++) {
        let line = `${stepText(table.steps[r]!)},${table.sessions[r]!}`;
        for (const tag of table.tags) {
          const c = table.columns.get(tag)!;
          const v = c.values[r];
          line += ',' + (v === undefined ? '' : exactNumberText(v, c.f32));
        }
        yield line + '\n';
      }
    })(),
  );
}

/** `[{ "step": …, "session": …, "TAG": value, … }, …]`, like seed 003's training_metrics.json with each row's
 * session; JSON has no NaN or Infinity, so those are `null` (the CSV keeps them). */
export function* jsonHistory(table: WideTable): Generator<string> {
  yield '[';
  for (let r = 0; r < table.steps.length; r++) {
    const row: Record<string, number | null> = { step: table.steps[r]!, session: table.sessions[r]! };
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
