// Chart grouping at scale: namespaces inside catalog groups, large sections collapsed, system metrics against time.

import { describe, expect, test } from 'vitest';
import { xAxisFor } from '../../../src/shared/charts/axis';
import { COLLAPSE_ABOVE, groupTags, namespaceOf, sectionOpen } from '../../../src/renderer/src/lib/tags';

const none = { filter: null, pinned: new Set<string>() };

/** The clnzftry W&B run's system stats (16 CPU cores, one GPU), as its .wandb file names them. */
const WANDB_SYSTEM = [
  'system/cpu',
  'system/disk',
  'system/memory',
  ...Array.from({ length: 16 }, (_, i) => `system/cpu.${i}.cpu_percent`),
  ...['gpu', 'memory', 'memoryAllocated', 'powerPercent', 'powerWatts', 'temp'].map(
    (f) => `system/gpu.0.${f}`,
  ),
  'system/network.recv',
  'system/network.sent',
  'system/proc.memory.rssMB',
];

describe('namespaces', () => {
  test('the first path segment; W&B device stats by their family; none without a slash', () => {
    expect(namespaceOf('train/approx_kl')).toBe('train/');
    expect(namespaceOf('rollout/ep_rew_mean')).toBe('rollout/');
    expect(namespaceOf('actor/entropy')).toBe('actor/');
    expect(namespaceOf('system/cpu.12.cpu_percent')).toBe('system/cpu');
    expect(namespaceOf('system/gpu.0.temp')).toBe('system/gpu');
    expect(namespaceOf('system/disk')).toBe('system/');
    expect(namespaceOf('System/GPU_Utilization')).toBe('System/');
    expect(namespaceOf('loss')).toBe('');
    expect(namespaceOf('/odd')).toBe('');
  });

  test('SB3 tags of A2C, DQN and PPO runs split by namespace inside their catalog group', () => {
    const tags = [
      'rollout/ep_rew_mean',
      'eval/mean_reward',
      'train/approx_kl',
      'train/entropy_loss',
      'train/policy_loss',
      'train/value_loss',
      'train/loss',
      'rollout/exploration_rate',
      'time/fps',
    ];
    const g = groupTags(tags, none);
    for (const group of g.groups) {
      // Every section holds one namespace only, and the group's tags are exactly its sections' tags.
      for (const sec of group.sections)
        expect(new Set(sec.tags.map(namespaceOf))).toEqual(new Set([sec.namespace]));
      expect(group.tags).toEqual(group.sections.flatMap((s) => s.tags));
    }
    const keys = g.groups.flatMap((x) => x.sections.map((s) => s.key));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('W&B per-core stats become their own section, which starts collapsed', () => {
    const g = groupTags(WANDB_SYSTEM, none);
    const system = g.groups.find((x) => x.group === 'System')!;
    const cpu = system.sections.find((s) => s.namespace === 'system/cpu')!;
    expect(cpu.tags).toHaveLength(16);
    expect(cpu.tags[0]).toBe('system/cpu.0.cpu_percent');
    expect(cpu.tags[2]).toBe('system/cpu.2.cpu_percent'); // numeric order, not cpu.10 after cpu.1
    const choice = { collapsed: new Set<string>(), expanded: new Set<string>() };
    expect(sectionOpen(cpu.key, cpu.tags.length, WANDB_SYSTEM.length, choice)).toBe(false);
    const gpu = system.sections.find((s) => s.namespace === 'system/gpu')!;
    expect(sectionOpen(gpu.key, gpu.tags.length, WANDB_SYSTEM.length, choice)).toBe(true);
  });
});

describe('collapse threshold', () => {
  const empty = { collapsed: new Set<string>(), expanded: new Set<string>() };
  test('sections up to the threshold start open, larger ones closed', () => {
    expect(sectionOpen('k', COLLAPSE_ABOVE, 100, empty)).toBe(true);
    expect(sectionOpen('k', COLLAPSE_ABOVE + 1, 100, empty)).toBe(false);
  });
  test('a large section that holds every chart of the grid starts open (nothing else to show)', () => {
    expect(sectionOpen('k', 40, 40, empty)).toBe(true);
  });
  test("the user's choice wins either way", () => {
    expect(sectionOpen('k', 500, 600, { collapsed: new Set(), expanded: new Set(['k']) })).toBe(true);
    expect(sectionOpen('k', 2, 600, { collapsed: new Set(['k']), expanded: new Set() })).toBe(false);
  });
});

describe('x-axis per group', () => {
  test('system metrics are plotted against time when the axis is steps; other choices are kept', () => {
    expect(xAxisFor('System', 'step')).toBe('relative');
    expect(xAxisFor('System', 'wall')).toBe('wall');
    expect(xAxisFor('Loss', 'step')).toBe('step');
  });
});
