// One reader's sample tables, bounded: rows per (source, step) in logged order; past a character budget the oldest steps make room (counted as dropped); per-step means charted (sample-means.ts).

import {
  SAMPLE_CELL_CHARS,
  type SampleCell,
  type SampleColumn,
  type SampleOrigin,
  type SampleRow,
  type SampleSource,
  type SampleSourceInfo,
  type SampleTable,
} from '../../shared/samples';
import type { SeriesSet } from '../series/series-set';
import { SampleMeans } from './sample-means';

/** Characters (and 8 per number) one reader keeps at most; past it the source's oldest steps are let go (counted as dropped). */
export const SAMPLE_SOURCE_CHARS = 64 * 1024 * 1024;

export interface SampleLimits {
  sourceChars: number;
  cellChars: number;
}

const DEFAULT_SAMPLE_LIMITS: SampleLimits = {
  sourceChars: SAMPLE_SOURCE_CHARS,
  cellChars: SAMPLE_CELL_CHARS,
};

/** A step's growing table: columns by name, kinds widened to text by the first non-number. */
class StepTable implements SampleTable {
  readonly columns: SampleColumn[] = [];
  readonly rows: SampleRow[] = [];
  /** Characters of the rows kept (as the budget counts them). */
  chars = 0;
  private readonly index = new Map<string, number>();

  columnOf(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.columns.length;
      this.index.set(name, i);
      this.columns.push({ name, kind: 'number' });
    }
    return i;
  }
}

interface SourceState {
  origin: SampleOrigin;
  steps: Map<number, StepTable>;
  rows: number;
  dropped: number;
}

/** A value as a cell: numbers and strings as they are, booleans and structures as JSON text, nothing as null. */
function toCell(v: unknown): SampleCell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  try {
    return JSON.stringify(v) ?? null;
  } catch {
    return null;
  }
}

/** `s` cut to `max` UTF-16 units without splitting a surrogate pair. */
function cut(s: string, max: number): string {
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}

export class SampleStore implements SampleSource {
  chars = 0;
  /** Bumped by every change: a cache of something derived compares it. */
  version = 0;
  private readonly bySource = new Map<string, SourceState>();
  private kept = 0;
  private lost = 0;
  private readonly means: SampleMeans | null;

  /** `charts`: the series set (of the reader, replaced on a restart) that takes each source's per-step means
   * (SampleMeans); without it nothing is charted. */
  constructor(
    readonly limits: SampleLimits = DEFAULT_SAMPLE_LIMITS,
    charts: (() => SeriesSet) | null = null,
  ) {
    this.means = charts === null ? null : new SampleMeans(charts);
  }

  get count(): number {
    return this.kept;
  }

  get dropped(): number {
    return this.lost;
  }

  /**
   * Keeps one sample (named values) of `source` at `step`. Past the budget the source's oldest other steps are let go,
   * then other sources' oldest (a live run's newest samples are the ones looked at), their rows counted as dropped; a sample that still does not
   * fit is dropped and counted (false). Its numbers count in the step's charted means either way (`at`: the wall
   * time it was logged at, for the means, where its values carry none).
   */
  add(
    source: string,
    origin: SampleOrigin,
    step: number,
    values: Iterable<readonly [string, unknown]>,
    at: number = Number.NaN,
  ): boolean {
    const state = this.state(source, origin);
    const cells: [string, SampleCell][] = [];
    const raw: [string, unknown][] | null = this.means === null ? null : [];
    let size = 0;
    let truncated = false;
    for (const [name, v] of values) {
      raw?.push([name, v]);
      let cell = toCell(v);
      if (typeof cell === 'string' && cell.length > this.limits.cellChars) {
        cell = cut(cell, this.limits.cellChars);
        truncated = true;
      }
      size += typeof cell === 'string' ? cell.length : 8;
      cells.push([name, cell]);
    }
    if (raw !== null) this.means!.row(source, step, raw, at);
    // Room: this source's oldest other steps first, then the other sources' oldest steps (the budget is the reader's,
    // so one source filling it must not keep every other source's newest samples out).
    const fits = (): boolean => this.chars + size <= this.limits.sourceChars;
    for (const holder of [state, ...[...this.bySource.values()].filter((x) => x !== state)]) {
      for (const [old, t] of holder.steps) {
        if (fits()) break;
        if (holder === state && old === step) continue;
        holder.steps.delete(old);
        this.chars -= t.chars;
        holder.rows -= t.rows.length;
        holder.dropped += t.rows.length;
        this.kept -= t.rows.length;
        this.lost += t.rows.length;
      }
      if (fits()) break;
    }
    if (this.chars + size > this.limits.sourceChars) {
      state.dropped++;
      this.lost++;
      this.version++;
      return false;
    }
    this.chars += size;
    let table = state.steps.get(step);
    if (!table) state.steps.set(step, (table = new StepTable()));
    const row: SampleCell[] = [];
    for (const [name, cell] of cells) {
      const i = table.columnOf(name);
      while (row.length < i) row.push(null);
      row[i] = cell;
      if (cell !== null && typeof cell !== 'number') table.columns[i]!.kind = 'text';
    }
    table.rows.push({ cells: row, truncated });
    table.chars += size;
    state.rows++;
    this.kept++;
    this.version++;
    return true;
  }

  /** Charts the open step of every source (the writer is done, a whole table was added, the file went quiet). */
  closeSteps(): void {
    this.means?.closeAll();
  }

  /** Whether a step waits to be charted (closeSteps). */
  get stepsOpen(): boolean {
    return this.means?.pending ?? false;
  }

  /** Counts `n` samples of `source` that could not be kept (a table file too large or unreadable). */
  drop(source: string, origin: SampleOrigin, n: number): void {
    this.state(source, origin).dropped += n;
    this.lost += n;
    this.version++;
  }

  sources(): SampleSourceInfo[] {
    const out: SampleSourceInfo[] = [];
    for (const [source, s] of this.bySource) {
      const steps = [...s.steps]
        .map(([step, t]) => ({ step, rows: t.rows.length }))
        .sort((a, b) => a.step - b.step);
      out.push({ source, origin: s.origin, rows: s.rows, dropped: s.dropped, steps });
    }
    return out.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  table(source: string, step: number): SampleTable | null {
    return this.bySource.get(source)?.steps.get(step) ?? null;
  }

  private state(source: string, origin: SampleOrigin): SourceState {
    let s = this.bySource.get(source);
    if (!s) this.bySource.set(source, (s = { origin, steps: new Map(), rows: 0, dropped: 0 }));
    return s;
  }
}
