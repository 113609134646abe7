// Seed groups: configs that differ only in seed-like or identity keys group; any other difference splits; names too.

import { describe, expect, test } from 'vitest';
import {
  commonPrefix,
  flattenConfig,
  groupBySeed,
  groupMembers,
  groupTitle,
  isSeedKey,
  settingLabels,
} from '../../../src/shared/compare/seed-groups';

const cfg = (seed: number, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  algo: 'ppo',
  learning_rate: 3e-4,
  env: { id: 'CartPole-v1', seed },
  output_dir: `runs/ppo_seed${seed}`,
  ...over,
});

describe('seed groups', () => {
  test('runs whose configs differ only in seed and output folder form one group; another learning rate is another', () => {
    const groups = groupBySeed([
      { run: 'ppo_seed1', config: cfg(1) },
      { run: 'ppo_seed2', config: cfg(2) },
      { run: 'ppo_seed3', config: cfg(3) },
      { run: 'ppo_lr1e-3_seed1', config: cfg(1, { learning_rate: 1e-3 }) },
      { run: 'ppo_lr1e-3_seed2', config: cfg(2, { learning_rate: 1e-3 }) },
      { run: 'lonely', config: cfg(9, { algo: 'a2c' }) },
    ]);
    expect(groups.map((g) => [g.label, g.by, g.runs, g.seeds])).toEqual([
      ['learning_rate=3e-4', 'config', ['ppo_seed1', 'ppo_seed2', 'ppo_seed3'], ['env.seed']],
      ['learning_rate=1e-3', 'config', ['ppo_lr1e-3_seed1', 'ppo_lr1e-3_seed2'], ['env.seed']],
    ]);
  });

  test('a group is named by the keys that set it apart, the seed keys it folds, and lists its members', () => {
    const sweep = (
      run: string,
      seed: number,
      lr: number,
      clip: number,
    ): { run: string; config: Record<string, unknown> } => ({
      run,
      config: cfg(seed, { learning_rate: lr, ppo: { clip_range: clip } }),
    });
    const groups = groupBySeed([
      sweep('PPO_1', 1, 3e-4, 0.2),
      sweep('PPO_2', 2, 3e-4, 0.2),
      sweep('PPO_3', 3, 3e-4, 0.2),
      sweep('PPO_4', 1, 1e-3, 0.2),
      sweep('PPO_5', 2, 1e-3, 0.2),
      sweep('PPO_6', 1, 1e-3, 0.1),
      sweep('PPO_7', 2, 1e-3, 0.1),
    ]);
    // Keys listed by name; a nested key by its last part; rates with an exponent.
    expect(groups.map((g) => g.label)).toEqual([
      'learning_rate=3e-4, clip_range=0.2',
      'learning_rate=1e-3, clip_range=0.2',
      'learning_rate=1e-3, clip_range=0.1',
    ]);
    expect(groupTitle(groups[0]!)).toBe('learning_rate=3e-4, clip_range=0.2 (over env.seed ×3)');
    expect(groupMembers(groups[0]!)).toBe(
      'learning_rate=3e-4, clip_range=0.2 over env.seed: PPO_1, PPO_2, PPO_3',
    );
  });

  test('one group among runs of other settings is named against them; alone, by its runs’ common name', () => {
    const one = groupBySeed([
      { run: 'PPO_1', config: cfg(1) },
      { run: 'PPO_2', config: cfg(2) },
      { run: 'A2C_1', config: cfg(1, { algo: 'a2c' }) },
    ]);
    expect(one.map((g) => g.label)).toEqual(['algo=ppo']);
    const alone = groupBySeed([
      { run: 'PPO_1', config: cfg(1) },
      { run: 'PPO_2', config: cfg(2) },
      { run: 'PPO_3', config: cfg(3) },
    ]);
    expect(alone.map((g) => groupTitle(g))).toEqual(['PPO (over env.seed ×3)']);
    // A seed in the name is dropped rather than cut to a prefix.
    expect(
      groupBySeed([
        { run: 'ppo_seed1', config: cfg(1) },
        { run: 'ppo_seed2', config: cfg(2) },
      ])[0]!.label,
    ).toBe('ppo');
    expect(commonPrefix(['run-a', 'run-b'])).toBe('run');
    // At most LABEL_KEYS keys: those with the most distinct values (a key one setting lacks is not named for it).
    const settings = [
      { a: 1, b: 1, c: 1, d: 1 },
      { a: 2, b: 2, c: 2, d: 1 },
      { a: 3, b: 3, c: 1, d: 2 },
      { a: 4, b: 1, e: 'x' },
    ].map((o) => new Map(Object.entries(o)));
    expect(settingLabels(settings)).toEqual(['a=1, b=1, c=1', 'a=2, b=2, c=2', 'a=3, b=3, c=1', 'a=4, b=1']);
    expect(commonPrefix(['x1', 'y1'])).toBe('');
  });

  test('without configs the run name says it (ppo_seed3, grpo-s2); a given pattern overrides configs', () => {
    const runs = [
      { run: 'grpo-s1', config: null },
      { run: 'grpo-s2', config: null },
      { run: 'dpo', config: null },
      { run: 'a/run_seed=1', config: { lr: 1 } },
      { run: 'a/run_seed=2', config: { lr: 2 } },
    ];
    expect(groupBySeed(runs).map((g) => g.runs)).toEqual([['grpo-s1', 'grpo-s2']]);
    expect(groupBySeed(runs, { namePattern: /_seed=\d+/ }).map((g) => [g.label, g.runs])).toEqual([
      ['a/run', ['a/run_seed=1', 'a/run_seed=2']],
    ]);
  });

  test('seed-like keys by name; W&B value wrappers unwrapped; huge configs are cut', () => {
    for (const k of ['seed', 'random_seed', 'env.seed', 'torch_seed', 'SEED', 'train.seeds', 'seed_value'])
      expect(isSeedKey(k), k).toBe(true);
    for (const k of ['seedling', 'reseed_every', 'batch_size']) expect(isSeedKey(k), k).toBe(false);
    expect([...flattenConfig({ lr: { desc: null, value: 0.1 }, nested: { a: [1, 2] } })]).toEqual([
      ['lr', 0.1],
      ['nested.a', [1, 2]],
    ]);
    const huge = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    expect(flattenConfig(huge).size).toBe(5000);
  });
});

test('configs holding only identity keys (W&B offline runs: `_wandb` alone) group by name, not all together', () => {
  const wandbOnly = { _wandb: { cli_version: '0.14.2', start_time: 1 } };
  expect(
    groupBySeed([
      { run: 'offline-run-20230413_033614-x199n1yz', config: { _wandb: {} } },
      { run: 'offline-run-20230413_090116-iotz2fip', config: { _wandb: {} } },
      { run: 'run-20230420_073822-clnzftry', config: wandbOnly },
      { run: 'run-20230421_071625-4hjc4zce', config: wandbOnly },
    ]),
  ).toEqual([]);
  // By name they still group when their names say seed.
  expect(
    groupBySeed([
      { run: 'ppo_seed1', config: { _wandb: {} } },
      { run: 'ppo_seed2', config: { output_dir: '/x' } },
    ]).map((g) => [g.label, g.by]),
  ).toEqual([['ppo', 'name']]);
});
