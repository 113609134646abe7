// The one number formatter: same text on charts, alerts, tray and CLI, with one exponent rule.

import { describe, expect, test } from 'vitest';
import { formatFull, formatNumber, formatValue } from '../../src/shared/format';

describe('formatNumber', () => {
  test('4 significant digits on screen; integers in full below a million', () => {
    expect(formatNumber(0.0312345)).toBe('0.03123');
    expect(formatNumber(0.123456)).toBe('0.1235');
    expect(formatNumber(1200)).toBe('1200');
    expect(formatNumber(123456)).toBe('123456');
    expect(formatNumber(35.2718)).toBe('35.27');
  });

  test('integer digits are never rounded away: 54713.18 is not "54710"', () => {
    expect(formatNumber(54713.18)).toBe('54713');
    expect(formatNumber(77350.9963)).toBe('77351');
    expect(formatNumber(-1234.5678)).toBe('-1235');
  });

  test('formatFull: every digit a value has, float32 values in their shortest float32 form', () => {
    expect(formatFull(54713.18)).toBe('54713.18');
    expect(formatFull(77350.9963)).toBe('77350.9963');
    expect(formatFull(Math.fround(0.1))).toBe('0.1');
    expect(formatFull(Math.fround(0.5695228576660156))).toBe('0.56952286');
    expect(formatFull(5.27162132754432e20)).toBe('5.27162132754432e+20');
    expect(formatFull(4.5e-6)).toBe('4.5e-6');
    expect(formatFull(Number.NaN)).toBe('NaN');
    expect(formatFull(0)).toBe('0');
  });

  test('one exponent rule: below 1e-3 or from 1e6 on', () => {
    expect(formatNumber(0.000012)).toBe('1.20e-5');
    expect(formatNumber(1.5e-7)).toBe('1.50e-7');
    expect(formatNumber(0.001)).toBe('0.001');
    expect(formatNumber(999999)).toBe('999999');
    expect(formatNumber(1e6)).toBe('1.00e+6');
    expect(formatNumber(-2.5e9)).toBe('-2.50e+9');
  });

  test('non-finite values are spelled out', () => {
    expect(formatNumber(Number.NaN)).toBe('NaN');
    expect(formatNumber(Infinity)).toBe('∞');
    expect(formatNumber(-Infinity)).toBe('−∞');
    expect(formatNumber(0)).toBe('0');
  });

  test('the CLI asks for 6 digits and gets them', () => {
    expect(formatNumber(0.0312345678, 6)).toBe('0.0312346');
    expect(formatNumber(0.000012345678, 6)).toBe('1.2346e-5');
  });

  test('a missing value is a dash', () => {
    expect(formatValue(null)).toBe('—');
    expect(formatValue(undefined)).toBe('—');
    expect(formatValue(2.5)).toBe('2.5');
  });
});
