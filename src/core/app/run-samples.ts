// samples.list / samples.get: a run's sample tables across its sources (completions JSONL, W&B tables, TensorBoard text), paged server-side.

import { ApiError } from '../../shared/result';
import {
  SAMPLE_HISTOGRAM_BINS,
  SAMPLE_PAGE_CHARS,
  SAMPLE_PAGE_MAX,
  type SampleCell,
  type SampleColumn,
  type SampleHistogram,
  type SamplePage,
  type SampleRow,
  type SampleSort,
  type SampleSource,
  type SampleSourceInfo,
} from '../../shared/samples';
import { byCodeUnits } from '../../shared/order';
import { sampleMatcher } from '../samples/sample-search';

/** Every source of the run's sample sources, with per-step counts (a name met twice: its steps summed). */
export function sampleSources(sources: readonly SampleSource[]): SampleSourceInfo[] {
  const byName = new Map<string, SampleSourceInfo>();
  for (const src of sources) {
    for (const s of src.sources()) {
      const seen = byName.get(s.source);
      if (!seen) {
        byName.set(s.source, { ...s, steps: s.steps.map((x) => ({ ...x })) });
        continue;
      }
      seen.rows += s.rows;
      seen.dropped += s.dropped;
      const steps = new Map(seen.steps.map((x) => [x.step, x.rows]));
      for (const x of s.steps) steps.set(x.step, (steps.get(x.step) ?? 0) + x.rows);
      seen.steps = [...steps].map(([step, rows]) => ({ step, rows })).sort((a, b) => a.step - b.step);
    }
  }
  return [...byName.values()].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}

export interface SamplePageArgs {
  offset?: number;
  limit?: number;
  sort?: SampleSort;
  /** What every matching sample holds in one of its text cells: a case-insensitive substring, or `/regex/flags`
   * (sample-search.ts). */
  search?: string;
  /** Only the samples whose `column` holds exactly this (the same prompt across steps). */
  where?: { column: string; equals: string };
}

/** The steps `source` holds in any of `sources`, ascending, each with the sources holding it (in their order). */
function stepsOf(source: string, sources: readonly SampleSource[]): [number, SampleSource[]][] {
  const steps = new Map<number, SampleSource[]>();
  for (const src of sources)
    for (const s of src.sources())
      if (s.source === source)
        for (const x of s.steps) {
          const at = steps.get(x.step);
          if (at) at.push(src);
          else steps.set(x.step, [src]);
        }
  return [...steps].sort((a, b) => a[0] - b[0]);
}

/**
 * One page of a step's samples (`step` null: of every step, in step order) across the sources, after search, `where`
 * and sort, with the matching samples' histograms.
 */
export function samplePage(
  run: string,
  source: string,
  step: number | null,
  sources: readonly SampleSource[],
  args: SamplePageArgs = {},
): SamplePage {
  const columns: SampleColumn[] = [];
  const colIndex = new Map<string, number>();
  const rows: SampleRow[] = [];
  const remaps: number[][] = [];
  const rowStep: number[] = [];
  /** Each gathered row's place in its step as logged (a search gathers only the matching rows). */
  const rowIndex: number[] = [];
  let inStep = 0;
  /** Samples of the step(s), matching or not. */
  let all = 0;
  let lastStep: number | null = null;
  const matches = args.search?.trim() ? sampleMatcher(args.search) : null;
  // Every step: only the sources holding each (a per-step dump is a source a step: 1000 steps, 1000 sources).
  const walk: [number, readonly SampleSource[]][] =
    step === null ? stepsOf(source, sources) : [[step, sources]];
  for (const [at, holders] of walk)
    for (const src of holders) {
      const t = src.table(source, at);
      if (!t) continue;
      if (at !== lastStep) {
        lastStep = at;
        inStep = 0;
      }
      const map = t.columns.map((c) => {
        let i = colIndex.get(c.name);
        if (i === undefined) {
          i = columns.length;
          colIndex.set(c.name, i);
          columns.push({ ...c });
        } else if (c.kind === 'text') columns[i]!.kind = 'text';
        return i;
      });
      const hit = matches === null ? null : matches(t);
      all += t.rows.length;
      t.rows.forEach((r, k) => {
        if (hit !== null && hit[k] === 0) {
          inStep++;
          return;
        }
        rows.push(r);
        remaps.push(map);
        rowStep.push(at);
        rowIndex.push(inStep++);
      });
    }
  if (rows.length === 0 && !sources.some((s) => s.sources().some((x) => x.source === source)))
    throw new ApiError('not-found', `run ${run} has no samples from ${source}`);
  // Each table's merged column → its own column (-1: it has none), built once per table, not per cell.
  const localsOf = new Map<number[], Int32Array>();
  for (const map of remaps) {
    if (localsOf.has(map)) continue;
    const locals = new Int32Array(columns.length).fill(-1);
    // A name twice in one table: its first column, as the page's columns show it.
    map.forEach((merged, local) => {
      if (locals[merged]! < 0) locals[merged] = local;
    });
    localsOf.set(map, locals);
  }
  const rowLocals = remaps.map((map) => localsOf.get(map)!);
  // Each row's position in its step as logged (rows are gathered a step at a time).
  const indexInStep = new Int32Array(rows.length);
  for (let i = 1; i < rows.length; i++)
    indexInStep[i] = rowStep[i] === rowStep[i - 1] ? indexInStep[i - 1]! + 1 : 0;
  const cellOf = (i: number, col: number): SampleCell => {
    const local = rowLocals[i]![col]!;
    return local < 0 ? null : (rows[i]!.cells[local] ?? null);
  };

  let order = rows.map((_, i) => i);
  if (args.where) {
    const col = colIndex.get(args.where.column);
    const equals = args.where.equals;
    order = col === undefined ? [] : order.filter((i) => cellOf(i, col) === equals);
  }

  const sortCol = args.sort ? colIndex.get(args.sort.column) : undefined;
  if (args.sort && sortCol === undefined)
    throw new ApiError(
      'bad-request',
      `no column ${args.sort.column} in ${source}${step === null ? '' : ` at step ${step}`}`,
    );
  if (args.sort && sortCol !== undefined) {
    const byLength = args.sort.by === 'length';
    const sign = args.sort.desc ? -1 : 1;
    const key = (i: number): number | string | null => {
      const c = cellOf(i, sortCol);
      if (c === null) return null;
      if (byLength) return typeof c === 'string' ? c.length : String(c).length;
      return c;
    };
    const keys = new Map(order.map((i) => [i, key(i)]));
    order.sort((a, b) => {
      const ka = keys.get(a)!;
      const kb = keys.get(b)!;
      if (ka === null || kb === null) return ka === kb ? a - b : ka === null ? 1 : -1; // nulls last
      const c = compareKeys(ka, kb);
      return c !== 0 ? sign * c : a - b;
    });
  }

  const offset = Math.max(0, args.offset ?? 0);
  const limit = Math.min(args.limit ?? SAMPLE_PAGE_MAX, SAMPLE_PAGE_MAX);
  const pageIdx = withinChars(order.slice(offset, offset + limit), (i) =>
    columns.reduce((n, _, c) => {
      const v = cellOf(i, c);
      return n + (typeof v === 'string' ? v.length : 0);
    }, 0),
  );
  return {
    run,
    source,
    step,
    columns,
    total: all,
    matched: order.length,
    offset,
    rows: pageIdx.map((i) => columns.map((_, c) => cellOf(i, c))),
    truncated: pageIdx.map((i) => rows[i]!.truncated),
    index: pageIdx.map((i) => rowIndex[i]!),
    steps: pageIdx.map((i) => rowStep[i]!),
    histograms: columns.map((col, c) =>
      histogram(
        col.name,
        col.kind === 'number' ? 'value' : 'length',
        order.map((i) => {
          const v = cellOf(i, c);
          if (v === null) return null;
          return col.kind === 'number' ? (v as number) : String(v).length;
        }),
      ),
    ),
  };
}

function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1; // numbers before text in a mixed column
  if (typeof b === 'number') return 1;
  return byCodeUnits(a, b);
}

/** Equal-width bins over the finite values (one bin when they are all equal). */
export function histogram(
  column: string,
  measure: 'value' | 'length',
  values: readonly (number | null)[],
): SampleHistogram {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return { column, measure, min: 0, max: 0, counts: [] };
  const bins = min === max ? 1 : SAMPLE_HISTOGRAM_BINS;
  const counts = new Array<number>(bins).fill(0);
  const width = (max - min) / bins;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    const b = width === 0 ? 0 : Math.min(bins - 1, Math.floor((v - min) / width));
    counts[b]!++;
  }
  return { column, measure, min, max, counts };
}

/** The leading rows of `page` whose text fits SAMPLE_PAGE_CHARS (the first row always). */
function withinChars(page: readonly number[], charsOf: (i: number) => number): number[] {
  let total = 0;
  let n = 0;
  for (const i of page) {
    total += charsOf(i);
    if (n > 0 && total > SAMPLE_PAGE_CHARS) break;
    n++;
  }
  return page.slice(0, n);
}
