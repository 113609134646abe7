// An ordered list of ranges over source series, read as one sequence of points: gather, extent and
// downsampled windows (per-pixel min/max, block summaries on long ranges). The live view and each session use one.

import type { SeriesWindow } from '../../shared/domain';
import { Acc, BLOCK_SCAN_THRESHOLD, blockIndexOf } from './block-index';
import { lowerBound, minMaxIndices, upperBound } from './downsample';
import type { ScalarSeries } from './scalar-series';

/** A contiguous range [start, end) of one source series. */
export interface Segment {
  series: ScalarSeries;
  start: number;
  end: number;
}

/** Full-resolution points of a list, from index `from`. */
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

/** A window without the live view's own fields (restarts, sessions). */
export type SegmentWindow = Omit<SeriesWindow, 'run' | 'tag' | 'restarts' | 'sessions'>;

const EMPTY = new Float64Array(0);
/** A gather of more points than this copies columns (typed-array views and a block copy); fewer, point by point: a
 * live delta is a point or a few, 2,500 a second with 50 runs × 50 tags, and four views apiece cost more than it
 * (#36). */
const GATHER_COPY_MIN = 32;

/** Segments in order and the number of points they hold. Steps are non-decreasing along the list. */
export class SegmentList {
  readonly segments: Segment[] = [];
  length = 0;

  /** Appends points [start, end) of `series`, extending the last segment when they continue it. */
  append(series: ScalarSeries, start: number, end: number): void {
    if (end <= start) return;
    const last = this.segments[this.segments.length - 1];
    if (last && last.series === series && last.end === start) last.end = end;
    else this.segments.push({ series, start, end });
    this.length += end - start;
  }

  clear(): void {
    this.segments.length = 0;
    this.length = 0;
  }

  /** Full-resolution points [from, to) of the list. */
  gather(from: number, to: number): ViewPoints {
    const n = Math.max(0, Math.min(to, this.length) - from);
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
      const series = seg.series;
      if (b - a > GATHER_COPY_MIN) {
        out.steps.set(series.steps().subarray(a, b), k);
        out.values.set(series.values().subarray(a, b), k);
        for (let i = a; i < b; i++) out.wallTimes[k + i - a] = series.wallTime(i);
      } else
        for (let i = a; i < b; i++) {
          out.steps[k + i - a] = series.step(i);
          out.wallTimes[k + i - a] = series.wallTime(i);
          out.values[k + i - a] = series.value(i);
        }
      k += b - a;
      base += len;
    }
    return out;
  }

  extent(): SeriesWindow['extent'] {
    if (this.length === 0) return null;
    const first = this.segments[0]!;
    const last = this.segments[this.segments.length - 1]!;
    let wallMin = Number.POSITIVE_INFINITY;
    let wallMax = Number.NEGATIVE_INFINITY;
    // Wall times are (almost always) increasing within a segment: its ends bound it. A point without a
    // wall time (NaN) bounds nothing; with none at all both are NaN.
    for (const s of this.segments) {
      const a = s.series.wallTime(s.start);
      const b = s.series.wallTime(s.end - 1);
      if (a < wallMin) wallMin = a;
      if (b > wallMax) wallMax = b;
    }
    return {
      stepMin: first.series.step(first.start),
      stepMax: last.series.step(last.end - 1),
      wallMin: wallMin <= wallMax ? wallMin : Number.NaN,
      wallMax: wallMin <= wallMax ? wallMax : Number.NaN,
    };
  }

  /** Points of the list without a wall time (their source logs none). */
  untimed(): number {
    let n = 0;
    for (const s of this.segments) n += s.series.untimedIn(s.start, s.end);
    return n;
  }

  /**
   * Display points over [xMin, xMax] (whole list by default) in `axis` units: every point when at
   * most 2 per pixel are in range, else per-pixel min/max over pixels/2 buckets (spikes survive,
   * NaN stays NaN). With an explicit range the nearest point outside it on each side is included so
   * lines reach the edges. The 'wall' axis assumes wall times increase along the list (a list with
   * `untimed` points is drawn by step).
   */
  window(q: WindowQuery): SegmentWindow {
    const extent = this.extent();
    if (!extent) {
      return {
        steps: EMPTY.slice(),
        wallTimes: EMPTY.slice(),
        values: EMPTY.slice(),
        length: 0,
        inRange: 0,
        downsampled: false,
        extent,
        untimed: 0,
      };
    }
    const untimed = this.untimed();
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
    const withAfter = q.xMax !== undefined && gHi < this.length ? 1 : 0;
    if (inRange <= 2 * pixels) {
      const p = this.gather(gLo - withBefore, gHi + withAfter);
      return {
        steps: p.steps,
        wallTimes: p.wallTimes,
        values: p.values,
        length: this.length,
        inRange,
        downsampled: false,
        extent,
        untimed,
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
    return { steps, wallTimes, values, length: this.length, inRange, downsampled: true, extent, untimed };
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
