// Lone points (no finite neighbour) are the ones a line cannot draw: they become dots.

import { describe, expect, test } from 'vitest';
import { isolatedPoints } from '../../../src/shared/charts/isolated-points';

const pts = (...ys: number[]): { x: number; y: number }[] => ys.map((y, x) => ({ x, y }));

describe('isolated points', () => {
  test('a series of one point is that point', () => {
    expect(isolatedPoints(pts(0.9))).toEqual([{ x: 0, y: 0.9 }]);
  });

  test('a point between NaNs or infinities is isolated; one next to a finite point is not', () => {
    expect(isolatedPoints(pts(NaN, 2, NaN, 3, 4, Infinity, 5))).toEqual([
      { x: 1, y: 2 },
      { x: 6, y: 5 },
    ]);
  });

  test('a connected line has none, an empty or all-NaN series has none', () => {
    expect(isolatedPoints(pts(1, 2, 3))).toEqual([]);
    expect(isolatedPoints([])).toEqual([]);
    expect(isolatedPoints(pts(NaN, NaN))).toEqual([]);
  });
});
