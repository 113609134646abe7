// Debiased EMA: agrees with TensorBoard's algorithm, streams across appends, passes non-finite values through.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { emaStart, smooth, smoothInto } from '../../../src/shared/charts/smoothing';

/** TensorBoard's resmoothDataset (vz_line_chart2), transcribed as the reference. */
function tensorboard(values: number[], weight: number): number[] {
  let last = values.length > 0 ? 0 : NaN;
  let numAccum = 0;
  const isConstant = values.every((v) => v === values[0]);
  return values.map((v) => {
    if (isConstant || !Number.isFinite(v)) return v;
    last = last * weight + (1 - weight) * v;
    numAccum++;
    const debias = weight === 1 ? 1 : 1 - Math.pow(weight, numAccum);
    return last / debias;
  });
}

describe('smooth', () => {
  test('matches TensorBoard on random series', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        (values, w) => {
          const ours = smooth(values, w);
          const ref = tensorboard(values, w);
          const scale = Math.max(1, ...values.map(Math.abs));
          for (let i = 0; i < values.length; i++) {
            expect(Math.abs(ours[i]! - ref[i]!)).toBeLessThanOrEqual(1e-9 * scale);
          }
        },
      ),
    );
  });

  test('the first value is exact (debiased, not pulled towards zero)', () => {
    expect(smooth([10, 10, 10], 0.9)[0]).toBe(10);
    const s = smooth([10, 0], 0.5);
    expect(s[0]).toBe(10);
    // last = 0.5*(0.5*10) + 0.5*0 = 2.5, debias = 1 - 0.25 = 0.75 → 3.333…
    expect(s[1]).toBeCloseTo(10 / 3, 12);
  });

  test('weight 0 is the identity', () => {
    expect(Array.from(smooth([3, -1, 7.5], 0))).toEqual([3, -1, 7.5]);
  });

  test('NaN and Infinity pass through and do not disturb the average', () => {
    const s = smooth([1, NaN, 3, Infinity, 5], 0.6);
    const clean = smooth([1, 3, 5], 0.6);
    expect(s[1]).toBeNaN();
    expect(s[3]).toBe(Infinity);
    expect([s[0], s[2], s[4]]).toEqual(Array.from(clean));
  });

  test('smoothing in appended pieces equals smoothing the whole series', () => {
    const values = Array.from({ length: 100 }, (_, i) => Math.sin(i / 5) + (i % 7) * 0.1);
    const whole = smooth(values, 0.8);
    const out: number[] = [];
    const state = emaStart();
    const grown: number[] = [];
    for (const cut of [1, 17, 18, 60, 100]) {
      const from = grown.length;
      grown.push(...values.slice(from, cut));
      smoothInto(grown, 0.8, state, out, from);
    }
    expect(out).toEqual(Array.from(whole));
  });
});
