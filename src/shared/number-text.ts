// Numbers as text that parse back to exactly the value read: float32 values in their shortest form.

/**
 * The shortest decimal that parses back to the same value: for a float32 source value, the shortest
 * text whose nearest float32 is that value (so `0.1f` is "0.1", not "0.10000000149011612"); for a
 * float64 value, JavaScript's own shortest round-trip form. NaN and ±Infinity are spelled as
 * `NaN`, `Infinity`, `-Infinity` (what JavaScript's Number(), Python's float() and pandas read back).
 */
export function exactNumberText(v: number, isFloat32: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (!isFloat32 || Object.is(v, -0)) return Object.is(v, -0) ? '-0' : String(v);
  const target = Math.fround(v);
  for (let digits = 1; digits <= 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === target) return String(Number(text));
  }
  return String(v);
}

/**
 * Whether a column of values reads as float32: ScalarSeries' own rule (it stays float32 until a value
 * is not a float32), for values that crossed as float64 (a chart's points) and lost that flag.
 */
export function isFloat32Column(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === v && Math.fround(v) !== v) return false;
  }
  return true;
}
