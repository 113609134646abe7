// User patterns cannot freeze the page: on re2js they answer as JavaScript's RegExp does where both take them
// (hand-picked and seeded random patterns), differ only where the header says, refuse what RE2 cannot do with a
// message, and answer at once on the patterns that backtrack exponentially in RegExp.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileUserRegex, MAX_TEXT_TESTED } from '../../src/shared/user-regex';
import { seededRandom } from '../../src/shared/seeded-random';

const ROOT = join(import.meta.dirname, '..', '..');

/** The pattern compiled, failing the test with its message when refused. */
function compiled(source: string, flags: string) {
  const { re, error } = compileUserRegex(source, flags);
  expect(error, `/${source}/${flags}`).toBeNull();
  return re!;
}

/** Patterns and flags where the matcher must agree with RegExp on every text. */
const CASES: [string, string][] = [
  ['abc', ''],
  ['^train/', ''],
  ['loss$', ''],
  ['kl|loss', 'i'],
  ['(ppo|a2c)_seed[0-9]+', ''],
  ['^(?:eval|train)/.*reward', ''],
  ['(?<ns>train)/\\w+', ''],
  ['(?<ns>eval|train)/(?<tag>\\w+)', 'i'],
  ['a.c', ''],
  ['a.c', 's'],
  ['^b', 'm'],
  ['a$', 'm'],
  ['\\bkl\\b', ''],
  ['\\Bl', ''],
  ['[^a-c]+x', 'i'],
  ['[\\d.]+e-?\\d', ''],
  ['\\D\\W', 'u'],
  ['[a\\-z]', ''],
  ['[\\w-]{3}', ''],
  ['x{2}', ''],
  ['x{2,}y', ''],
  ['x{1,3}?y', ''],
  ['a{,2}', ''],
  ['\\x41\\u0042\\n?', 'i'],
  ['\\u{1F600}', 'u'],
  ['^.$', 'u'],
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
  ['\\/', ''],
  ['a|b|', ''],
  ['\\p{L}+', 'u'],
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

describe('compileUserRegex', () => {
  test('agrees with RegExp on hand-picked patterns', () => {
    for (const [source, flags] of CASES) {
      const mine = compiled(source, flags);
      const native = new RegExp(source, flags);
      for (const text of TEXTS) {
        // The exponential patterns are checked natively only on short texts (that is the point of re2js).
        if (/\)\+\$|\)\*/.test(source) && text.length > 16) continue;
        expect(mine.test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(native.test(text));
      }
    }
  });

  test('agrees with RegExp on 3,000 seeded random patterns and texts, and takes every pattern RegExp takes', () => {
    const rand = seededRandom(33);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const atoms = ['a', 'b', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '\\b', '^', '$', 'A', '\\W', '[\\d-]'];
    const quantifiers = ['', '', '', '*', '+', '?', '{1,2}', '{2}', '*?', '{0,}'];
    const pattern = (depth: number): string => {
      let out = '';
      const n = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < n; k++) {
        const group = depth < 2 && rand() < 0.3;
        const atom = group
          ? `(${rand() < 0.3 ? '?:' : ''}${pattern(depth + 1)}${rand() < 0.5 ? `|${pattern(depth + 1)}` : ''})`
          : pick(atoms);
        out += atom + (/^[\\^$]b?$|^\\b$/.test(atom) ? '' : pick(quantifiers));
      }
      return out;
    };
    const chars = 'abAB1 \n-_';
    let checked = 0;
    for (let k = 0; k < 3_000; k++) {
      const source = pattern(0);
      const flags = pick(['', 'i', 'm', 's', 'u', 'im']);
      let native: RegExp;
      try {
        native = new RegExp(source, flags);
      } catch {
        continue;
      }
      const mine = compiled(source, flags);
      const text = Array.from({ length: Math.floor(rand() * 9) }, () => pick([...chars])).join('');
      expect(mine.test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(native.test(text));
      checked++;
    }
    expect(checked).toBeGreaterThan(2_000);
  });

  test('differs from RegExp only as the header says: . and $ stop at \\n alone, \\s is ASCII, astral characters are whole, i folds', () => {
    const differs = (source: string, flags: string, text: string, mine: boolean) => {
      expect(compiled(source, flags).test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(mine);
      expect(new RegExp(source, flags).test(text)).toBe(!mine);
    };
    differs('a.c', '', 'a\rc', true);
    differs('a.c', '', 'a\u2028c', true);
    differs('a$', 'm', 'a\rb', false);
    differs('\\s', '', '\u00a0', false);
    differs('\\s', '', '\v', false);
    differs('^.$', '', '😀', true);
    differs('^[^a]$', '', '😀', true);
    differs('^\\D\\W$', '', '😀', false);
    differs('ß', 'i', 'ẞ', true);
    differs('k', 'i', '\u212a', true);
    differs('[[:alpha:]]', '', 'a', true);
  });

  test('((a+))+$ and (a|a)*$ answer on a 20,000-character text (2^999 backtracking steps natively) in a child killed after 20 s', () => {
    // In a child process: a backtracking engine would block this test's own thread, where no timeout can stop it.
    const script = `
      import { compileUserRegex } from './src/shared/user-regex.ts';
      const text = ('a'.repeat(${MAX_TEXT_TESTED - 1}) + '!').padEnd(20000, '!');
      const out = ['((a+))+$', '^(a|a)*$', '(a|a)*$', '^(a|aa)+$', '(\\\\w*x)*y', '^(a+)+$'].map((p) => {
        const { re, error } = compileUserRegex(p, '');
        return re ? re.test(text) : error;
      });
      console.log(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.signal, child.stderr).toBeNull();
    expect(JSON.parse(child.stdout)).toEqual([false, false, true, false, false, false]);
  });

  test('syntax errors are the native message; lookaround, back-references and letter escapes a typed refusal', () => {
    expect(compileUserRegex('(', '').error).toMatch(/Invalid regular expression/);
    expect(compileUserRegex('a', 'zz').error).toMatch(/Invalid flags/);
    for (const p of ['(?=a)', '(?!eval)', '(?<=a)b', '(?<!eval)/loss'])
      expect(compileUserRegex(p, '').error, p).toMatch(/lookahead and lookbehind/);
    // \8 and \k<x> would read as the letters 8 and k<x> in RE2: refused, not silently different.
    for (const p of ['(a)\\1', '(?<x>a)\\k<x>', '(a)(b)(c)(d)(e)(f)(g)(h)\\8', '\\\\\\1'])
      expect(compileUserRegex(p, '').error, p).toMatch(/back-references/);
    for (const p of ['\\a', '\\A', 'x\\z', '\\Qa', '\\p{L}', '\\x{41}', '\\u{1F600}'])
      expect(compileUserRegex(p, '').error, p).toMatch(/not supported in filters without the u flag/);
    expect(compiled('\\\\a', '').test('\\a')).toBe(true);
    expect(compiled('\\\\\\\\1', '').test('\\\\1')).toBe(true);
    expect(compileUserRegex('a', 'v').error).toMatch(/flag "v" is not supported/);
    expect(compileUserRegex('[\\b]', '').error).toMatch(/not supported in filters: invalid escape/);
    expect(compileUserRegex('a{1001}', '').error).toMatch(/not supported in filters: invalid repeat count/);
    expect(compileUserRegex('(a{100}){100}', '').error).toMatch(
      /not supported in filters: invalid repeat count/,
    );
    expect(compileUserRegex('a'.repeat(501), '').error).toMatch(/longer than 500/);
    expect(compileUserRegex('a'.repeat(500), '').error).toBeNull();
  });

  test('texts are tested up to a bound', () => {
    const re = compiled('z$', 'i');
    expect(re.test(`${'a'.repeat(MAX_TEXT_TESTED - 1)}Z`)).toBe(true);
    expect(re.test(`${'a'.repeat(MAX_TEXT_TESTED)}Z`)).toBe(false);
  });
});
