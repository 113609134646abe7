// Numbers as text that parse back to exactly the value read: float32 values in their shortest form.

/** The float32's bits, to tell a power of two (its mantissa bits all zero) without allocating. */
const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);

/**
 * The shortest decimal that parses back to the same value: for a float32 source value, the shortest
 * text whose nearest float32 is that value (so `0.1f` is "0.1", not "0.10000000149011612"); for a
 * float64 value, JavaScript's own shortest round-trip form. NaN and ±Infinity are spelled as
 * `NaN`, `Infinity`, `-Infinity` (what JavaScript's Number(), Python's float() and pandas read back).
 *
 * The digits are found by bisection (2–4 tries instead of up to 9: the exports' hot loop). That finds the
 * shortest because reading back is monotone in the digits for a float32 that is not a power of two: the
 * nearest (d+1)-digit decimal is at least as close as the nearest d-digit one, and the values that read back
 * as it lie symmetrically around it (its neighbours are one ulp away on both sides, the double rounding of
 * Number() ties the same way at both ends). A power of two (its lower neighbour is half as far) and a value
 * that is not a float32 take every digit count in turn.
 */
export function exactNumberText(v: number, isFloat32: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (!isFloat32 || Object.is(v, -0)) return Object.is(v, -0) ? '-0' : String(v);
  const target = Math.fround(v);
  F32[0] = target;
  if (target === v && (F32_BITS[0]! & 0x7fffff) !== 0) {
    // 9 significant digits always read back as the same float32; a logged metric mostly needs 7 to 9, so the
    // first try is 7 (then 8 settles most), the rest halves the range.
    let lo = 1;
    let hi = 9;
    let shortest: string | null = null;
    for (let mid = 7; lo < hi; mid = (lo + hi) >> 1) {
      const text = v.toPrecision(mid);
      if (Math.fround(Number(text)) === target) {
        hi = mid;
        shortest = text;
      } else lo = mid + 1;
    }
    return String(Number(shortest ?? v.toPrecision(9)));
  }
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
