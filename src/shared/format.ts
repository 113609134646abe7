// The one number formatter: every value shown to a person (charts, alerts, tray, CLI) goes through it.

import { exactNumberText } from './number-text';

/** Values at or above this magnitude, or below SMALL (and not 0), are written with an exponent. */
const LARGE = 1e6;
const SMALL = 1e-3;

/**
 * A number as a person reads it: `significant` digits (4 on screen, 6 in the CLI), never fewer than its
 * integer digits below 1e6 (54713.18 is "54713", not "54710"), exponent form outside [1e-3, 1e6), and
 * NaN / ∞ / −∞ spelled out.
 */
export function formatNumber(v: number, significant = 4): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= LARGE || a < SMALL) return v.toExponential(Math.max(1, significant - 2));
  if (Number.isInteger(v)) return String(v);
  const integerDigits = a >= 1 ? Math.floor(Math.log10(a)) + 1 : 1;
  return String(Number(v.toPrecision(Math.min(21, Math.max(significant, integerDigits)))));
}

/**
 * Every digit a value has, in formatNumber's notation: the shortest text that reads back as the value
 * (float32 values as their shortest float32 text, so 0.1f is "0.1"). For a value shown alone, such as a
 * single point's or a flat series' one tick: 54713.18 is "54713.18".
 */
export function formatFull(v: number): string {
  if (!Number.isFinite(v) || v === 0) return formatNumber(v);
  const text = exactNumberText(v, Math.fround(v) === v);
  const a = Math.abs(v);
  return a >= LARGE || a < SMALL ? Number(text).toExponential() : String(Number(text));
}

/** A value that may be missing: "—" when it is. */
export function formatValue(v: number | null | undefined, significant = 4): string {
  return v === null || v === undefined ? '—' : formatNumber(v, significant);
}
