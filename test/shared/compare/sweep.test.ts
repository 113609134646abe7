// The sweep rule: runs whose tags mostly overlap are one sweep (SB3's A2C/DQN/PPO), lone or unread runs are not.

import { describe, expect, test } from 'vitest';
import { alikeTags, findSweep, MAX_SWEEP_RUNS, sweepToShow } from '../../../src/shared/compare/sweep';

/** The tags SB3 wrote in the corpus' rl4avs runs (test/fixtures/tfevents/0pk0__rl4avs, as `rlwatch inspect` lists them). */
const COMMON = ['rollout/ep_len_mean', 'rollout/ep_rew_mean', 'time/fps'];
const A2C = [
  ...COMMON,
  'train/entropy_loss',
  'train/explained_variance',
  'train/learning_rate',
  'train/policy_loss',
  'train/value_loss',
];
const DQN = [...COMMON, 'rollout/exploration_rate'];
const PPO = [
  ...COMMON,
  'train/approx_kl',
  'train/clip_fraction',
  'train/clip_range',
  'train/entropy_loss',
  'train/explained_variance',
  'train/learning_rate',
  'train/loss',
  'train/policy_gradient_loss',
  'train/value_loss',
];
/** The same folder's evaluation script's run (per-algorithm namespaces): not alike. */
const EVAL_SCRIPT = [
  'A2C/mean_reward',
  'A2C/success_rate',
  'DQN/mean_reward',
  'PPO/mean_reward',
  'PPO/success_rate',
];
const EVAL = ['eval/mean_ep_length', 'eval/mean_reward'];

describe('the sweep rule', () => {
  test('SB3 A2C, DQN and PPO runs are one sweep; an eval-only run and a run not read yet are not in it', () => {
    expect(
      findSweep([
        { run: 'PPO_debug_seed_0/PPO_1', tags: PPO },
        { run: 'PPO_debug_seed_0/PPO_4', tags: EVAL },
        { run: 'PPO_debug_seed_0/PPO_2', tags: [] },
        { run: 'DQN_debug_seed_0/DQN_1', tags: DQN },
        { run: 'A2C_debug_seed_0/A2C_1', tags: A2C },
        { run: 'projectResults/tensorboard_logs/20250902-164603', tags: EVAL_SCRIPT },
      ]),
    ).toEqual(['A2C_debug_seed_0/A2C_1', 'DQN_debug_seed_0/DQN_1', 'PPO_debug_seed_0/PPO_1']);
  });

  test('alike is half of the smaller run’s tags shared, either way round', () => {
    const s = (t: string[]): Set<string> => new Set(t);
    expect(alikeTags(s(['a', 'b']), s(['a', 'x', 'y', 'z']))).toBe(true);
    expect(alikeTags(s(['a', 'x', 'y', 'z']), s(['a', 'b']))).toBe(true);
    expect(alikeTags(s(['a', 'b', 'c']), s(['a', 'x', 'y', 'z']))).toBe(false);
    expect(alikeTags(s([]), s(['a']))).toBe(false);
  });

  test('one run, unrelated runs, or no tags: no sweep', () => {
    expect(findSweep([{ run: 'ppo', tags: PPO }])).toEqual([]);
    expect(
      findSweep([
        { run: 'ppo', tags: PPO },
        { run: 'eval', tags: EVAL },
        { run: 'lm', tags: ['loss', 'grad_norm'] },
      ]),
    ).toEqual([]);
    expect(
      findSweep([
        { run: 'a', tags: [] },
        { run: 'b', tags: [] },
      ]),
    ).toEqual([]);
  });

  test('the largest group wins; equal groups go to the first name', () => {
    const runs = [
      { run: 'z1', tags: ['a', 'b'] },
      { run: 'z2', tags: ['a', 'b'] },
      { run: 'z3', tags: ['a', 'b'] },
      { run: 'b1', tags: ['x', 'y'] },
      { run: 'b2', tags: ['x', 'y'] },
    ];
    expect(findSweep(runs)).toEqual(['z1', 'z2', 'z3']);
    expect(findSweep(runs.slice(1))).toEqual(['b1', 'b2']);
  });

  test('a group too large to read as lines is not overlaid by default', () => {
    const many = (n: number): { run: string; tags: string[] }[] =>
      Array.from({ length: n }, (_, i) => ({ run: `run${String(i).padStart(3, '0')}`, tags: PPO }));
    expect(findSweep(many(MAX_SWEEP_RUNS))).toHaveLength(MAX_SWEEP_RUNS);
    expect(findSweep(many(MAX_SWEEP_RUNS + 1))).toEqual([]);
  });

  test('a sweep is overlaid whole at first; a grown one again only while its run is selected', () => {
    expect(sweepToShow([], ['a', 'b'], 'x')).toEqual(['a', 'b']);
    expect(sweepToShow(['a', 'b'], ['a', 'b', 'c'], 'b')).toEqual(['a', 'b', 'c']);
    expect(sweepToShow(['a', 'b'], ['a', 'b', 'c'], 'x')).toBeNull();
    expect(sweepToShow(['a', 'b'], ['a', 'b', 'c'], null)).toBeNull();
    expect(sweepToShow([], ['a'], 'a')).toBeNull();
  });
});
