// A binned histogram's JSON (wandb.Histogram's, which trackio.Histogram copies) as (left, right, count) buckets.

import { isPlainObject } from './rows';

/** Bins a logged histogram can have at most (the SDKs cap num_bins at 512); more are not a histogram we read. */
const MAX_BINS = 1 << 16;

/**
 * `{values, bins | packedBins}` as (left, right, count) triples: `values` (k counts) over `bins` (k + 1 edges) or
 * `packedBins` ({min, size, count}: edge i is min + i·size). W&B writes both forms, trackio `bins`. Null when
 * malformed.
 */
export function binnedHistogramBuckets(v: Record<string, unknown>): Float64Array | null {
  const values = v.values;
  if (!Array.isArray(values) || values.length > MAX_BINS) return null;
  const k = values.length;
  let edge: (i: number) => number;
  const bins = v.bins;
  const packed = v.packedBins;
  if (Array.isArray(bins)) {
    if (bins.length !== k + 1) return null;
    edge = (i) => bins[i] as number;
  } else if (isPlainObject(packed)) {
    const { min, size, count } = packed;
    if (typeof min !== 'number' || typeof size !== 'number' || count !== k) return null;
    edge = (i) => min + i * size;
  } else return null;
  const out = new Float64Array(3 * k);
  for (let i = 0; i < k; i++) {
    const left = edge(i);
    const right = edge(i + 1);
    const count = values[i];
    if (typeof left !== 'number' || typeof right !== 'number' || typeof count !== 'number') return null;
    out[3 * i] = left;
    out[3 * i + 1] = right;
    out[3 * i + 2] = count;
  }
  return out;
}
