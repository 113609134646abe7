// Seed groups: configs that differ only in seed-like or identity keys group; any other difference splits; names too.

import { describe, expect, test } from 'vitest';
import { flattenConfig, groupBySeed, isSeedKey } from '../../../src/shared/compare/seed-groups';

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
      ['ppo', 'config', ['ppo_seed1', 'ppo_seed2', 'ppo_seed3'], ['env.seed']],
      ['ppo_lr1e-3', 'config', ['ppo_lr1e-3_seed1', 'ppo_lr1e-3_seed2'], ['env.seed']],
    ]);
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
