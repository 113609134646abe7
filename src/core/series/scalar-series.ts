// Columnar, growable storage for one scalar series: steps, wall times and values in typed arrays.

/** Bytes per point: step i32 (4) + wall time f64 (8) + value f32 (4) = 16 for event files (integer steps,
 * float32 values). Wall times are the doubles the file holds, exactly (NaN where the source has none).
 * Steps upgrade to float64 the first time one is not an int32 (a fractional epoch, a step past 2^31), values
 * the first time one is not a float32: text formats (float64 values) take 20 bytes. */
/** A series' columns as they cross between threads (each column owns its ArrayBuffer, so it can be transferred). */
export interface SeriesColumns {
  steps: Int32Array | Float64Array;
  wall: Float64Array;
  values: Float32Array | Float64Array;
  length: number;
  untimed: number;
  /** The series is settled (`settle`): it grows by an eighth from now on. */
  settled?: boolean;
}

/** A settled series grows by this share of its length (at least `SETTLED_GROWTH_MIN` points) instead of doubling. */
const SETTLED_GROWTH_SHIFT = 3;
const SETTLED_GROWTH_MIN = 64;

export class ScalarSeries {
  private _steps: Int32Array | Float64Array;
  private _wall: Float64Array;
  private _values: Float32Array | Float64Array;
  private _double: boolean;
  private _stepsDouble = false;
  private _length = 0;
  /** Points whose wall time is NaN (the source has none). */
  private _untimed = 0;
  /** The columns' bytes (capacity included), kept as they are replaced: summed over thousands of series a
   * second by the memory guard, where reading three typed arrays' byteLength each cost ~0.5 µs a series. */
  private _bytes = 0;
  /** Points read but no longer held: thinned away to stay under the memory cap (`keepOnly`). */
  private _dropped = 0;
  /** Its bulk is read (`settle`): what comes now is a live run's trickle, so it grows by an eighth, not doubling —
   * 2,500 live series doubling at once held ~40 MB of empty capacity in `serve` (#36 target 2). */
  private _settled = false;
  // Undo state (beginBatch/undoBatch): the open batch, the length before it, and the batches that
  // upgraded the steps and the values (0: none).
  private _batch = 0;
  private _batchLength = 0;
  private _stepUpgradeBatch = 0;
  private _upgradeBatch = 0;

  constructor(capacity = 64, precision: 'f32' | 'f64' = 'f32') {
    this._steps = new Int32Array(capacity);
    this._wall = new Float64Array(capacity);
    this._double = precision !== 'f32';
    this._values = this._double ? new Float64Array(capacity) : new Float32Array(capacity);
    this.measure();
  }

  /** A series over columns filled elsewhere (a read in a worker thread, its buffers transferred): no copy. */
  static fromColumns(c: SeriesColumns): ScalarSeries {
    const s = new ScalarSeries(0, c.values instanceof Float64Array ? 'f64' : 'f32');
    s._steps = c.steps;
    s._stepsDouble = c.steps instanceof Float64Array;
    s._wall = c.wall;
    s._values = c.values;
    s._length = c.length;
    s._untimed = c.untimed;
    s._settled = c.settled === true;
    s.measure();
    return s;
  }

  /** The whole columns (capacity included) and what fills them, for `fromColumns` in another thread. */
  columns(): SeriesColumns {
    return {
      steps: this._steps,
      wall: this._wall,
      values: this._values,
      length: this._length,
      untimed: this._untimed,
      settled: this._settled,
    };
  }

  get length(): number {
    return this._length;
  }

  get isDouble(): boolean {
    return this._double;
  }

  /** Points without a wall time (NaN): sources that log none (trainer_state.json, a CSV with no time column). */
  get untimed(): number {
    return this._untimed;
  }

  /** Points read into this series and thinned away since (memory cap): `length + dropped` were read. */
  get dropped(): number {
    return this._dropped;
  }

  /**
   * Keeps only the points at `keep[0..n)` (increasing indices), in new columns of exactly that size, so the
   * memory of the rest is freed; the rest count as `dropped`. An open undo batch is closed (its points stay).
   * Caches over indices (block summaries, step stretches) see `dropped` change and start over.
   */
  keepOnly(keep: ArrayLike<number>, n: number): void {
    const steps = this._stepsDouble ? new Float64Array(n) : new Int32Array(n);
    const wall = new Float64Array(n);
    const values = this._double ? new Float64Array(n) : new Float32Array(n);
    let untimed = 0;
    for (let k = 0; k < n; k++) {
      const i = keep[k]!;
      steps[k] = this._steps[i]!;
      const w = this._wall[i]!;
      wall[k] = w;
      if (w !== w) untimed++;
      values[k] = this._values[i]!;
    }
    this._dropped += this._length - n;
    this._steps = steps;
    this._wall = wall;
    this._values = values;
    this._length = n;
    this._untimed = untimed;
    this._batch = 0;
    this._stepUpgradeBatch = 0;
    this._upgradeBatch = 0;
    this.measure();
  }

  /** Points without a wall time among [start, end). */
  untimedIn(start: number, end: number): number {
    if (this._untimed === 0 || end <= start) return 0;
    if (this._untimed === this._length) return end - start;
    return countNaN(this._wall, start, end);
  }

  /** Points the columns hold room for without growing. */
  get capacity(): number {
    return this._steps.length;
  }

  /** Bytes held by the columns (capacity, not just length). */
  get byteSize(): number {
    return this._bytes;
  }

  append(step: number, wallTime: number, value: number): void {
    // An f32 column upgrades the first time a value would lose bits (NaN stays NaN either way).
    if (!this._double && Math.fround(value) !== value && value === value) this.upgrade();
    this.appendF32(step, wallTime, value);
  }

  /** `append` for a value known to be a float32 (read from a float field, or NaN): no precision check. */
  appendF32(step: number, wallTime: number, value: number): void {
    const i = this._length;
    if (i === this._steps.length)
      this.grow(
        i < 32 ? 64 : this._settled ? i + Math.max(SETTLED_GROWTH_MIN, i >> SETTLED_GROWTH_SHIFT) : i * 2,
      );
    // An int32 column upgrades the first time a step is not an int32 (-0 included: it would read back as 0).
    if (!this._stepsDouble && ((step | 0) !== step || (step === 0 && 1 / step < 0))) this.upgradeSteps();
    this._steps[i] = step;
    this._wall[i] = wallTime;
    if (wallTime !== wallTime) this._untimed++;
    this._values[i] = value;
    this._length = i + 1;
  }

  /** Makes room for `capacity` points in all (a size hint: growing later stays geometric). */
  reserve(capacity: number): void {
    if (capacity > this._steps.length) this.grow(Math.ceil(capacity));
  }

  /** Drops points from index `n` on (restart handling keeps the prefix). */
  truncate(n: number): void {
    if (n < this._length) this.shrinkTo(Math.max(0, n));
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
    this.shrinkTo(this._batchLength);
    // The steps and values before the batch were int32s and float32s, so the downgrades are exact.
    if (this._stepUpgradeBatch === id) {
      this._steps = Int32Array.from(this._steps);
      this._stepsDouble = false;
    }
    if (this._upgradeBatch === id) {
      this._values = Float32Array.from(this._values);
      this._double = false;
    }
    this.measure();
  }

  step(i: number): number {
    return this._steps[i]!;
  }

  wallTime(i: number): number {
    return this._wall[i]!;
  }

  value(i: number): number {
    return this._values[i]!;
  }

  /** Zero-copy views of the filled part of each column. */
  steps(): Int32Array | Float64Array {
    return this._steps.subarray(0, this._length);
  }

  values(): Float32Array | Float64Array {
    return this._values.subarray(0, this._length);
  }

  wallTimes(): Float64Array {
    return this._wall.subarray(0, this._length);
  }

  /** Shrinks capacity to length, for series that are done growing (settles them). */
  compact(): void {
    if (this._steps.length !== this._length) this.grow(this._length);
    this._settled = true;
  }

  /** Its bulk is read: from now on it grows by an eighth of its length (at least 64 points), not by doubling. A
   * live run's series take a point a second; doubling all of them at once left half of each empty. */
  settle(): void {
    this._settled = true;
  }

  /** Whether it grows by an eighth (`settle`, `compact`) rather than by doubling. Thinning leaves it as it was: a
   * series thinned in the middle of its file's first read goes on doubling (an eighth cost 8 copies a point there). */
  get settled(): boolean {
    return this._settled;
  }

  private shrinkTo(n: number): void {
    if (this._untimed > 0) this._untimed -= this.untimedIn(n, this._length);
    this._length = n;
  }

  private upgrade(): void {
    this._values = Float64Array.from(this._values);
    this._double = true;
    this._upgradeBatch = this._batch;
    this.measure();
  }

  private upgradeSteps(): void {
    this._steps = Float64Array.from(this._steps);
    this._stepsDouble = true;
    this._stepUpgradeBatch = this._batch;
    this.measure();
  }

  private grow(capacity: number): void {
    const n = this._length;
    const steps = this._stepsDouble ? new Float64Array(capacity) : new Int32Array(capacity);
    steps.set(n === this._steps.length ? this._steps : this._steps.subarray(0, n));
    const wall = new Float64Array(capacity);
    wall.set(n === this._wall.length ? this._wall : this._wall.subarray(0, n));
    const values = this._double ? new Float64Array(capacity) : new Float32Array(capacity);
    values.set(n === this._values.length ? this._values : this._values.subarray(0, n));
    this._steps = steps;
    this._wall = wall;
    this._values = values;
    this.measure();
  }

  /** Keeps `_bytes` after the columns were replaced. */
  private measure(): void {
    this._bytes = this._steps.byteLength + this._wall.byteLength + this._values.byteLength;
  }
}

function countNaN(xs: Float64Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (xs[i]! !== xs[i]!) n++;
  return n;
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
