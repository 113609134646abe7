// Small robust statistics over bounded windows (median, MAD) used by the rules; a window's own median is kept sorted.

/** A fixed-capacity FIFO of numbers and the steps they were logged at; per-tag memory stays O(capacity). Its values
 * are also kept sorted as they come and go (a binary insert and remove per push), so its median, which the rules ask
 * for on every point, is read without a copy and a sort (#36: that copy and sort was a point's largest cost). */
export class Window {
  private readonly buf: number[] = [];
  private readonly steps: number[] = [];
  /** The non-NaN values of `buf`, in the order a stable sort by `a - b` puts them: equal values (0 and -0, two
   * infinities alike) in the order they came, so the median is the very number a sorted copy gives. */
  private readonly sorted: number[] = [];
  /** NaNs held: a sort's order with NaN in it is its own, so a window holding one sorts a copy as before. */
  private nans = 0;
  constructor(readonly capacity: number) {}
  push(v: number, step = Number.NaN): void {
    this.buf.push(v);
    this.steps.push(step);
    if (v === v) this.sorted.splice(upperBound(this.sorted, v), 0, v);
    else this.nans++;
    if (this.buf.length > this.capacity) {
      const old = this.buf.shift()!;
      this.steps.shift();
      // The oldest value is the first of its equals in `sorted` (they are in arrival order).
      if (old === old) this.sorted.splice(lowerBound(this.sorted, old), 1);
      else this.nans--;
    }
  }
  get length(): number {
    return this.buf.length;
  }
  values(): readonly number[] {
    return this.buf;
  }
  /** Steps of the oldest and newest value held (NaN when empty or pushed without steps). */
  get fromStep(): number {
    return this.steps[0] ?? Number.NaN;
  }
  get toStep(): number {
    return this.steps[this.steps.length - 1] ?? Number.NaN;
  }
  /** Median of the last `n` values (all when n is omitted); NaN when empty. */
  median(n = this.buf.length): number {
    if (n >= this.buf.length && this.nans === 0) return medianOfSorted(this.sorted);
    return medianInPlace(this.buf.slice(Math.max(0, this.buf.length - n)));
  }
  clear(): void {
    this.buf.length = 0;
    this.steps.length = 0;
    this.sorted.length = 0;
    this.nans = 0;
  }
}

/** First index of `s` (sorted, no NaN) whose value is not below `v`. */
function lowerBound(s: readonly number[], v: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index of `s` (sorted, no NaN) whose value is above `v`: after `v`'s equals. */
function upperBound(s: readonly number[], v: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (v < s[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function median(xs: readonly number[]): number {
  return medianInPlace([...xs]);
}

/** The median of `s`, sorting it (a copy the caller made: rules ask for a median on every point). */
function medianInPlace(s: number[]): number {
  if (s.length === 0) return NaN;
  s.sort((a, b) => a - b);
  return medianOfSorted(s);
}

function medianOfSorted(s: readonly number[]): number {
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median absolute deviation, scaled by 1.4826 so it estimates σ for normal noise. */
export function mad(xs: readonly number[], med = median(xs)): number {
  return 1.4826 * median(xs.map((x) => Math.abs(x - med)));
}
