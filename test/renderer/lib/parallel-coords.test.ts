// Parallel coordinates' layout: numeric and categorical axes, heights, ticks, brushes from a drag, filtering, paths.

import { describe, expect, test } from 'vitest';
import type { Cell, TableColumn } from '../../../src/shared/compare/table-cell';
import {
  axisTicks,
  axisX,
  axisY,
  brushOf,
  brushSpan,
  brushText,
  buildAxis,
  insideBrush,
  linePath,
  nudgeSpan,
  passesBrushes,
  position,
  type Axis,
  type Frame,
} from '../../../src/renderer/src/lib/parallel-coords';

const col = (id: string): TableColumn => ({ id, label: id, kind: 'metric' });
const row = (run: string, cells: Record<string, Cell>): { run: string; cells: Record<string, Cell> } => ({
  run,
  cells: { run, ...cells },
});
const ROWS = [
  row('a', { reward: 10, opt: 'sgd', lr: 1e-3, flag: true }),
  row('b', { reward: 30, opt: 'adam', lr: 1e-4, flag: false }),
  row('c', { reward: 20, opt: 'adamw', lr: null, flag: true }),
  row('d', { reward: null, opt: 'adam', lr: '3e-4 (warm)', flag: null }),
];
const axis = (id: string): Axis => buildAxis(col(id), id, ROWS)!;

describe('axes', () => {
  test('all finite numbers: linear from min to max; anything else: its texts as ordered categories', () => {
    expect(axis('reward')).toEqual({
      column: 'reward',
      label: 'reward',
      kind: 'number',
      min: 10,
      max: 30,
      log: false,
    });
    expect(axis('opt')).toMatchObject({ kind: 'category', categories: ['adam', 'adamw', 'sgd'] });
    // A column mixing numbers and text is categorical: numbers first, numerically, then the texts.
    expect(axis('lr')).toMatchObject({ kind: 'category', categories: ['0.0001', '0.001', '3e-4 (warm)'] });
    expect(axis('flag')).toMatchObject({ kind: 'category', categories: ['false', 'true'] });
    expect(buildAxis(col('none'), 'none', ROWS)).toBeNull();
  });

  test('heights: numbers proportionally, categories evenly, one value at the middle, empty cells nowhere', () => {
    const r = axis('reward');
    expect([10, 20, 30, 25].map((v) => position(r, v))).toEqual([0, 0.5, 1, 0.75]);
    expect(position(r, null)).toBeNull();
    expect(position(r, 'x')).toBeNull();
    const o = axis('opt');
    expect(['adam', 'adamw', 'sgd', 'rmsprop'].map((v) => position(o, v))).toEqual([0, 0.5, 1, null]);
    const flat = buildAxis(col('reward'), 'r', [row('a', { reward: 5 }), row('b', { reward: 5 })])!;
    expect(position(flat, 5)).toBe(0.5);
    expect(axisTicks(flat)).toEqual([{ t: 0.5, text: '5' }]);
  });

  test('positive numbers over two decades get a log axis: heights, ticks and brushes in log space', () => {
    const lrs = [1e-5, 1e-4, 1e-3].map((lr, i) => row(`r${i}`, { lr }));
    const a = buildAxis(col('lr'), 'lr', lrs)!;
    expect(a).toMatchObject({ kind: 'number', log: true, min: 1e-5, max: 1e-3 });
    expect([1e-5, 1e-4, 1e-3].map((v) => position(a, v))).toEqual([0, 0.5, 1]);
    expect(position(a, 0)).toBeNull();
    expect(axisTicks(a).map((t) => t.text)).toEqual(['1.00e-5', '3.16e-5', '1.00e-4', '3.16e-4', '0.001']);
    const b = brushOf(a, 0.25, 0.75)!;
    expect(b.kind === 'number' && [b.lo, b.hi].map((v) => Number(v.toPrecision(6)))).toEqual([
      3.16228e-5, 3.16228e-4,
    ]);
    expect(brushSpan(a, b)!.map((t) => Number(t.toFixed(9)))).toEqual([0.25, 0.75]);
    expect(insideBrush(b, 1e-4)).toBe(true);
    expect(insideBrush(b, 1e-3)).toBe(false);
    // Under two decades, or touching zero or below: linear.
    expect(buildAxis(col('x'), 'x', [row('a', { x: 1 }), row('b', { x: 99 })])).toMatchObject({ log: false });
    expect(buildAxis(col('x'), 'x', [row('a', { x: 0 }), row('b', { x: 1000 })])).toMatchObject({
      log: false,
    });
  });

  test('ticks: five numbers through the shared formatter, or every category', () => {
    expect(axisTicks(axis('reward')).map((t) => t.text)).toEqual(['10', '15', '20', '25', '30']);
    expect(axisTicks(axis('opt'))).toEqual([
      { t: 0, text: 'adam' },
      { t: 0.5, text: 'adamw' },
      { t: 1, text: 'sgd' },
    ]);
  });
});

describe('brushes', () => {
  test('a drag on a numeric axis is a value range either way up; on a categorical one, the categories inside', () => {
    expect(brushOf(axis('reward'), 0.75, 0.25)).toEqual({ column: 'reward', kind: 'number', lo: 15, hi: 25 });
    expect(brushOf(axis('reward'), -0.2, 0.5)).toMatchObject({ lo: 10, hi: 20 });
    expect(brushOf(axis('opt'), 0.4, 1)).toEqual({
      column: 'opt',
      kind: 'category',
      categories: ['adamw', 'sgd'],
    });
    expect(brushOf(axis('opt'), 0.1, 0.4)).toBeNull();
  });

  test('rows pass when inside every brush; an empty cell is inside none', () => {
    const b1 = brushOf(axis('reward'), 0.4, 1)!;
    const b2 = brushOf(axis('opt'), 0, 0.6)!;
    expect(ROWS.filter((r) => passesBrushes(r.cells, [b1])).map((r) => r.run)).toEqual(['b', 'c']);
    expect(ROWS.filter((r) => passesBrushes(r.cells, [b1, b2])).map((r) => r.run)).toEqual(['b', 'c']);
    expect(ROWS.filter((r) => passesBrushes(r.cells, [b2])).map((r) => r.run)).toEqual(['b', 'c', 'd']);
    expect(insideBrush(b1, null)).toBe(false);
    expect(ROWS.filter((r) => passesBrushes(r.cells, [])).length).toBe(4);
  });

  test('a brush is drawn over its range and named by its chip', () => {
    const b = brushOf(axis('reward'), 0.25, 0.75)!;
    expect(brushSpan(axis('reward'), b)).toEqual([0.25, 0.75]);
    expect(brushText('reward (last)', b)).toBe('reward (last) 15 – 25');
    const c = brushOf(axis('opt'), 0.4, 1)!;
    expect(brushText('opt', c)).toBe('opt ∈ adamw, sgd');
    const [lo, hi] = brushSpan(axis('opt'), c)!;
    expect(lo).toBeLessThan(0.5);
    expect(hi).toBe(1);
  });
});

describe('the keyboard brush', () => {
  test('ArrowDown lowers the top edge, ArrowUp raises the bottom, from the whole axis; they never cross', () => {
    expect(nudgeSpan(null, 'ArrowDown')).toEqual([0, 0.9]);
    expect(nudgeSpan(null, 'ArrowUp')).toEqual([0.1, 1]);
    let span: [number, number] = [0, 1];
    for (let i = 0; i < 30; i++) span = nudgeSpan(span, 'ArrowDown')!;
    expect(span).toEqual([0, 0.05]);
    const [lo, hi] = nudgeSpan([0.5, 0.52], 'ArrowUp')!;
    expect(lo).toBeCloseTo(0.47, 12);
    expect(hi).toBe(0.52);
    expect(nudgeSpan([0, 1], 'Enter')).toBeNull();
    // On an axis: three ArrowDowns keep the lowest 70 % of rewards.
    let s: [number, number] | null = null;
    for (let i = 0; i < 3; i++) s = nudgeSpan(s, 'ArrowDown');
    expect(brushOf(axis('reward'), s![0], s![1])).toMatchObject({ lo: 10 });
    expect((brushOf(axis('reward'), s![0], s![1]) as { hi: number }).hi).toBeCloseTo(24, 10);
  });
});

describe('geometry', () => {
  const f: Frame = { width: 500, padX: 50, top: 20, bottom: 220 };
  test('axes evenly spaced inside the padding; height 1 at the top', () => {
    expect([0, 1, 2].map((i) => axisX(i, 3, f))).toEqual([50, 250, 450]);
    expect(axisX(0, 1, f)).toBe(250);
    expect(axisY(0, f)).toBe(220);
    expect(axisY(1, f)).toBe(20);
  });

  test('a polyline through each axis, broken where a cell is empty', () => {
    const axes = [axis('reward'), axis('opt'), axis('lr')];
    expect(linePath(ROWS[0]!.cells, axes, f)).toBe('M50.0 220.0L250.0 20.0L450.0 120.0');
    expect(linePath(ROWS[2]!.cells, axes, f)).toBe('M50.0 120.0L250.0 120.0');
    expect(linePath(ROWS[3]!.cells, axes, f)).toBe('M250.0 220.0L450.0 20.0');
  });
});
