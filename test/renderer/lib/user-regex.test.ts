// User patterns cannot freeze the page: the patterns that slipped past the old nested-quantifier guard, ((a+))+$ and
// (a|a)*$, answer at once on texts where a backtracking engine would run for years.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileUserRegex, MAX_TEXT_TESTED } from '../../../src/renderer/src/lib/user-regex';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('compileUserRegex', () => {
  test('((a+))+$ and (a|a)*$ answer on 40 characters (2^40 backtracking steps natively) in a child that is killed after 20 s', () => {
    // In a child process: a backtracking engine would block this test's own thread, where no timeout can stop it.
    const script = `
      import { compileUserRegex } from './src/renderer/src/lib/user-regex.ts';
      const text = 'a'.repeat(40) + '!';
      const out = ['((a+))+$', '^(a|a)*$', '(a|a)*$', '^(a|aa)+$'].map((p) => {
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
    expect(JSON.parse(child.stdout)).toEqual([false, false, true, false]);
  });

  test('syntax errors are the native message; lookaround and back-references a typed refusal; texts tested up to a bound', () => {
    expect(compileUserRegex('(', '').error).toMatch(/Invalid regular expression/);
    expect(compileUserRegex('a', 'zz').error).toMatch(/Invalid flags/);
    expect(compileUserRegex('(?<!eval)/loss', '').error).toMatch(/lookahead and lookbehind/);
    expect(compileUserRegex('(a)\\1', '').error).toMatch(/back-references/);
    const { re } = compileUserRegex('z$', 'i');
    expect(re!.test(`${'a'.repeat(MAX_TEXT_TESTED - 1)}Z`)).toBe(true);
    expect(re!.test(`${'a'.repeat(MAX_TEXT_TESTED)}Z`)).toBe(false);
  });
});
