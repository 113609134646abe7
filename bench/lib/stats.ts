// Benchmarks' small statistics: percentiles of a sorted sample and a least-squares slope.

/** The p-th percentile (0–100) of an ascending sample; NaN when empty. */
export function pct(sorted: readonly number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Least-squares slope of y over x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

/** The median of an unsorted sample; NaN when empty. */
export function median(xs: readonly number[]): number {
  return pct(
    [...xs].sort((a, b) => a - b),
    50,
  );
}
