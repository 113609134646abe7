// The run filter's regex mode: /pattern/ selects matching names, a bad or catastrophic pattern is an error, never a throw.

import { beforeAll, describe, expect, test } from 'vitest';
import { filterRuns, MAX_NAME_TESTED, parseRunQuery } from '../../../src/renderer/src/lib/run-filter';
import { loadUserRegex } from '../../../src/renderer/src/lib/user-regex-loader';

// The page loads the regex engine when a filter first needs it; these tests filter with it in (awaited, not
// returned: a hook that resolves to a function has vitest call it as teardown).
beforeAll(async () => {
  await loadUserRegex();
});

const RUNS = [
  'A2C_debug_seed_0/A2C_1',
  'DQN_debug_seed_0/DQN_1',
  'PPO_debug_seed_0/PPO_1',
  'PPO_debug_seed_0/PPO_4',
].map((run) => ({ run }));
const names = (text: string): string[] => filterRuns(RUNS, text).map((r) => r.run);

describe('regex run selection', () => {
  test('/pattern/ matches names anywhere, ignoring case unless flags are given', () => {
    expect(names('/ppo_\\d$/')).toEqual(['PPO_debug_seed_0/PPO_1', 'PPO_debug_seed_0/PPO_4']);
    expect(names('/^(a2c|dqn)_/')).toEqual(['A2C_debug_seed_0/A2C_1', 'DQN_debug_seed_0/DQN_1']);
    expect(names('/^(a2c|dqn)_/u')).toEqual([]);
    expect(names('/_1$/')).toHaveLength(3);
    expect(parseRunQuery('/x/').regex).toBe(true);
    expect(parseRunQuery('ppo 1').regex).toBe(false);
  });

  test('words still work, and a lone slash is a word', () => {
    expect(names('ppo 4')).toEqual(['PPO_debug_seed_0/PPO_4']);
    expect(names('seed_0/dqn')).toEqual(['DQN_debug_seed_0/DQN_1']);
  });

  test('an invalid pattern says why and matches nothing, without throwing', () => {
    const q = parseRunQuery('/ppo(/');
    expect(q.error).toMatch(/Invalid regular expression/);
    expect(q.test('ppo(')).toBe(false);
    expect(names('/ppo(/')).toEqual([]);
    expect(parseRunQuery('/a/zz').error).not.toBeNull();
  });

  test('nested repeats run in linear time (no refusal); names are tested on their first characters only', () => {
    for (const p of ['/(a+)+$/', '/(\\w*x)*y/', '/(a|b+){2,}$/', '/((a+))+$/', '/(a|a)*$/'])
      expect(parseRunQuery(p).error, p).toBeNull();
    expect(parseRunQuery('/^(a|a)*$/').test(`${'a'.repeat(150)}!`)).toBe(false);
    expect(parseRunQuery('/(ppo|a2c)_seed[0-9]+/').error).toBeNull();
    expect(parseRunQuery('/(?!eval)/').error).toMatch(/lookahead/);
    const q = parseRunQuery('/z$/');
    expect(q.test('a'.repeat(MAX_NAME_TESTED - 1) + 'z')).toBe(true);
    expect(q.test('a'.repeat(MAX_NAME_TESTED) + 'z')).toBe(false);
  });

  test('a g or y flag does not make matching depend on the previous name', () => {
    const q = parseRunQuery('/ppo/gi');
    expect([q.test('PPO_1'), q.test('PPO_1'), q.test('PPO_1')]).toEqual([true, true, true]);
  });
});
