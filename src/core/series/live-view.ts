// The live view of one run's tag: segments over the sources' own ScalarSeries (no copies), restarts cut in.

import type { RestartMark, SeriesReset, SeriesWindow } from '../../shared/domain';
import { Acc, BLOCK_SCAN_THRESHOLD, blockIndexOf } from './block-index';
import { lowerBound, minMaxIndices, upperBound } from './downsample';
import type { ScalarSeries } from './scalar-series';

export type ResetReason = SeriesReset['reason'];

/** A contiguous range [start, end) of one source series that is part of the view. */
export interface Segment {
  series: ScalarSeries;
  start: number;
  end: number;
}

/** Full-resolution points of the view, from view index `from`. */
export interface ViewPoints {
  from: number;
  steps: Float64Array;
  wallTimes: Float64Array;
  values: Float64Array;
}

export interface WindowQuery {
  pixels: number;
  xMin?: number;
  xMax?: number;
  axis?: 'step' | 'wall';
}

interface Part {
  series: ScalarSeries;
  /** Points of the series already fed into the segments. */
  consumed: number;
}

const EMPTY = new Float64Array(0);

/**
 * The points of one tag as the user sees them: the given series (one per source, in file order)
 * concatenated, except that a step lower than the highest seen is a restart (TensorBoard's
 * preemption rule): points before it with step >= the restart step leave the view (they stay in
 * the source series) and a RestartMark records it. The view is therefore sorted by step.
 *
 * Memory: a few numbers per segment; the points themselves are only referenced.
 * Consumers learn about changes through `takeReset()` and `takeDelta()`: after a reset, the next
 * delta's `from` is where the view continues; points before `from` are unchanged.
 */
export class LiveView {
  private parts: Part[] = [];
  private readonly segments: Segment[] = [];
  /** Index of the part being fed; parts before it are fully consumed. */
  private cursor = 0;
  private maxStep = Number.NEGATIVE_INFINITY;
  private _length = 0;
  private _restarts: RestartMark[] = [];
  /** View points consumers were sent. */
  private emitted = 0;
  private pendingReset: ResetReason | null = null;

  get length(): number {
    return this._length;
  }

  get restarts(): readonly RestartMark[] {
    return this._restarts;
  }

  /** Points of the parts not yet fed into the view. */
  get backlog(): number {
    let n = 0;
    for (let p = this.cursor; p < this.parts.length; p++) {
      const part = this.parts[p]!;
      n += Math.max(0, part.series.length - part.consumed);
    }
    return n;
  }

  /** Sets the series making up the view, in order. When the old list is not a prefix of the new one
   * (same series objects, none shrunk), the view starts over and consumers get `reason`. */
  setParts(series: readonly ScalarSeries[], reason: ResetReason): void {
    let prefix = series.length >= this.parts.length;
    for (let i = 0; prefix && i < this.parts.length; i++) {
      const old = this.parts[i]!;
      if (old.series !== series[i] || series[i]!.length < old.consumed) prefix = false;
    }
    if (!prefix) {
      this.rebuild(series, reason);
      return;
    }
    for (let i = this.parts.length; i < series.length; i++)
      this.parts.push({ series: series[i]!, consumed: 0 });
  }

  /** Feeds up to `budget` new points of the parts into the view; returns how many it fed. */
  feed(budget: number): number {
    // A part before the one being fed grew: its points belong earlier in the view, so start over.
    for (let p = 0; p < this.cursor; p++) {
      const part = this.parts[p]!;
      if (part.series.length !== part.consumed) {
        this.rebuild(
          this.parts.map((q) => q.series),
          'bulk',
        );
        break;
      }
    }
    let done = 0;
    while (this.cursor < this.parts.length && done < budget) {
      const part = this.parts[this.cursor]!;
      const n = part.series.length;
      if (part.consumed >= n) {
        if (this.cursor === this.parts.length - 1) break;
        this.cursor++;
        continue;
      }
      done += this.feedPart(part, Math.min(n, part.consumed + (budget - done)));
    }
    return done;
  }

  private feedPart(part: Part, stop: number): number {
    const series = part.series;
    const steps = series.steps();
    const first = part.consumed;
    let seg = this.segments[this.segments.length - 1];
    if (!seg || seg.series !== series || seg.end !== first) {
      seg = { series, start: first, end: first };
      this.segments.push(seg);
    }
    let runStart = first;
    let max = this.maxStep;
    for (let i = first; i < stop; i++) {
      const st = steps[i]!;
      if (st < max) {
        seg.end = i;
        this._length += i - runStart;
        this.cut(st, series.wallTime(i));
        seg = { series, start: i, end: i };
        this.segments.push(seg);
        runStart = i;
        max = st;
      } else if (st > max) max = st;
    }
    seg.end = stop;
    this._length += stop - runStart;
    this.maxStep = max;
    part.consumed = stop;
    // Fed points are final: summarise their blocks now (inside the caller's slice) for fast windows.
    if (stop >= BLOCK_SCAN_THRESHOLD) blockIndexOf(series).update(series, stop);
    return stop - first;
  }

  /** A restart at `step`: drops every view point with step >= step (the view is sorted by step). */
  private cut(step: number, wallTime: number): void {
    let dropped = 0;
    while (this.segments.length > 0) {
      const s = this.segments[this.segments.length - 1]!;
      const j = lowerBound(s.series.steps(), step, s.start, s.end);
      dropped += s.end - j;
      s.end = j;
      if (j > s.start) break;
      this.segments.pop();
    }
    this._length -= dropped;
    this._restarts.push({ step, wallTime, dropped });
    if (this.emitted > this._length) {
      this.emitted = this._length;
      this.pendingReset ??= 'restart';
    }
  }

  private rebuild(series: readonly ScalarSeries[], reason: ResetReason): void {
    this.parts = series.map((s) => ({ series: s, consumed: 0 }));
    this.segments.length = 0;
    this.cursor = 0;
    this.maxStep = Number.NEGATIVE_INFINITY;
    this._length = 0;
    this._restarts = [];
    if (this.emitted > 0) this.pendingReset = reason;
    this.emitted = 0;
  }

  /** The reset consumers must be told about (once), or null. */
  takeReset(): ResetReason | null {
    const r = this.pendingReset;
    this.pendingReset = null;
    return r;
  }

  /** The next up to `max` points consumers have not been sent, or null when they have everything. */
  takeDelta(max = Number.POSITIVE_INFINITY): ViewPoints | null {
    if (this.emitted >= this._length) return null;
    const from = this.emitted;
    const to = Math.min(this._length, from + Math.max(1, max));
    this.emitted = to;
    return this.gather(from, to);
  }

  /** Full-resolution points [from, to) of the view. */
  gather(from: number, to: number): ViewPoints {
    const n = Math.max(0, Math.min(to, this._length) - from);
    const out: ViewPoints = {
      from,
      steps: new Float64Array(n),
      wallTimes: new Float64Array(n),
      values: new Float64Array(n),
    };
    let base = 0;
    let k = 0;
    for (const seg of this.segments) {
      if (k >= n) break;
      const len = seg.end - seg.start;
      if (base + len <= from) {
        base += len;
        continue;
      }
      const a = seg.start + Math.max(0, from - base);
      const b = seg.start + Math.min(len, from + n - base);
      out.steps.set(seg.series.steps().subarray(a, b), k);
      out.values.set(seg.series.values().subarray(a, b), k);
      for (let i = a; i < b; i++) out.wallTimes[k + i - a] = seg.series.wallTime(i);
      k += b - a;
      base += len;
    }
    return out;
  }

  extent(): SeriesWindow['extent'] {
    if (this._length === 0) return null;
    const first = this.segments[0]!;
    const last = this.segments[this.segments.length - 1]!;
    let wallMin = Number.POSITIVE_INFINITY;
    let wallMax = Number.NEGATIVE_INFINITY;
    // Wall times are (almost always) increasing within a segment: its ends bound it.
    for (const s of this.segments) {
      wallMin = Math.min(wallMin, s.series.wallTime(s.start));
      wallMax = Math.max(wallMax, s.series.wallTime(s.end - 1));
    }
    return {
      stepMin: first.series.step(first.start),
      stepMax: last.series.step(last.end - 1),
      wallMin,
      wallMax,
    };
  }

  /**
   * Display points over [xMin, xMax] (whole view by default) in `axis` units: every point when at
   * most 2 per pixel are in range, else per-pixel min/max over pixels/2 buckets (spikes survive,
   * NaN stays NaN). With an explicit range the nearest point outside it on each side is included so
   * lines reach the edges. The 'wall' axis assumes wall times increase along the view.
   */
  window(q: WindowQuery): Omit<SeriesWindow, 'run' | 'tag'> {
    const extent = this.extent();
    const restarts = this._restarts.slice();
    if (!extent) {
      return {
        steps: EMPTY.slice(),
        wallTimes: EMPTY.slice(),
        values: EMPTY.slice(),
        length: 0,
        inRange: 0,
        downsampled: false,
        extent,
        restarts,
      };
    }
    const wall = q.axis === 'wall';
    const x0 = q.xMin ?? (wall ? extent.wallMin : extent.stepMin);
    const x1 = q.xMax ?? (wall ? extent.wallMax : extent.stepMax);
    // Per segment: the in-range index range; globally: first in-range view index and the end.
    const ranges: { seg: Segment; a: number; b: number }[] = [];
    let gLo = 0;
    let gHi = 0;
    for (const seg of this.segments) {
      let a: number;
      let b: number;
      if (x1 < x0) a = b = seg.start;
      else if (wall) {
        a = boundBy(seg, x0, false, seg.start, seg.end);
        b = boundBy(seg, x1, true, a, seg.end);
      } else {
        const steps = seg.series.steps();
        a = lowerBound(steps, x0, seg.start, seg.end);
        b = upperBound(steps, x1, a, seg.end);
      }
      gLo += a - seg.start;
      gHi += b - seg.start;
      if (b > a) ranges.push({ seg, a, b });
    }
    const inRange = gHi - gLo;
    const pixels = Math.max(1, Math.floor(q.pixels));
    const withBefore = q.xMin !== undefined && gLo > 0 ? 1 : 0;
    const withAfter = q.xMax !== undefined && gHi < this._length ? 1 : 0;
    if (inRange <= 2 * pixels) {
      const p = this.gather(gLo - withBefore, gHi + withAfter);
      return {
        steps: p.steps,
        wallTimes: p.wallTimes,
        values: p.values,
        length: this._length,
        inRange,
        downsampled: false,
        extent,
        restarts,
      };
    }
    const buckets = Math.max(1, Math.floor(pixels / 2));
    const picks: { seg: Segment; idx: Int32Array; offset: number }[] = [];
    let total = withBefore + withAfter;
    for (const { seg, a, b } of ranges) {
      let idx: Int32Array;
      let offset = 0;
      if (b - a > BLOCK_SCAN_THRESHOLD) {
        idx = blockMinMax(seg, a, b, x0, x1, buckets, wall);
      } else if (wall) {
        const xs = new Float64Array(b - a);
        for (let i = a; i < b; i++) xs[i - a] = seg.series.wallTime(i);
        idx = minMaxIndices(xs, seg.series.values().subarray(a, b), 0, b - a, x0, x1, buckets);
        offset = a;
      } else {
        idx = minMaxIndices(seg.series.steps(), seg.series.values(), a, b, x0, x1, buckets);
      }
      picks.push({ seg, idx, offset });
      total += idx.length;
    }
    const steps = new Float64Array(total);
    const wallTimes = new Float64Array(total);
    const values = new Float64Array(total);
    let k = 0;
    const put = (p: ViewPoints): void => {
      steps[k] = p.steps[0]!;
      wallTimes[k] = p.wallTimes[0]!;
      values[k] = p.values[0]!;
      k++;
    };
    if (withBefore) put(this.gather(gLo - 1, gLo));
    for (const { seg, idx, offset } of picks) {
      for (const j of idx) {
        const i = j + offset;
        steps[k] = seg.series.step(i);
        wallTimes[k] = seg.series.wallTime(i);
        values[k] = seg.series.value(i);
        k++;
      }
    }
    if (withAfter) put(this.gather(gHi, gHi + 1));
    return { steps, wallTimes, values, length: this._length, inRange, downsampled: true, extent, restarts };
  }
}

/** Binary search on a segment's wall times in [lo, hi): first index with wall >= x (or > x when `upper`). */
function boundBy(seg: Segment, x: number, upper: boolean, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const w = seg.series.wallTime(mid);
    if (upper ? w <= x : w < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Per-pixel min/max over a long range [a, b) of one segment in O(buckets · (log n + BLOCK)): each
 * bucket's index range comes from a binary search on x, its min/max/first non-finite from the
 * series' block summaries. Keeps, per bucket, its first and last point, min, max and first
 * non-finite (NaN/±Inf travel as they are), ascending and without repeats.
 */
function blockMinMax(
  seg: Segment,
  a: number,
  b: number,
  x0: number,
  x1: number,
  buckets: number,
  wall: boolean,
): Int32Array {
  const series = seg.series;
  const ix = blockIndexOf(series);
  const steps = series.steps();
  const values = series.values();
  const span = x1 - x0;
  const out: number[] = [];
  const pick = [0, 0, 0, 0, 0];
  let i = a;
  for (let k = 0; k < buckets && i < b; k++) {
    const limit = k === buckets - 1 ? Number.POSITIVE_INFINITY : x0 + ((k + 1) * span) / buckets;
    const j = wall ? boundBy(seg, limit, false, i, b) : lowerBound(steps, limit, i, b);
    if (j === i) continue;
    const acc = ix.range(values, i, j, new Acc());
    pick[0] = i;
    pick[1] = acc.lo;
    pick[2] = acc.hi;
    pick[3] = j - 1;
    pick[4] = acc.bad;
    pick.sort((p, q) => p - q);
    let prev = -1;
    for (const p of pick) {
      if (p >= 0 && p !== prev) out.push(p);
      prev = p;
    }
    i = j;
  }
  return Int32Array.from(out);
}
