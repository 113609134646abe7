// exactNumberText: the shortest text that parses back to the very value read (float32 or float64).

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { exactNumberText } from '../../src/shared/number-text';

describe('exactNumberText', () => {
  test('float32 values in their shortest form, parsing back to the same float32', () => {
    expect(exactNumberText(Math.fround(0.1), true)).toBe('0.1');
    expect(exactNumberText(Math.fround(1.5), true)).toBe('1.5');
    expect(exactNumberText(Math.fround(3.14159265), true)).toBe('3.1415927');
    expect(exactNumberText(Math.fround(1e-7), true)).toBe('1e-7');
    expect(exactNumberText(Math.fround(16777217), true)).toBe('16777216');
  });

  test('non-finite values spelled so Number(), float() and pandas read them back', () => {
    expect(exactNumberText(Number.NaN, true)).toBe('NaN');
    expect(exactNumberText(Infinity, false)).toBe('Infinity');
    expect(exactNumberText(-Infinity, true)).toBe('-Infinity');
    expect(exactNumberText(-0, true)).toBe('-0');
  });

  test('100k random float32 values round-trip exactly', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (v) => {
        const f = Math.fround(v);
        return Object.is(Math.fround(Number(exactNumberText(f, true))), f);
      }),
      { numRuns: 100_000 },
    );
  });

  test('100k random float64 values round-trip exactly', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) =>
        Object.is(Number(exactNumberText(v, false)), v),
      ),
      { numRuns: 100_000 },
    );
  });
});
