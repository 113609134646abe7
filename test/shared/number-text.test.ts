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

  test('the shortest text: the same as trying every digit count, at powers of two, their neighbours and random bits', () => {
    /** The definition, one digit count after the other (what the bisection must agree with). */
    const byEveryCount = (v: number): string => {
      for (let digits = 1; digits <= 9; digits++) {
        const text = v.toPrecision(digits);
        if (Math.fround(Number(text)) === v) return String(Number(text));
      }
      return String(v);
    };
    const f = new Float32Array(1);
    const bits = new Uint32Array(f.buffer);
    const checked: number[] = [];
    for (let e = 0; e < 255; e++)
      for (const m of [0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000, 0x3fffff])
        for (const sign of [0, 0x80000000]) {
          bits[0] = (sign | (e << 23) | m) >>> 0;
          checked.push(f[0]!);
        }
    let x = 7;
    for (let i = 0; i < 200_000; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      bits[0] = x;
      if (Number.isFinite(f[0]!)) checked.push(f[0]!);
    }
    for (let i = 0; i < 20_000; i++) checked.push(Math.fround(i / 1000), Math.fround(0.01 * i - 100));
    const wrong = checked.filter((v) => !Object.is(v, -0) && exactNumberText(v, true) !== byEveryCount(v));
    expect(wrong).toEqual([]);
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
