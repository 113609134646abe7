// The word diff: both texts rebuilt from its parts, the fewest words changed, a huge middle as one change.

import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../src/shared/seeded-random';
import { DIFF_CELLS, diffTokens, wordDiff, type DiffPart } from '../../src/shared/word-diff';

const side = (parts: DiffPart[], drop: DiffPart['kind']): string =>
  parts
    .filter((p) => p.kind !== drop)
    .map((p) => p.text)
    .join('');

describe('word diff', () => {
  test('a changed word is one removal and one addition between kept text', () => {
    expect(wordDiff('the answer is 41 so', 'the answer is 42 so')).toEqual([
      { kind: 'same', text: 'the answer is ' },
      { kind: 'del', text: '41 ' },
      { kind: 'add', text: '42 ' },
      { kind: 'same', text: 'so' },
    ]);
    expect(wordDiff('', 'new text')).toEqual([{ kind: 'add', text: 'new text' }]);
    expect(wordDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
    expect(diffTokens('a  b\nc')).toEqual(['a  ', 'b\n', 'c']);
  });

  test('on 300 seeded pairs: each side rebuilt exactly, and the kept words are a longest common subsequence', () => {
    const rand = seededRandom(35);
    const words = ['a ', 'b ', 'c ', 'd\n', 'e '];
    const text = (): string =>
      Array.from({ length: Math.floor(rand() * 14) }, () => words[Math.floor(rand() * words.length)]).join(
        '',
      );
    /** The LCS length of two token lists, by the textbook recursion (memoised). */
    const lcs = (x: string[], y: string[]): number => {
      const memo = new Map<string, number>();
      const go = (i: number, j: number): number => {
        if (i === x.length || j === y.length) return 0;
        const key = `${i},${j}`;
        if (!memo.has(key))
          memo.set(key, x[i] === y[j] ? 1 + go(i + 1, j + 1) : Math.max(go(i + 1, j), go(i, j + 1)));
        return memo.get(key)!;
      };
      return go(0, 0);
    };
    for (let k = 0; k < 300; k++) {
      const before = text();
      const after = text();
      const parts = wordDiff(before, after);
      expect(side(parts, 'add')).toBe(before);
      expect(side(parts, 'del')).toBe(after);
      const kept = parts.filter((p) => p.kind === 'same').flatMap((p) => diffTokens(p.text));
      expect(kept.length).toBe(lcs(diffTokens(before), diffTokens(after)));
    }
  });

  test('a middle larger than the table is one removal and one addition, both sides kept', () => {
    const n = Math.ceil(Math.sqrt(DIFF_CELLS)) + 10;
    const before = 'start ' + Array.from({ length: n }, (_, i) => `x${i} `).join('') + 'end';
    const after = 'start ' + Array.from({ length: n }, (_, i) => `y${i} `).join('') + 'end';
    const parts = wordDiff(before, after);
    expect(parts.map((p) => p.kind)).toEqual(['same', 'del', 'add', 'same']);
    expect(side(parts, 'add')).toBe(before);
    expect(side(parts, 'del')).toBe(after);
  });
});
