// The runs table's rows as shown: sorted by a column (numbers numerically, empty cells last), seed groups kept together, each cell as text.

import type { GroupRow } from '../../../shared/compare/group-rows';
import type { RunsTable } from '../../../shared/compare/runs-table';
import type { Cell, TableColumn } from '../../../shared/compare/table-cell';
import { formatFull, formatNumber } from '../../../shared/format';
import { formatDuration } from './format';

export type Row = RunsTable['rows'][number];
export interface SortKey {
  column: string;
  dir: 'asc' | 'desc';
}

/** Numbers before booleans before text; within a kind, numerically, false < true, and text in natural order. */
function compareCells(a: Exclude<Cell, null>, b: Exclude<Cell, null>): number {
  const rank = (c: Exclude<Cell, null>): number =>
    typeof c === 'number' ? 0 : typeof c === 'boolean' ? 1 : 2;
  const r = rank(a) - rank(b);
  if (r !== 0) return r;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/** A sorted copy: empty cells last in either direction, ties in run-name order (stable across refreshes). */
export function sortRows(rows: readonly Row[], key: SortKey | null): Row[] {
  if (key === null) return [...rows];
  const sign = key.dir === 'asc' ? 1 : -1;
  return [...rows].sort((x, y) => {
    const a = x.cells[key.column] ?? null;
    const b = y.cells[key.column] ?? null;
    if (a === null || b === null) {
      if (a !== b) return a === null ? 1 : -1;
    } else {
      const c = compareCells(a, b);
      if (c !== 0) return sign * c;
    }
    return x.run < y.run ? -1 : x.run > y.run ? 1 : 0;
  });
}

/** The next sort after a click on `column`'s header: ascending first, then descending, then ascending again. */
export function nextSort(current: SortKey | null, column: string): SortKey {
  return current?.column === column && current.dir === 'asc'
    ? { column, dir: 'desc' }
    : { column, dir: 'asc' };
}

/** A cell as the table shows it: numbers through the shared formatter, the start as a UTC minute, durations in words. */
export function cellText(column: string, c: Cell): string {
  if (c === null) return '—';
  if (column === 'duration' && typeof c === 'number') return formatDuration(c);
  if (column === 'start' && typeof c === 'string')
    return c.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  if (typeof c === 'number') return formatNumber(c);
  return String(c);
}

/** Every digit of a number, for the cell's tooltip; null where the text shown is already whole. */
export function cellTitle(c: Cell): string | null {
  return typeof c === 'number' && formatFull(c) !== formatNumber(c) ? formatFull(c) : null;
}

/** A column's header: the table's label, but the duration is shown in words, not the CSV's seconds. */
export const columnLabel = (c: TableColumn): string => (c.id === 'duration' ? 'duration' : c.label);

/** The columns worth a place: those with a value in some run (the run's name always), as `inspect --table` shows. */
export function filledColumns(t: Pick<RunsTable, 'columns' | 'rows'>): TableColumn[] {
  return t.columns.filter((c) => c.id === 'run' || t.rows.some((r) => (r.cells[c.id] ?? null) !== null));
}

/** A line of the table body: a seed group's row (with how many of its runs pass the filter) or a run's. */
export type TableLine =
  | { kind: 'group'; group: GroupRow; shown: number; collapsed: boolean }
  | { kind: 'run'; row: Row; group: GroupRow | null };

/**
 * The body's lines from the rows shown (filtered and sorted): a group's row stands where its first shown run would,
 * its shown runs beneath it in sort order (none while it is collapsed); a group with no run shown is left out. Sorting
 * thus moves whole groups and orders runs within each. Groups are keyed by label in `collapsed`.
 */
export function groupedLines(
  shown: readonly Row[],
  groups: readonly GroupRow[],
  collapsed: ReadonlySet<string>,
): TableLine[] {
  const groupOf = new Map<string, GroupRow>();
  for (const g of groups) for (const r of g.runs) groupOf.set(r, g);
  const members = new Map<GroupRow, Row[]>();
  for (const r of shown) {
    const g = groupOf.get(r.run);
    if (g) members.set(g, [...(members.get(g) ?? []), r]);
  }
  const out: TableLine[] = [];
  for (const r of shown) {
    const g = groupOf.get(r.run);
    if (!g) {
      out.push({ kind: 'run', row: r, group: null });
      continue;
    }
    const rows = members.get(g);
    if (rows === undefined) continue;
    members.delete(g);
    const folded = collapsed.has(g.label);
    out.push({ kind: 'group', group: g, shown: rows.length, collapsed: folded });
    if (!folded) for (const m of rows) out.push({ kind: 'run', row: m, group: g });
  }
  return out;
}
