// Per-series min/max summaries of fixed blocks, so min/max downsampling of a long range costs O(pixels), not O(points).

import { finite } from './finite';
import type { ScalarSeries } from './scalar-series';

/** Points per block: summaries cost 12 bytes per block (< 0.05 B per point). */
export const BLOCK = 256;

/** Below this many points in range, scanning them directly is as fast as using the blocks. */
export const BLOCK_SCAN_THRESHOLD = 1 << 16;

/** Summaries of the complete blocks of one append-only series: index of the min and max finite value
 * (-1 when none) and of the first non-finite value (-1 when none). */
export class BlockIndex {
  private lo: Int32Array = new Int32Array(16);
  private hi: Int32Array = new Int32Array(16);
  private bad: Int32Array = new Int32Array(16);
  /** Complete blocks summarised. */
  private blocks = 0;
  /** The series' `dropped` when summarised: thinning moves every index, so the summaries start over. */
  private dropped = 0;

  /** Summarises the complete blocks below `upTo` not summarised yet (a shrunk series drops blocks past
   * its end). Callers pass points that will not change any more (fed into a view). */
  update(series: ScalarSeries, upTo = series.length): void {
    if (series.dropped !== this.dropped) {
      this.dropped = series.dropped;
      this.blocks = 0;
    }
    const full = Math.floor(Math.min(upTo, series.length) / BLOCK);
    if (full < this.blocks) this.blocks = full;
    if (full <= this.blocks) return;
    if (full > this.lo.length) {
      const cap = Math.max(full, this.lo.length * 2);
      this.lo = grow(this.lo, cap);
      this.hi = grow(this.hi, cap);
      this.bad = grow(this.bad, cap);
    }
    const values = series.values();
    for (let b = this.blocks; b < full; b++) {
      const acc = scan(values, b * BLOCK, (b + 1) * BLOCK, new Acc());
      this.lo[b] = acc.lo;
      this.hi[b] = acc.hi;
      this.bad[b] = acc.bad;
    }
    this.blocks = full;
  }

  /** Min, max (finite) and first non-finite of values[i0, i1), using summaries for whole blocks. */
  range(values: ArrayLike<number>, i0: number, i1: number, acc: Acc): Acc {
    const b0 = Math.ceil(i0 / BLOCK);
    const b1 = Math.min(this.blocks, Math.floor(i1 / BLOCK));
    if (b1 - b0 < 2) return scan(values, i0, i1, acc);
    scan(values, i0, b0 * BLOCK, acc);
    for (let b = b0; b < b1; b++) {
      const lo = this.lo[b]!;
      if (lo >= 0) {
        const hi = this.hi[b]!;
        const l = values[lo]!;
        const h = values[hi]!;
        if (acc.lo < 0 || l < acc.loV) {
          acc.lo = lo;
          acc.loV = l;
        }
        if (acc.hi < 0 || h > acc.hiV) {
          acc.hi = hi;
          acc.hiV = h;
        }
      }
      if (acc.bad < 0 && this.bad[b]! >= 0) acc.bad = this.bad[b]!;
    }
    return scan(values, b1 * BLOCK, i1, acc);
  }
}

export class Acc {
  lo = -1;
  hi = -1;
  loV = 0;
  hiV = 0;
  bad = -1;
}

function scan(values: ArrayLike<number>, i0: number, i1: number, acc: Acc): Acc {
  for (let i = i0; i < i1; i++) {
    const v = values[i]!;
    if (!finite(v)) {
      if (acc.bad < 0 || i < acc.bad) acc.bad = i;
      continue;
    }
    if (acc.lo < 0 || v < acc.loV) {
      acc.lo = i;
      acc.loV = v;
    }
    if (acc.hi < 0 || v > acc.hiV) {
      acc.hi = i;
      acc.hiV = v;
    }
  }
  return acc;
}

function grow(a: Int32Array, cap: number): Int32Array {
  const out = new Int32Array(cap);
  out.set(a);
  return out;
}

const indexes = new WeakMap<ScalarSeries, BlockIndex>();

/** The block index of a series (shared by every view of it; kept up to date by `update`). */
export function blockIndexOf(series: ScalarSeries): BlockIndex {
  let ix = indexes.get(series);
  if (!ix) {
    ix = new BlockIndex();
    indexes.set(series, ix);
  }
  return ix;
}
