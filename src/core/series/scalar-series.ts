// Columnar, growable storage for one scalar series: steps, wall times and values in typed arrays.

/** Bytes per point: step f64 (8) + wall-time offset f32 (4) + value f32 (4) = 16 for float32 sources.
 * Wall times are stored as float32 seconds relative to the series' first wall time (sub-0.1 s
 * precision over weeks); values upgrade to float64 the first time one is not a float32. */
export class ScalarSeries {
  private _steps: Float64Array;
  private _wall: Float32Array;
  private _values: Float32Array | Float64Array;
  private _double: boolean;
  private _length = 0;
  private _wallBase = Number.NaN;
  // Undo state (beginBatch/undoBatch): the open batch, the length before it, and the batches that
  // set the wall-time base and upgraded the values (0: none).
  private _batch = 0;
  private _batchLength = 0;
  private _baseBatch = 0;
  private _upgradeBatch = 0;

  constructor(capacity = 64, precision: 'f32' | 'f64' = 'f32') {
    this._steps = new Float64Array(capacity);
    this._wall = new Float32Array(capacity);
    this._double = precision !== 'f32';
    this._values = this._double ? new Float64Array(capacity) : new Float32Array(capacity);
  }

  get length(): number {
    return this._length;
  }

  get isDouble(): boolean {
    return this._double;
  }

  /** Points the columns hold room for without growing. */
  get capacity(): number {
    return this._steps.length;
  }

  /** Bytes held by the columns (capacity, not just length). */
  get byteSize(): number {
    return this._steps.byteLength + this._wall.byteLength + this._values.byteLength;
  }

  append(step: number, wallTime: number, value: number): void {
    // An f32 column upgrades the first time a value would lose bits (NaN stays NaN either way).
    if (!this._double && Math.fround(value) !== value && value === value) this.upgrade();
    this.appendF32(step, wallTime, value);
  }

  /** `append` for a value known to be a float32 (read from a float field, or NaN): no precision check. */
  appendF32(step: number, wallTime: number, value: number): void {
    const i = this._length;
    if (i === this._steps.length) this.grow(i < 32 ? 64 : i * 2);
    if (this._wallBase !== this._wallBase) {
      this._wallBase = wallTime;
      this._baseBatch = this._batch;
    }
    this._steps[i] = step;
    this._wall[i] = wallTime - this._wallBase;
    this._values[i] = value;
    this._length = i + 1;
  }

  /** Makes room for `capacity` points in all (a size hint: growing later stays geometric). */
  reserve(capacity: number): void {
    if (capacity > this._steps.length) this.grow(Math.ceil(capacity));
  }

  /** Drops points from index `n` on (restart handling keeps the prefix). */
  truncate(n: number): void {
    if (n < this._length) this._length = Math.max(0, n);
  }

  /**
   * Starts (or continues) undoable batch `id` (a positive number the caller never reuses): the state
   * before its first append is kept so `undoBatch(id)` can restore it. Cheap enough to call per append.
   */
  beginBatch(id: number): void {
    if (this._batch !== id) {
      this._batch = id;
      this._batchLength = this._length;
    }
  }

  /** Undoes every append of batch `id` (a no-op when the series was not touched by it). */
  undoBatch(id: number): void {
    if (this._batch !== id) return;
    this._batch = 0;
    this._length = this._batchLength;
    if (this._baseBatch === id) this._wallBase = Number.NaN;
    if (this._upgradeBatch === id) {
      // The values before the batch were float32s, so the downgrade is exact.
      this._values = Float32Array.from(this._values);
      this._double = false;
    }
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

  private upgrade(): void {
    this._values = Float64Array.from(this._values);
    this._double = true;
    this._upgradeBatch = this._batch;
  }

  private grow(capacity: number): void {
    const n = this._length;
    const steps = new Float64Array(capacity);
    steps.set(n === this._steps.length ? this._steps : this._steps.subarray(0, n));
    const wall = new Float32Array(capacity);
    wall.set(n === this._wall.length ? this._wall : this._wall.subarray(0, n));
    const values = this._double ? new Float64Array(capacity) : new Float32Array(capacity);
    values.set(n === this._values.length ? this._values : this._values.subarray(0, n));
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
