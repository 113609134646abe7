// The advice an alert shows, per rule: a rule about one catalog role shows that role's advice (one text, in the catalog).

import { ROLES, type Role } from '../../shared/catalog';
import type { RuleId } from './types';

/** The catalog's advice for a role; every role a rule watches has some (the advice test holds it to that). */
const adviceOf = (role: Role): string => ROLES[role].advice ?? '';

/** What to do about each rule's alert. Rules spanning several metrics keep their own text here. */
export const RULE_ADVICE: Readonly<Record<RuleId, string>> = {
  'non-finite':
    'A loss or reward became NaN/Inf: training is broken. Lower the learning rate, check the reward function and enable gradient clipping.',
  'kl-above-target': adviceOf('kl'),
  'entropy-collapse': adviceOf('entropy'),
  'clip-fraction-out-of-band': adviceOf('clip_fraction'),
  'grad-norm-spike': adviceOf('grad_norm'),
  'reward-plateau': adviceOf('reward'),
  'reward-variance-high': adviceOf('reward_variance'),
  'response-truncation-rising': adviceOf('response_truncation'),
  'importance-ratio-off': adviceOf('importance_ratio'),
  'generation-throughput-low': adviceOf('generation_throughput'),
  'gpu-util-low': adviceOf('gpu_util'),
  'memory-high': adviceOf('memory_pct'),
  'gpu-memory-high': adviceOf('gpu_memory_pct'),
  'stalled-run':
    'No new data for much longer than this run usually takes between writes: check the training process.',
  // The three combined signals: seed 004 §7's troubleshooting table.
  'entropy-collapse-low-temperature':
    'Entropy collapsed while the sampling temperature is low: the temperature controller is too suppressive. Lower `qps_sensitivity` or raise `min_temperature`.',
  'kl-high-reward-falling':
    'KL is high while reward falls: the policy is diverging. Tighten the KL constraint or revisit the reward weights.',
  'clip-near-zero-slow-learning':
    'Clip fraction near zero while learning is slow: increase the learning rate or decrease `kl_coef` to allow larger updates.',
};
