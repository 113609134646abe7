// The runs table's sorting (numbers numerically, empty cells last both ways), cell text (the shared formatter) and columns shown.

import { describe, expect, test } from 'vitest';
import type { Cell } from '../../../src/shared/compare/table-cell';
import {
  cellText,
  cellTitle,
  columnLabel,
  filledColumns,
  nextSort,
  sortRows,
  groupedLines,
} from '../../../src/renderer/src/lib/table-rows';
import type { GroupRow } from '../../../src/shared/compare/group-rows';

const row = (run: string, v: Cell): { run: string; cells: Record<string, Cell> } => ({
  run,
  cells: { run, v },
});
const ROWS = [row('a', 10), row('b', null), row('c', 9), row('d', 100), row('e', 'x'), row('f', 9)];
const order = (dir: 'asc' | 'desc'): string[] => sortRows(ROWS, { column: 'v', dir }).map((r) => r.run);

describe('runs table rows', () => {
  test('numbers sort numerically, ties by run name, text after numbers, empty cells last in both directions', () => {
    expect(order('asc')).toEqual(['c', 'f', 'a', 'd', 'e', 'b']);
    expect(order('desc')).toEqual(['e', 'd', 'a', 'c', 'f', 'b']);
    expect(sortRows(ROWS, null).map((r) => r.run)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  test('text sorts in natural order without case', () => {
    const rows = [row('r1', 'run-10'), row('r2', 'Run-9'), row('r3', 'run-1')];
    expect(sortRows(rows, { column: 'v', dir: 'asc' }).map((r) => r.cells.v)).toEqual([
      'run-1',
      'Run-9',
      'run-10',
    ]);
  });

  test('a header click sorts ascending, then descending, and another column starts ascending', () => {
    expect(nextSort(null, 'v')).toEqual({ column: 'v', dir: 'asc' });
    expect(nextSort({ column: 'v', dir: 'asc' }, 'v')).toEqual({ column: 'v', dir: 'desc' });
    expect(nextSort({ column: 'v', dir: 'desc' }, 'v')).toEqual({ column: 'v', dir: 'asc' });
    expect(nextSort({ column: 'v', dir: 'desc' }, 'w')).toEqual({ column: 'w', dir: 'asc' });
  });

  test('cells as text: the shared formatter, durations in words, the start to the minute, a dash for empty', () => {
    expect(cellText('reward.best', 54713.18)).toBe('54713');
    expect(cellText('kl.last', 0.0123456)).toBe('0.01235');
    expect(cellText('step', 2e7)).toBe('2.00e+7');
    expect(cellText('duration', 4000)).toBe('1 h 7 min');
    expect(cellText('start', '2025-08-04T16:07:11.594Z')).toBe('2025-08-04 16:07 UTC');
    expect(cellText('config.x', true)).toBe('true');
    expect(cellText('config.x', '<b>')).toBe('<b>');
    expect(cellText('config.x', null)).toBe('—');
    expect(cellTitle(0.0123456)).toBe('0.0123456');
    expect(cellTitle(12)).toBe(null);
    expect(cellTitle('x')).toBe(null);
    expect(columnLabel({ id: 'duration', label: 'duration (s)', kind: 'run' })).toBe('duration');
    expect(columnLabel({ id: 'config.duration', label: 'duration', kind: 'config' })).toBe('duration');
    expect(columnLabel({ id: 'kl.last', label: 'KL (last)', kind: 'metric' })).toBe('KL (last)');
  });

  test('columns empty in every run are left out of view, the run name never', () => {
    const t = {
      columns: [
        { id: 'run', label: 'run', kind: 'run' as const },
        { id: 'kl.last', label: 'KL (last)', kind: 'metric' as const },
        { id: 'config.lr', label: 'lr', kind: 'config' as const },
      ],
      rows: [
        { run: 'a', cells: { run: 'a', 'kl.last': null, 'config.lr': null } },
        { run: 'b', cells: { run: 'b', 'kl.last': null, 'config.lr': 0 } },
      ],
      equal: [],
    };
    expect(filledColumns(t).map((c) => c.id)).toEqual(['run', 'config.lr']);
    expect(filledColumns({ ...t, rows: [] }).map((c) => c.id)).toEqual(['run']);
  });
});

describe('seed groups in the table body', () => {
  const group = (label: string, runs: string[]): GroupRow => ({
    label,
    runs,
    by: 'config',
    seeds: ['seed'],
    stats: {},
    shared: {},
  });
  const G = [group('g', ['a', 'd']), group('h', ['c', 'f'])];
  const lines = (rows: typeof ROWS, collapsed: string[] = []): string[] =>
    groupedLines(rows, G, new Set(collapsed)).map((l) =>
      l.kind === 'group' ? `[${l.group.label} ${l.shown}]` : l.group ? `  ${l.row.run}` : l.row.run,
    );

  test('a group row where its first run stands, its runs beneath in sort order: sorting moves whole groups', () => {
    expect(lines(sortRows(ROWS, { column: 'v', dir: 'asc' }))).toEqual([
      '[h 2]',
      '  c',
      '  f',
      '[g 2]',
      '  a',
      '  d',
      'e',
      'b',
    ]);
    // Descending puts text before numbers (compareCells' order reversed); empty cells stay last.
    expect(lines(sortRows(ROWS, { column: 'v', dir: 'desc' }))).toEqual([
      'e',
      '[g 2]',
      '  d',
      '  a',
      '[h 2]',
      '  c',
      '  f',
      'b',
    ]);
  });

  test('filtered runs leave their group (counted as shown), a group with none shown goes; collapsed hides its runs', () => {
    const some = ROWS.filter((r) => r.run !== 'd' && r.run !== 'c' && r.run !== 'f');
    expect(lines(some)).toEqual(['[g 1]', '  a', 'b', 'e']);
    expect(lines(ROWS, ['g'])).toEqual(['[g 2]', 'b', '[h 2]', '  c', '  f', 'e']);
  });
});
