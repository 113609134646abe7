// nvidia-smi value strings to numbers: units stripped, every placeholder null, never NaN.

import { describe, expect, it } from 'vitest';
import { parseInteger, parseMiB, parseNumber, parseText } from '../../../src/core/system/units';

describe('parseNumber', () => {
  it.each([
    ['97 %', 97],
    ['18231 MiB', 18231],
    ['71 C', 71],
    ['410.55 W', 410.55],
    ['1950 MHz', 1950],
    ['  42  ', 42],
    ['0', 0],
  ])('%s → %s', (raw, want) => expect(parseNumber(raw)).toBe(want));

  it.each([
    'N/A',
    '[N/A]',
    'Not Supported',
    '[Not Supported]',
    'Unknown Error',
    '[Unknown Error]',
    '',
    'Requested functionality has been deprecated',
    '0x0000000000000001',
    '12 34',
    undefined,
    null,
    {},
  ])('%s → null', (raw) => expect(parseNumber(raw)).toBeNull());
});

describe('parseMiB', () => {
  it('reads MiB and converts the other binary units', () => {
    expect(parseMiB('18231 MiB')).toBe(18231);
    expect(parseMiB('2 GiB')).toBe(2048);
    expect(parseMiB('512 KiB')).toBe(0.5);
    expect(parseMiB('100')).toBe(100);
    expect(parseMiB('12 W')).toBeNull();
    expect(parseMiB('[N/A]')).toBeNull();
  });
});

describe('parseInteger / parseText', () => {
  it('keeps whole numbers and real text only', () => {
    expect(parseInteger('1188')).toBe(1188);
    expect(parseInteger('1.5')).toBeNull();
    expect(parseText(' Tesla T4 ')).toBe('Tesla T4');
    expect(parseText('[N/A]')).toBeNull();
    expect(parseText('None')).toBeNull();
    expect(parseText('')).toBeNull();
    expect(parseText(3)).toBeNull();
  });
});
