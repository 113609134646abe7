// Columnar, growable storage for one scalar series: steps, wall times and values in typed arrays.

/** Bytes per point: step f64 (8) + wall-time offset f32 (4) + value f32 (4) = 16 for float32 sources.
 * Wall times are stored as float32 seconds relative to the series' first wall time (sub-0.1 s
 * precision over weeks); values upgrade to float64 the first time one is not a float32. */
export class ScalarSeries {
  private _steps: Float64Array;
  private _wall: Float32Array;
  private _values: Float32Array | Float64Array;
  private _length = 0;
  private _wallBase = Number.NaN;

  constructor(capacity = 64, precision: 'f32' | 'f64' = 'f32') {
    this._steps = new Float64Array(capacity);
    this._wall = new Float32Array(capacity);
    this._values = precision === 'f32' ? new Float32Array(capacity) : new Float64Array(capacity);
  }

  get length(): number {
    return this._length;
  }

  get isDouble(): boolean {
    return this._values instanceof Float64Array;
  }

  /** Bytes held by the columns (capacity, not just length). */
  get byteSize(): number {
    return this._steps.byteLength + this._wall.byteLength + this._values.byteLength;
  }

  append(step: number, wallTime: number, value: number): void {
    if (this._length === this._steps.length) this.grow(this._length * 2 || 64);
    if (Number.isNaN(this._wallBase)) this._wallBase = wallTime;
    if (this._values instanceof Float32Array && Math.fround(value) !== value && !Number.isNaN(value)) {
      this._values = Float64Array.from(this._values);
    }
    const i = this._length++;
    this._steps[i] = step;
    this._wall[i] = wallTime - this._wallBase;
    this._values[i] = value;
  }

  /** Drops points from index `n` on (restart handling keeps the prefix). */
  truncate(n: number): void {
    if (n < this._length) this._length = Math.max(0, n);
  }

  step(i: number): number {
    return this._steps[i]!;
  }

  wallTime(i: number): number {
    return this._wallBase + this._wall[i]!;
  }

  value(i: number): number {
    return this._values[i]!;
  }

  /** Zero-copy views of the filled part of each column. */
  steps(): Float64Array {
    return this._steps.subarray(0, this._length);
  }

  values(): Float32Array | Float64Array {
    return this._values.subarray(0, this._length);
  }

  wallTimes(): Float64Array {
    const out = new Float64Array(this._length);
    for (let i = 0; i < this._length; i++) out[i] = this._wallBase + this._wall[i]!;
    return out;
  }

  /** Shrinks capacity to length, for series that are done growing. */
  compact(): void {
    if (this._steps.length !== this._length) this.grow(this._length);
  }

  private grow(capacity: number): void {
    const steps = new Float64Array(capacity);
    steps.set(this._steps.subarray(0, this._length));
    const wall = new Float32Array(capacity);
    wall.set(this._wall.subarray(0, this._length));
    const values =
      this._values instanceof Float32Array ? new Float32Array(capacity) : new Float64Array(capacity);
    values.set(this._values.subarray(0, this._length));
    this._steps = steps;
    this._wall = wall;
    this._values = values;
  }
}

/** Summary over one series as the `inspect --json` contract defines it. */
export interface ScalarSummary {
  count: number;
  firstStep: number | null;
  lastStep: number | null;
  sum: number;
  min: number | null;
  max: number | null;
  last: number | null;
  nonFinite: number;
}

export function summarize(series: ScalarSeries): ScalarSummary {
  const n = series.length;
  const values = series.values();
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let nonFinite = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) {
      nonFinite++;
      continue;
    }
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const last = n > 0 ? values[n - 1]! : null;
  return {
    count: n,
    firstStep: n > 0 ? series.step(0) : null,
    lastStep: n > 0 ? series.step(n - 1) : null,
    sum,
    min: min === Infinity ? null : min,
    max: max === -Infinity ? null : max,
    last: last === null || Number.isNaN(last) ? null : last,
    nonFinite,
  };
}
