// Which thresholds each health rule judges against: /metrics exposes them beside an alert, incident reports cite them.

import type { ThresholdName } from './thresholds';
import type { RuleId } from './types';

/** Rule → the threshold names (thresholds.ts) it compares with; rules without one are absent (grad-norm spikes are
 * judged against the run's own recent median, never max_grad_norm). */
export const RULE_THRESHOLDS: Readonly<Partial<Record<RuleId, readonly ThresholdName[]>>> = {
  'kl-above-target': ['target_kl'],
  'entropy-collapse': ['entropy_min'],
  'clip-fraction-out-of-band': ['clip_low', 'clip_high'],
  'reward-plateau': ['plateau_epochs'],
  'reward-variance-high': ['reward_variance_max'],
  'response-truncation-rising': ['truncation_max'],
  'importance-ratio-off': ['importance_ratio_tolerance'],
  'generation-throughput-low': ['min_tokens_per_sec'],
  'gpu-util-low': ['gpu_util_min'],
  'memory-high': ['memory_max'],
  'gpu-memory-high': ['gpu_memory_max'],
  'stalled-run': ['stall_alert_floor_s', 'stall_alert_gap_factor'],
  'entropy-collapse-low-temperature': ['entropy_min', 'temperature_min'],
  'kl-high-reward-falling': ['target_kl'],
  'clip-near-zero-slow-learning': ['clip_low'],
};

export function thresholdsOfRule(rule: string): readonly ThresholdName[] {
  return RULE_THRESHOLDS[rule as RuleId] ?? [];
}
