// The filters' regex engine is not in the page's first script: a regex filter typed before it is in matches everything (pending), and filters once it is.

import { expect, test } from 'vitest';
import { filterRuns, parseRunQuery } from '../../../src/renderer/src/lib/run-filter';
import { compileFilter } from '../../../src/renderer/src/lib/tags';
import { loadUserRegex, userRegexNow } from '../../../src/renderer/src/lib/user-regex-loader';

const RUNS = ['ppo_seed0', 'dqn_seed0'].map((run) => ({ run }));

test('before the engine is in, a regex filter is pending and hides nothing; asking starts the load, and once in it filters (#36)', async () => {
  // Nothing loaded it yet: this file's module state is fresh (vitest isolates test files).
  expect(userRegexNow()).toBeNull();
  expect(compileFilter('kl|loss')).toEqual({ re: null, error: null, pending: true });
  const q = parseRunQuery('/^ppo/');
  expect(q).toMatchObject({ regex: true, error: null, pending: true });
  expect(filterRuns(RUNS, '/^ppo/')).toHaveLength(2);
  // Words and an empty filter never wait for it.
  expect(compileFilter('  ')).toEqual({ re: null, error: null });
  expect(parseRunQuery('ppo').pending).toBeUndefined();

  await loadUserRegex();
  expect(userRegexNow()).not.toBeNull();
  expect(compileFilter('kl|loss').pending).toBeUndefined();
  expect(compileFilter('kl|loss').re!.test('train/approx_kl')).toBe(true);
  expect(filterRuns(RUNS, '/^ppo/').map((r) => r.run)).toEqual(['ppo_seed0']);
});
