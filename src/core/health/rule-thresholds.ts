// Which thresholds each health rule judges against: /metrics exposes them beside an alert, incident reports cite them.

import { ROLES } from '../../shared/catalog';
import { formatNumber } from '../../shared/format';
import type { ThresholdName, Thresholds } from './thresholds';
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

/** Thresholds whose rule derives its own line from the run while they are unset (the catalog marks their bounds):
 * unset, they are not in force, so no alert cites them as defaults. */
const DERIVED_WHEN_UNSET: ReadonlySet<ThresholdName> = new Set(
  Object.values(ROLES).flatMap((r) =>
    [r.healthy?.min, r.healthy?.max].flatMap((b) => (b?.kind === 'threshold' && b.derived ? [b.key] : [])),
  ),
);

/**
 * What an alert of `rule` adds when it judged against thresholds nobody set (" (clip_high 0.3: rlwatch's default,
 * not set by you or the run's config)"), so the alert card and the notification say so, not only report.md; '' when
 * every threshold in force was set.
 */
export function defaultsNote(
  rule: RuleId,
  th: Thresholds,
  explicit: (name: ThresholdName) => boolean,
): string {
  const unset = thresholdsOfRule(rule).filter((k) => !explicit(k) && !DERIVED_WHEN_UNSET.has(k));
  if (unset.length === 0) return '';
  const named = unset.map((k) => `${k} ${formatNumber(th[k])}`).join(', ');
  return ` (${named}: rlwatch's default${unset.length > 1 ? 's' : ''}, not set by you or the run's config)`;
}
