// Which resolved thresholds each health rule judges against: exposed beside an active alert as its own series.

import type { RuleId, ThresholdName } from '../health';

/** Rule → the threshold names (core/health/thresholds.ts) it compares with; rules without one are absent. */
export const RULE_THRESHOLDS: Readonly<Partial<Record<RuleId, readonly ThresholdName[]>>> = {
  'kl-above-target': ['target_kl'],
  'entropy-collapse': ['entropy_min'],
  'clip-fraction-out-of-band': ['clip_low', 'clip_high'],
  'grad-norm-spike': ['max_grad_norm'],
  'reward-plateau': ['plateau_epochs'],
  'reward-variance-high': ['reward_variance_max'],
  'response-truncation-rising': ['truncation_max'],
  'importance-ratio-off': ['importance_ratio_tolerance'],
  'generation-throughput-low': ['min_tokens_per_sec'],
  'gpu-util-low': ['gpu_util_min'],
  'memory-high': ['memory_max'],
  'gpu-memory-high': ['gpu_memory_max'],
  'stalled-run': ['stall_floor_s'],
  'entropy-collapse-low-temperature': ['entropy_min', 'temperature_min'],
  'kl-high-reward-falling': ['target_kl'],
  'clip-near-zero-slow-learning': ['clip_low'],
};

export function thresholdsOfRule(rule: string): readonly ThresholdName[] {
  return RULE_THRESHOLDS[rule as RuleId] ?? [];
}
