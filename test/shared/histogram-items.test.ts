// The distributions view's pure parts: rebinning onto a common grid, the grid, evenly picked steps, TensorBoard's percentiles on hand-worked cases.

import { describe, expect, test } from 'vitest';
import { commonEdges, distributionPercentiles, pickIndices, rebin } from '../../src/shared/histogram-items';

describe('rebin', () => {
  test('a bucket spanning bins is split by overlap; totals are kept', () => {
    // One bucket [0, 4] of 8 over bins [0,1,2,3,4]: 2 each.
    expect(rebin([0, 4, 8], [0, 1, 2, 3, 4])).toEqual([2, 2, 2, 2]);
    // [0.5, 1.5] of 4 over [0,1,2]: half in each.
    expect(rebin([0.5, 1.5, 4], [0, 1, 2])).toEqual([2, 2]);
    // A zero-width bucket goes whole to the bin holding it; one at the top edge to the last bin.
    expect(rebin([1, 1, 3, 2, 2, 5], [0, 1, 2])).toEqual([0, 8]);
    expect(rebin([0.25, 0.25, 3], [0, 1, 2])).toEqual([3, 0]);
    // Non-finite edges go to the nearest end bin.
    expect(rebin([-Infinity, 0.5, 2, 1.5, Infinity, 7], [0, 1, 2])).toEqual([2, 7]);
  });

  test('no grid, no bins', () => {
    expect(rebin([0, 1, 1], [])).toEqual([]);
  });
});

describe('commonEdges', () => {
  test('equal bins over every finite edge of every step', () => {
    expect(commonEdges([{ buckets: [0, 1, 1] }, { buckets: [2, 4, 1, -Infinity, 0, 3] }], 4)).toEqual([
      0, 1, 2, 3, 4,
    ]);
  });
  test('one point gets a unit-wide grid; no finite edge, no grid', () => {
    expect(commonEdges([{ buckets: [3, 3, 1] }], 2)).toEqual([2.5, 3, 3.5]);
    expect(commonEdges([{ buckets: [] }], 2)).toEqual([]);
  });
});

describe('pickIndices', () => {
  test('all when few; else evenly spread with the first and the last', () => {
    expect(pickIndices(3, 5)).toEqual([0, 1, 2]);
    expect(pickIndices(11, 3)).toEqual([0, 5, 10]);
    expect(pickIndices(1000, 200)).toHaveLength(200);
    expect(pickIndices(1000, 200).at(-1)).toBe(999);
  });
});

describe('distributionPercentiles', () => {
  test('uniform buckets interpolate linearly; empty is all 0; all-zero counts end at the right edge', () => {
    // Two buckets [0,1] and [1,2] of 1 each: the basis point bp lies at 2·bp/10000.
    const got = distributionPercentiles([0, 1, 1, 1, 2, 1]);
    [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000].forEach((bp, i) =>
      expect(got[i]).toBeCloseTo((2 * bp) / 10000, 12),
    );
    expect(distributionPercentiles([])).toEqual(Array(9).fill(0));
    expect(distributionPercentiles([0, 1, 0, 1, 2, 0])).toEqual(Array(9).fill(2));
  });
});
