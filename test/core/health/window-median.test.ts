// A rule window's median, kept sorted as values come and go, is the very number a sorted copy of the window gives.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Window } from '../../../src/core/health/stats';

/** The median as the rules had it: a copy of the last `n` values sorted by `a - b`. */
function sortedCopyMedian(xs: readonly number[], n = xs.length): number {
  const s = xs.slice(Math.max(0, xs.length - n)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Values that collide often: duplicates, both zeros, both infinities, NaN, and a few ordinary numbers. */
const value = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 2.5, Infinity, -Infinity, NaN, 1e-300, -1e300),
  fc.double(),
  fc.integer({ min: -3, max: 3 }),
);

afterEach(() => vi.restoreAllMocks());

describe('Window.median', () => {
  it('equals the sorted copy after every push, clear and eviction, on windows with NaN, infinities, duplicates and ±0', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.oneof({ weight: 20, arbitrary: value }, { weight: 1, arbitrary: fc.constant('clear' as const) }),
          {
            maxLength: 200,
          },
        ),
        (capacity, ops) => {
          const w = new Window(capacity);
          for (const op of ops) {
            if (op === 'clear') w.clear();
            else w.push(op);
            // Object.is: -0 and 0 apart, NaN equal to NaN.
            expect(Object.is(w.median(), sortedCopyMedian(w.values()))).toBe(true);
            for (let n = 1; n <= w.length; n++)
              expect(Object.is(w.median(n), sortedCopyMedian(w.values(), n))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sorts no copy of the window for its whole median when it holds no NaN (a rule asks on every point)', () => {
    const w = new Window(30);
    for (let i = 0; i < 40; i++) w.push(Math.sin(i) * 10, i);
    const sort = vi.spyOn(Array.prototype, 'sort');
    const med = w.median();
    expect(sort).not.toHaveBeenCalled();
    expect(med).toBe(sortedCopyMedian(w.values()));
  });

  it('still answers with NaN in the window (a sorted copy, as before) and once the NaN has left it', () => {
    const w = new Window(3);
    for (const v of [5, NaN, 1, 3]) w.push(v);
    expect(Object.is(w.median(), sortedCopyMedian(w.values()))).toBe(true);
    w.push(4);
    w.push(2);
    expect(w.values()).toEqual([3, 4, 2]);
    expect(w.median()).toBe(3);
  });
});
