// safeFileName: any run or tag name becomes a file name valid on Linux, macOS and Windows, stable; UniqueNames keeps them apart.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DEFAULT_NAME_SIZE, FIGURE_NAME_SIZE, safeFileName, UniqueNames } from '../../src/shared/file-names';
import { hostileName, invalidBecause } from '../helpers/file-name-rules';

describe('safeFileName', () => {
  test('the cases the review found: CJK by bytes, bidi, trailing dot and space, device names', () => {
    const cjk = '学'.repeat(240);
    expect(Buffer.byteLength(safeFileName(cjk))).toBeLessThanOrEqual(DEFAULT_NAME_SIZE);
    expect(safeFileName(cjk)).toBe('学'.repeat(66)); // 198 bytes: a 67th would be 201
    expect(safeFileName('photo\u202egnp.exe')).toBe('photo_gnp.exe');
    expect(safeFileName('reward.')).toBe('reward_');
    expect(safeFileName('reward. . ')).toBe('reward____');
    expect(safeFileName('CON')).toBe('CON_');
    expect(safeFileName('con.png')).toBe('con_.png');
    expect(safeFileName('Nul .tar.gz')).toBe('Nul_ .tar.gz');
    expect(safeFileName('COM¹')).toBe('COM¹_');
    expect(safeFileName('CONSOLE')).toBe('CONSOLE');
    expect(safeFileName('a/b\\c')).toBe('a__b__c');
    expect(safeFileName('..')).toBe('__');
    expect(safeFileName('')).toBe('_');
    expect(safeFileName('rollout/ep_rew_mean')).toBe('rollout__ep_rew_mean');
  });

  test('a cut never splits a character or a grapheme', () => {
    expect(safeFileName('😀'.repeat(100), 30)).toBe('😀'.repeat(7));
    expect(safeFileName('👨‍👩‍👧'.repeat(20), 30)).toBe('👨‍👩‍👧'); // 18 bytes each: a second would be 36
    expect(safeFileName('e\u0301'.repeat(20), 31)).toBe('e\u0301'.repeat(10));
  });

  test('fuzz: any string becomes a name valid on Linux, macOS and Windows, stable, with room for -N and an extension', () => {
    fc.assert(
      fc.property(
        hostileName,
        fc.constantFrom(DEFAULT_NAME_SIZE, FIGURE_NAME_SIZE, 16, 1, 255),
        (raw, size) => {
          const name = safeFileName(raw, size);
          expect(invalidBecause(name)).toBeNull();
          expect(safeFileName(name, size)).toBe(name); // a safe name maps to itself
          expect(safeFileName(raw, size)).toBe(name);
          if (size <= DEFAULT_NAME_SIZE) expect(invalidBecause(`${name}-99.png`)).toBeNull();
        },
      ),
      { seed: 23, numRuns: 4000 },
    );
  });

  test('fuzz: UniqueNames hands out names no case- or normalisation-insensitive file system confuses', () => {
    fc.assert(
      fc.property(fc.array(hostileName, { maxLength: 30 }), (raws) => {
        const names = new UniqueNames(['comparisons']);
        const taken = raws.map((r) => names.take(safeFileName(r)));
        const keys = ['comparisons', ...taken].map((n) => n.normalize('NFC').toLowerCase());
        expect(new Set(keys).size).toBe(keys.length);
        for (const n of taken) expect(invalidBecause(n)).toBeNull();
      }),
      { seed: 23, numRuns: 500 },
    );
    const names = new UniqueNames();
    expect(['Reward', 'reward', 'caf\u00e9', 'cafe\u0301'].map((n) => names.take(n))).toEqual([
      'Reward',
      'reward-2',
      'caf\u00e9',
      'cafe\u0301-2',
    ]);
  });
});
