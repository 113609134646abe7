// The linear-time matcher answers as JavaScript's RegExp does on the syntax it takes (hand-picked and seeded random
// patterns), refuses back-references, lookaround and oversized repeats, and never backtracks.

import { describe, expect, test } from 'vitest';
import { compileLinearRegex, MAX_PROGRAM, UnsupportedPattern } from '../../src/shared/linear-regex';
import { seededRandom } from '../../src/shared/seeded-random';

/** Patterns and flags where the matcher must agree with RegExp on every text. */
const CASES: [string, string][] = [
  ['abc', ''],
  ['^train/', ''],
  ['loss$', ''],
  ['kl|loss', 'i'],
  ['(ppo|a2c)_seed[0-9]+', ''],
  ['^(?:eval|train)/.*reward', ''],
  ['(?<ns>train)/\\w+', ''],
  ['a.c', ''],
  ['a.c', 's'],
  ['^b', 'm'],
  ['a$', 'm'],
  ['\\bkl\\b', ''],
  ['\\Bl', ''],
  ['[^a-c]+x', 'i'],
  ['[\\d.]+e-?\\d', ''],
  ['[a\\-z]', ''],
  ['[\\w-]{3}', ''],
  ['x{2}', ''],
  ['x{2,}y', ''],
  ['x{1,3}?y', ''],
  ['a{,2}', ''],
  ['\\x41\\u0042\\n?', 'i'],
  ['\\u{1F600}', 'u'],
  ['^.$', 'u'],
  ['^.$', ''],
  ['\\s\\S', ''],
  ['[]', ''],
  ['[^]', ''],
  ['()', ''],
  ['(a|)+b', ''],
  ['(a*)*b', ''],
  ['((a+))+$', ''],
  ['(a|a)*$', ''],
  ['(\\w*x)*', ''],
  ['ß', 'i'],
  ['[^A]', 'i'],
  ['\\W', 'i'],
  ['\\cJ', ''],
  ['\\0', ''],
  ['a|b|', ''],
];
const TEXTS = [
  '',
  'abc',
  'ABC',
  'train/loss',
  'eval/Reward_mean',
  'train/episode_reward',
  'ppo_seed12',
  'A2C_seed3',
  'a\nc',
  'x\nb',
  'kl approx_kl',
  '1.5e-3',
  'xxxy xy',
  'AB\n',
  '😀',
  'é',
  'aaaaaaaaaaaaaaaaaaaaaaaa!',
  'aaab',
  'a-z',
  'SS ß',
  'a\u0000\n',
];

describe('compileLinearRegex', () => {
  test('agrees with RegExp on hand-picked patterns', () => {
    for (const [source, flags] of CASES) {
      const mine = compileLinearRegex(source, flags);
      const native = new RegExp(source, flags);
      for (const text of TEXTS) {
        // The two exponential patterns are checked natively only on short texts (that is the point of this matcher).
        if (/\)\+\$|\)\*/.test(source) && text.length > 16) continue;
        expect(mine.test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(native.test(text));
      }
    }
  });

  test('agrees with RegExp on 3,000 seeded random patterns and texts', () => {
    const rand = seededRandom(33);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const atoms = ['a', 'b', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '\\b', '^', '$', 'A'];
    const quantifiers = ['', '', '', '*', '+', '?', '{1,2}', '{2}', '*?'];
    const pattern = (depth: number): string => {
      let out = '';
      const n = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < n; k++) {
        const group = depth < 2 && rand() < 0.3;
        const atom = group
          ? `(${pattern(depth + 1)}${rand() < 0.5 ? `|${pattern(depth + 1)}` : ''})`
          : pick(atoms);
        out += atom + (/^[\\^$]b?$|^\\b$/.test(atom) ? '' : pick(quantifiers));
      }
      return out;
    };
    const chars = 'abAB1 \n-';
    for (let k = 0; k < 3_000; k++) {
      const source = pattern(0);
      const flags = pick(['', 'i', 'm', 's']);
      let native: RegExp;
      try {
        native = new RegExp(source, flags);
      } catch {
        continue;
      }
      const mine = compileLinearRegex(source, flags);
      const text = Array.from({ length: Math.floor(rand() * 9) }, () => pick([...chars])).join('');
      expect(mine.test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(native.test(text));
    }
  });

  test('back-references, lookaround, octal escapes and repeats past the bound are refused', () => {
    for (const p of ['(a)\\1', '(?<x>a)\\k<x>', '(?=a)', '(?!eval)', '(?<=a)b', '(?<!a)b', '\\01'])
      expect(() => compileLinearRegex(p, ''), p).toThrow(UnsupportedPattern);
    expect(() => compileLinearRegex('(a{100}){100}', '')).toThrow(`over ${MAX_PROGRAM} steps`);
    expect(() => compileLinearRegex('a', 'v')).toThrow(UnsupportedPattern);
    for (const p of ['\\p{L}', '[\\P{L}x]']) expect(() => compileLinearRegex(p, 'u'), p).toThrow(/property/);
    // Without the u flag \p is the letter p, as in RegExp.
    expect(compileLinearRegex('\\p{2}', '').test('pp')).toBe(true);
  });

  test('the exponential patterns answer on long texts: ((a+))+$, (a|a)*$, (a+)+$, (\\w*x)*y', () => {
    const text = `${'a'.repeat(20_000)}!`;
    expect(compileLinearRegex('((a+))+$', '').test(text)).toBe(false);
    expect(compileLinearRegex('^(a|a)*$', '').test(text)).toBe(false);
    expect(compileLinearRegex('(a|a)*$', '').test(text)).toBe(true);
    expect(compileLinearRegex('^(a+)+$', '').test(text.slice(0, -1))).toBe(true);
    expect(compileLinearRegex('(\\w*x)*y', '').test(text)).toBe(false);
  });
});
