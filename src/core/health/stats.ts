// Small robust statistics over bounded windows (median, MAD) used by the rules; O(window) per call.

/** A fixed-capacity FIFO of numbers and the steps they were logged at; per-tag memory stays O(capacity). */
export class Window {
  private readonly buf: number[] = [];
  private readonly steps: number[] = [];
  constructor(readonly capacity: number) {}
  push(v: number, step = Number.NaN): void {
    this.buf.push(v);
    this.steps.push(step);
    if (this.buf.length > this.capacity) {
      this.buf.shift();
      this.steps.shift();
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
    return medianInPlace(this.buf.slice(Math.max(0, this.buf.length - n)));
  }
  clear(): void {
    this.buf.length = 0;
    this.steps.length = 0;
  }
}

export function median(xs: readonly number[]): number {
  return medianInPlace([...xs]);
}

/** The median of `s`, sorting it (a copy the caller made: rules ask for a median on every point). */
function medianInPlace(s: number[]): number {
  if (s.length === 0) return NaN;
  s.sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median absolute deviation, scaled by 1.4826 so it estimates σ for normal noise. */
export function mad(xs: readonly number[], med = median(xs)): number {
  return 1.4826 * median(xs.map((x) => Math.abs(x - med)));
}
