// Stable run looks: palette index from the folder's sorted run names (not ticking order); 24 runs all told apart.

import { describe, expect, test } from 'vitest';
import { runColor, runDash, runStyleIndexes, tagDash } from '../../../src/shared/charts/chart-theme';

const look = (i: number): string => `${runColor(i)} ${runDash(i).join(',')}`;

describe('run looks', () => {
  test('any two of the first 24 runs differ in colour or dash; the 4th on are dashed', () => {
    expect(new Set(Array.from({ length: 24 }, (_, i) => look(i))).size).toBe(24);
    for (let i = 3; i < 24; i++) expect(runDash(i).length, `run ${i}`).toBeGreaterThan(0);
  });

  test('a run keeps its index whatever order the runs arrive or are ticked in', () => {
    const a = runStyleIndexes(['ppo_seed2', 'a2c', 'ppo_seed1', 'dqn']);
    const b = runStyleIndexes(['dqn', 'ppo_seed1', 'a2c', 'ppo_seed2', 'dqn']);
    expect([...a]).toEqual([...b]);
    expect(a.get('a2c')).toBe(0);
    expect(a.get('ppo_seed2')).toBe(3);
    // Code-unit order, the same on every machine: upper case before lower.
    expect([...runStyleIndexes(['b', 'B', 'a']).keys()]).toEqual(['B', 'a', 'b']);
  });

  test('a composed chart dashes by tag: the first solid, the next ones each another dash', () => {
    expect(tagDash(0)).toEqual([]);
    const dashes = [1, 2, 3].map((k) => tagDash(k).join(','));
    expect(new Set(dashes).size).toBe(3);
    expect(dashes.every((d) => d !== '')).toBe(true);
  });
});
