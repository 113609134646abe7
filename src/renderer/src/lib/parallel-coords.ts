// Parallel coordinates' pure layout: an axis per column (numbers linear, or log when positive over two decades; text as ordered categories), polylines, brushes.

import type { Cell, TableColumn } from '../../../shared/compare/table-cell';
import { formatNumber } from '../../../shared/format';
import type { Row } from './table-rows';

/** A column as a vertical axis: `t` is a value's height on it, 0 at the bottom and 1 at the top. */
export type Axis =
  /** `log`: every value positive and the largest at least LOG_RATIO × the smallest (learning rates, batch sizes). */
  | { column: string; label: string; kind: 'number'; min: number; max: number; log: boolean }
  | { column: string; label: string; kind: 'category'; categories: string[] };

/** A range dragged on an axis: numbers between lo and hi, or the categories inside it. */
export type Brush =
  | { column: string; kind: 'number'; lo: number; hi: number }
  | { column: string; kind: 'category'; categories: string[] };

export interface Tick {
  t: number;
  text: string;
}

/** Text in natural order (`run2` before `run10`). */
const natural = (a: string, b: string): number =>
  a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' });

/** The text a non-number cell is placed by on a categorical axis. */
const categoryOf = (c: Exclude<Cell, null>): string => String(c);

/** A positive number column spanning at least this ratio gets a log axis (a linear one bunches 1e-5…1e-3 at the bottom). */
export const LOG_RATIO = 100;

type NumberAxis = Extract<Axis, { kind: 'number' }>;

/** A value's height on a number axis (unclamped): linear, or linear in log10 on a log axis. */
function toT(a: NumberAxis, v: number): number {
  if (a.max === a.min) return 0.5;
  return a.log
    ? (Math.log10(v) - Math.log10(a.min)) / (Math.log10(a.max) - Math.log10(a.min))
    : (v - a.min) / (a.max - a.min);
}

/** The value at height t on a number axis. */
function fromT(a: NumberAxis, t: number): number {
  return a.log
    ? 10 ** (Math.log10(a.min) + (Math.log10(a.max) - Math.log10(a.min)) * t)
    : a.min + (a.max - a.min) * t;
}

/** A column's axis over these rows: from its smallest to its largest number when every value is a finite number (log
 * when positive over LOG_RATIO), else its distinct values as ordered categories, evenly spaced. Null when no row has a
 * value. */
export function buildAxis(column: TableColumn, label: string, rows: readonly Row[]): Axis | null {
  const values = rows
    .map((r) => r.cells[column.id] ?? null)
    .filter((v): v is Exclude<Cell, null> => v !== null);
  if (values.length === 0) return null;
  if (values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    const nums = values as number[];
    const min = Math.min(...nums);
    const max = Math.max(...nums);
    return { column: column.id, label, kind: 'number', min, max, log: min > 0 && max >= LOG_RATIO * min };
  }
  // Numbers first, in numeric order, then texts in natural order (false before true).
  const first = new Map<string, Exclude<Cell, null>>();
  for (const v of values) if (!first.has(categoryOf(v))) first.set(categoryOf(v), v);
  const categories = [...first.entries()]
    .sort(([ta, a], [tb, b]) =>
      typeof a === 'number' && typeof b === 'number'
        ? a - b
        : typeof a === 'number'
          ? -1
          : typeof b === 'number'
            ? 1
            : natural(ta, tb),
    )
    .map(([t]) => t);
  return { column: column.id, label, kind: 'category', categories };
}

/** A cell's height on an axis in [0, 1]; null where it has no place (empty, or not on this axis). One value alone sits
 * at the middle. */
export function position(axis: Axis, cell: Cell): number | null {
  if (cell === null) return null;
  if (axis.kind === 'number') {
    if (typeof cell !== 'number' || !Number.isFinite(cell) || (axis.log && cell <= 0)) return null;
    return toT(axis, cell);
  }
  const i = axis.categories.indexOf(categoryOf(cell));
  if (i < 0) return null;
  return axis.categories.length === 1 ? 0.5 : i / (axis.categories.length - 1);
}

/** The labels along an axis: five evenly spaced numbers (in log space on a log axis; one where all are equal), or
 * every category. */
export function axisTicks(axis: Axis): Tick[] {
  if (axis.kind === 'category')
    return axis.categories.map((c, i) => ({
      t: axis.categories.length === 1 ? 0.5 : i / (axis.categories.length - 1),
      text: c,
    }));
  if (axis.max === axis.min) return [{ t: 0.5, text: formatNumber(axis.min) }];
  return [0, 0.25, 0.5, 0.75, 1].map((t) => ({ t, text: formatNumber(fromT(axis, t)) }));
}

/** The brush a drag from height t0 to t1 makes on an axis; null where it holds no value (a category-free gap). */
export function brushOf(axis: Axis, t0: number, t1: number): Brush | null {
  const lo = Math.max(0, Math.min(t0, t1));
  const hi = Math.min(1, Math.max(t0, t1));
  if (axis.kind === 'number')
    return { column: axis.column, kind: 'number', lo: fromT(axis, lo), hi: fromT(axis, hi) };
  const categories = axis.categories.filter((c) => {
    const t = position(axis, c)!;
    return t >= lo && t <= hi;
  });
  return categories.length === 0 ? null : { column: axis.column, kind: 'category', categories };
}

/** Where a brush is drawn on its axis, [bottom, top] in heights; a categorical brush spans its categories (padded). */
export function brushSpan(axis: Axis, b: Brush): [number, number] | null {
  if (axis.kind === 'number' && b.kind === 'number') {
    if (axis.max === axis.min) return axis.min >= b.lo && axis.min <= b.hi ? [0.45, 0.55] : null;
    return [Math.max(0, toT(axis, b.lo)), Math.min(1, toT(axis, b.hi))];
  }
  if (axis.kind === 'category' && b.kind === 'category') {
    const ts = b.categories.map((c) => position(axis, c)).filter((t): t is number => t !== null);
    if (ts.length === 0) return null;
    const pad = axis.categories.length > 1 ? 0.5 / (axis.categories.length - 1) : 0.05;
    return [Math.max(0, Math.min(...ts) - pad / 2), Math.min(1, Math.max(...ts) + pad / 2)];
  }
  return null;
}

/** How far one arrow key moves a brush's edge, in axis heights. */
export const KEY_STEP = 0.1;

/**
 * A brush span after a key on its focused axis (the keyboard's drag): ArrowDown lowers the top edge, ArrowUp raises
 * the bottom one (from the whole axis when there is no brush yet), by KEY_STEP, never closer than KEY_STEP / 2; null
 * for any other key.
 */
export function nudgeSpan(span: [number, number] | null, key: string): [number, number] | null {
  const [lo, hi] = span ?? [0, 1];
  if (key === 'ArrowDown') return [lo, Math.max(lo + KEY_STEP / 2, hi - KEY_STEP)];
  if (key === 'ArrowUp') return [Math.min(hi - KEY_STEP / 2, lo + KEY_STEP), hi];
  return null;
}

/** Whether a row's cell is inside a brush (an empty cell is inside none). */
export function insideBrush(b: Brush, cell: Cell): boolean {
  if (cell === null) return false;
  if (b.kind === 'number') return typeof cell === 'number' && cell >= b.lo && cell <= b.hi;
  return b.categories.includes(categoryOf(cell));
}

/** Whether a row passes every brush. */
export const passesBrushes = (cells: Record<string, Cell>, brushes: readonly Brush[]): boolean =>
  brushes.every((b) => insideBrush(b, cells[b.column] ?? null));

/** A brush as its filter chip says it: `reward (last) 10 – 15`, `format ∈ tfevents, wandb`. */
export function brushText(label: string, b: Brush): string {
  return b.kind === 'number'
    ? `${label} ${formatNumber(b.lo)} – ${formatNumber(b.hi)}`
    : `${label} ∈ ${b.categories.join(', ')}`;
}

/** Plot geometry: axes evenly spaced across `width` inside `padX`, heights from `top` (t = 1) to `bottom` (t = 0). */
export interface Frame {
  width: number;
  padX: number;
  top: number;
  bottom: number;
}

export function axisX(i: number, count: number, f: Frame): number {
  return count <= 1 ? f.width / 2 : f.padX + ((f.width - 2 * f.padX) * i) / (count - 1);
}

export const axisY = (t: number, f: Frame): number => f.bottom - (f.bottom - f.top) * t;

/** A row's polyline as an SVG path: a point on each axis where it has a value; a gap (a new `M`) past an empty one. */
export function linePath(cells: Record<string, Cell>, axes: readonly Axis[], f: Frame): string {
  let d = '';
  let pen = false;
  axes.forEach((a, i) => {
    const t = position(a, cells[a.column] ?? null);
    if (t === null) {
      pen = false;
      return;
    }
    const x = axisX(i, axes.length, f);
    const y = axisY(t, f);
    d += `${pen ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`;
    pen = true;
  });
  return d;
}
