// Searching samples across every step: a substring or /regex/ (re2js, its required literal looked for first), one prompt across steps, sort over all steps.

import { describe, expect, test } from 'vitest';
import { samplePage } from '../../../src/core/app/run-samples';
import { sampleMatcher } from '../../../src/core/samples/sample-search';
import { SampleStore } from '../../../src/core/samples/sample-store';
import { ApiError } from '../../../src/shared/result';
import { seededRandom } from '../../../src/shared/seeded-random';
import { compileUserRegex, requiredLiteral } from '../../../src/shared/user-regex';

/** Whether a matcher takes one text (a one-cell table). */
function takes(search: string, text: string): boolean {
  const table = {
    columns: [{ name: 't', kind: 'text' as const }],
    rows: [{ cells: [text], truncated: false }],
  };
  return sampleMatcher(search)(table)[0] === 1;
}

describe('a regex’s required literal', () => {
  test('the longest run of plain characters every match holds; none where an alternation or nothing is sure', () => {
    expect(requiredLiteral('answer:\\s*\\d+')).toBe('answer:');
    expect(requiredLiteral('ab*cdef')).toBe('cdef');
    expect(requiredLiteral('abc+d')).toBe('abc');
    expect(requiredLiteral('x(foo|bar)yz')).toBe('yz');
    expect(requiredLiteral('\\\\boxed\\{')).toBe('\\boxed{'); // `\\` is a backslash
    expect(requiredLiteral('[abc]def?')).toBe('de');
    expect(requiredLiteral('a{0,3}bc')).toBe('bc');
    expect(requiredLiteral('foo|bar')).toBe(null);
    expect(requiredLiteral('\\d+')).toBe(null);
    expect(requiredLiteral('.*')).toBe(null);
  });

  test('the literal first, then re2js: the same answers as re2js alone on 600 seeded patterns and texts', () => {
    const rand = seededRandom(35);
    const atoms = ['a', 'b', 'ab', 'A', '.', '\\d', '[ab]', '(a|b)', '\\.', 'x', '(ab)', '\\s'];
    const quants = ['', '', '', '*', '+', '?', '{2}', '{0,1}'];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let checked = 0;
    for (let k = 0; k < 600; k++) {
      const pattern = Array.from(
        { length: 1 + Math.floor(rand() * 5) },
        () => pick(atoms) + pick(quants),
      ).join('');
      const flags = rand() < 0.5 ? 'i' : 's';
      const plain = compileUserRegex(pattern, flags, 1 << 20).re!;
      for (let t = 0; t < 5; t++) {
        const text = Array.from({ length: Math.floor(rand() * 12) }, () =>
          pick(['a', 'b', 'A', 'B', '.', '1', ' ', 'x']),
        ).join('');
        expect(takes(`/${pattern}/${flags}`, text), `/${pattern}/${flags} on ${JSON.stringify(text)}`).toBe(
          plain.test(text),
        );
        checked++;
      }
    }
    expect(checked).toBe(3000);
  });

  test('a substring is any case; a bad regex is a bad request with the filter’s message; (a+)+$ answers on 200,000 characters', () => {
    expect(takes('Boxed', 'the \\boxed{42}')).toBe(true);
    expect(takes('a.b', 'aXb')).toBe(false); // a substring, not a pattern
    expect(takes('/a.b/', 'aXb')).toBe(true);
    expect(takes('/ANSWER/', 'answer')).toBe(true); // i unless flags are given
    expect(takes('/ANSWER/s', 'answer')).toBe(false);
    expect(() => sampleMatcher('/(?=x)/')).toThrow(ApiError);
    expect(() => sampleMatcher('/(?=x)/')).toThrow(/lookahead/);
    expect(takes('/(a+)+$/', 'a'.repeat(200_000) + '!')).toBe(false);
    // The long s folds with s under RE2's i: the index folds it too, so the literal does not pass it over.
    expect(takes('/ſtep/', 'STEP')).toBe(compileUserRegex('ſtep', 'i').re!.test('STEP'));
    expect(takes('/step 1/', 'ſtep 1')).toBe(compileUserRegex('step 1', 'i').re!.test('ſtep 1'));
  });
});

/** A run's samples: 5 steps × 4 prompts, the completion changing with the step. */
function store(): SampleStore {
  const s = new SampleStore();
  for (const step of [0, 10, 20, 30, 40])
    for (let p = 0; p < 4; p++)
      s.add('rollouts', 'jsonl', step, [
        ['prompt', `prompt ${p}`],
        ['completion', p === 2 ? `the answer is ${step / 10} so boxed ${step}` : `step ${step} text`],
        ['score', step + p],
      ]);
  return s;
}

describe('samples of every step', () => {
  test('no step: every step’s samples in step order, each with its step and its place in the step', () => {
    const page = samplePage('r', 'rollouts', null, [store()], { limit: 1000 });
    expect(page.step).toBe(null);
    expect(page.total).toBe(20);
    expect(page.steps).toEqual([0, 10, 20, 30, 40].flatMap((s) => [s, s, s, s]));
    expect(page.index).toEqual(Array.from({ length: 20 }, (_, i) => i % 4));
  });

  test('a regex across steps finds each step’s match; sort by score across steps; one prompt across steps', () => {
    const found = samplePage('r', 'rollouts', null, [store()], { search: '/answer is [2-4]/' });
    expect(found.matched).toBe(3);
    expect(found.steps).toEqual([20, 30, 40]);
    const best = samplePage('r', 'rollouts', null, [store()], {
      sort: { column: 'score', desc: true },
      limit: 3,
    });
    expect(best.rows.map((r) => r[2])).toEqual([43, 42, 41]);
    expect(best.steps).toEqual([40, 40, 40]);
    const same = samplePage('r', 'rollouts', null, [store()], {
      where: { column: 'prompt', equals: 'prompt 2' },
    });
    expect(same.steps).toEqual([0, 10, 20, 30, 40]);
    expect(same.rows.map((r) => r[1])).toEqual(
      [0, 1, 2, 3, 4].map((k) => `the answer is ${k} so boxed ${k * 10}`),
    );
    // A live step grows after it was searched: its index takes the new rows.
    const live = store();
    expect(samplePage('r', 'rollouts', 40, [live], { search: 'late row' }).matched).toBe(0);
    live.add('rollouts', 'jsonl', 40, [['completion', 'a LATE row']]);
    const late = samplePage('r', 'rollouts', 40, [live], { search: 'late row' });
    expect([late.matched, late.total, late.index[0]]).toEqual([1, 5, 4]);
    // One step still answers as before, with its step on every row.
    expect(samplePage('r', 'rollouts', 30, [store()]).steps).toEqual([30, 30, 30, 30]);
  });
});
