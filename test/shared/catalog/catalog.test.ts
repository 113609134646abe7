// The metric catalog maps every seed convention's tags to roles, groups and healthy ranges.
import { describe, expect, it } from 'vitest';
import { boundValue, classifyTag, GROUP_LABELS, groupOf, ROLES } from '../../../src/shared/catalog';

const cases: [string, string, string?][] = [
  // seed 000
  ['Train/Loss', 'loss'],
  ['Train/PolicyLoss', 'policy_loss'],
  ['Train/KLPenalty', 'kl_penalty'],
  ['Train/AvgReward', 'reward'],
  ['Train/RewardStd', 'reward_std'],
  ['Train/RewardVariance', 'reward_variance'],
  ['Epoch/AvgReward', 'reward'],
  ['Epoch/RewardVariance', 'reward_variance'],
  ['Epoch/RewardTrend', 'reward_trend'],
  ['Performance/Generation_TokensPerSec', 'generation_throughput'],
  ['System/GPU_Utilization', 'gpu_util'],
  ['System/Memory_Percent', 'memory_pct'],
  ['System/GPU_Memory_Percent', 'gpu_memory_pct'],
  // seed 001
  ['rewards/total_mean', 'reward'],
  ['rewards/format_exact_mean', 'reward'],
  ['criteria/rubric/clarity_mean', 'reward'],
  ['final/answer_check_mean', 'reward'],
  // seed 002
  ['actor/entropy_loss', 'entropy', 'identity'],
  ['actor/ppo_kl', 'kl'],
  ['actor/pg_clipfrac', 'clip_fraction'],
  ['actor/grad_norm', 'grad_norm'],
  ['actor/is_ratio/mean', 'importance_ratio'],
  ['critic/kl', 'kl'],
  ['critic/rewards/mean', 'reward'],
  ['response_length/clip_ratio', 'response_truncation'],
  ['completion/truncated_frac', 'response_truncation'],
  ['timing_s/gen', 'timing'],
  // seed 003
  ['loss', 'loss'],
  ['reward', 'reward'],
  ['kl_divergence', 'kl'],
  ['entropy', 'entropy'],
  // seed 004
  ['approx_kl', 'kl'],
  ['clipfrac', 'clip_fraction'],
  ['pg_grad_norm', 'grad_norm'],
  ['current_temperature', 'sampling_temperature'],
  ['balance_penalty', 'balance_penalty'],
  // SB3
  ['train/approx_kl', 'kl'],
  ['train/clip_fraction', 'clip_fraction'],
  ['train/entropy_loss', 'entropy', 'negate'],
  ['rollout/ep_rew_mean', 'reward'],
  // TRL
  ['kl', 'kl'],
  ['objective/kl', 'kl'],
  ['clip_ratio/region_mean', 'clip_fraction'],
  ['clip_ratio/low_mean', 'clip_fraction_detail'],
  ['completions/clipped_ratio', 'response_truncation'],
  ['reward_std', 'reward_std'],
  // W&B system stats, multi-algorithm prefixes
  ['system/gpu.0.gpu', 'gpu_util'],
  ['system/gpu.0.memoryAllocated', 'gpu_memory_pct'],
  ['system/gpu.0.temp', 'gpu_temperature'],
  ['PPO/Episode/reward', 'reward'],
  ['A2C/Final/success_rate', 'success_rate'],
  ['DQN/Episode/episode_length', 'episode_length'],
];

describe('classifyTag', () => {
  it.each(cases)('%s → %s', (tag, role, transform) => {
    const c = classifyTag(tag);
    expect(c?.role).toBe(role);
    if (transform) expect(c?.transform).toBe(transform);
  });

  it('is case- and separator-insensitive and memoised', () => {
    expect(classifyTag('TRAIN/APPROX-KL')?.role).toBe('kl');
    expect(classifyTag('System/GPU Utilization')?.role).toBe('gpu_util');
    expect(classifyTag('approx_kl')).toBe(classifyTag('approx_kl'));
  });

  it('keeps sampling temperature and GPU temperature apart', () => {
    expect(classifyTag('current_temperature')?.group).toBe('Policy');
    expect(classifyTag('system/gpu.0.temp')?.group).toBe('System');
  });

  it("groups by the metric's own name, not by a generic namespace (train/, history/)", () => {
    // HF Trainer, SB3 and training_progress.json counters are progress, wherever a writer puts them.
    for (const tag of [
      'train/epoch',
      'train/total_flos',
      'train/episode',
      'train/n_updates',
      'time/total_timesteps',
      'total_steps',
      'training_sessions',
      'epoch',
    ])
      expect([tag, groupOf(tag)]).toEqual([tag, 'Progress']);
    // The optimizer's numbers are neither a loss nor the policy (a supervised fine-tune has no policy).
    for (const tag of ['train/learning_rate', 'learning_rate', 'grad_norm', 'train/grad_norm', 'actor/lr'])
      expect([tag, groupOf(tag)]).toEqual([tag, 'Optimizer']);
    expect(groupOf('train/explained_variance')).toBe('Reward');
    expect(groupOf('explained_variance')).toBe('Reward');
    // A training_progress.json history keeps SB3's names under history/: the same roles.
    expect(classifyTag('history/rollout/ep_rew_mean')?.role).toBe('reward');
    expect(groupOf('history/rollout/ep_rew_mean')).toBe('Reward');
    expect(groupOf('history/rollout/ep_len_mean')).toBe('Performance');
    expect(classifyTag('history/train/entropy_loss')).toMatchObject({ role: 'entropy', transform: 'negate' });
    // An unknown train/ tag is not a loss for its namespace.
    expect(groupOf('train/some_counter')).toBe('Other');
    expect(groupOf('train/loss')).toBe('Loss');
    expect(groupOf('train/value_loss')).toBe('Loss');
  });

  it('returns null for unknown tags; they group by prefix', () => {
    expect(classifyTag('foo/bar_baz')).toBeNull();
    expect(groupOf('foo/bar_baz')).toBe('Other');
    expect(groupOf('timing_s/update_actor')).toBe('Performance');
    expect(groupOf('critic/advantages/max')).toBe('Reward');
    expect(groupOf('actor/is_log_ratio/std')).toBe('Policy');
  });

  it('carries seed healthy ranges and advice', () => {
    const clip = classifyTag('clipfrac')!;
    expect(boundValue(clip.healthy!.min!)).toBe(0.1);
    expect(boundValue(clip.healthy!.max!)).toBe(0.3);
    expect(boundValue(classifyTag('approx_kl')!.healthy!.max!, { target_kl: 0.05 })).toBe(0.05);
    expect(classifyTag('entropy')!.advice).toMatch(/temperature/);
    for (const spec of Object.values(ROLES)) expect(spec.description.length).toBeGreaterThan(5);
  });
});

describe('user-visible catalog text', () => {
  it('never cites internal references (seed NNN): provenance lives in code comments', () => {
    const visible = [
      ...Object.values(GROUP_LABELS),
      ...Object.values(ROLES).flatMap((s) => [s.label, s.description, s.healthy?.text ?? '', s.advice ?? '']),
    ];
    for (const text of visible) expect(text).not.toMatch(/seed \d/i);
  });
});
