// Debiased exponential moving average (TensorBoard's scalar smoothing), streaming so live appends continue it.

/** Running state of one smoothed series; `count` is how many finite values went in. */
export interface EmaState {
  last: number;
  count: number;
  /** weight^count, kept as a running product (the debias denominator is 1 − weightPow). */
  weightPow: number;
}

export const emaStart = (): EmaState => ({ last: 0, count: 0, weightPow: 1 });

/**
 * Smooths `values[from..]` into `out` (same indices) with weight 0..<1, continuing `state`.
 * Like TensorBoard: a non-finite value passes through unsmoothed and does not disturb the average;
 * the first value is returned exactly (debiasing removes the zero-start bias).
 */
export function smoothInto(
  values: ArrayLike<number>,
  weight: number,
  state: EmaState,
  out: { [i: number]: number },
  from = 0,
): void {
  const w = Math.min(Math.max(weight, 0), 0.999999);
  for (let i = from; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    state.last = state.last * w + (1 - w) * v;
    state.count++;
    state.weightPow *= w;
    const debias = 1 - state.weightPow;
    out[i] = debias > 0 ? state.last / debias : v;
  }
}

/** Convenience: a whole series smoothed from scratch. */
export function smooth(values: ArrayLike<number>, weight: number): Float64Array {
  const out = new Float64Array(values.length);
  smoothInto(values, weight, emaStart(), out);
  return out;
}
