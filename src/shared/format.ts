// The one number formatter: every value shown to a person (charts, alerts, tray, CLI) goes through it.

/** Values at or above this magnitude, or below SMALL (and not 0), are written with an exponent. */
const LARGE = 1e6;
const SMALL = 1e-3;

/**
 * A number as a person reads it: `significant` digits (4 on screen, 6 in the CLI), integers in full
 * below 1e6, exponent form outside [1e-3, 1e6), and NaN / ∞ / −∞ spelled out.
 */
export function formatNumber(v: number, significant = 4): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= LARGE || a < SMALL) return v.toExponential(Math.max(1, significant - 2));
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(significant)));
}

/** A value that may be missing: "—" when it is. */
export function formatValue(v: number | null | undefined, significant = 4): string {
  return v === null || v === undefined ? '—' : formatNumber(v, significant);
}
