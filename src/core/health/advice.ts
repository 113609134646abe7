// The advice an alert shows, per rule and run scope: a rule about one catalog role shows that role's advice (one text, in the catalog).

import { roleText, type Role, type RunScope } from '../../shared/catalog';
import { RULE_IDS, type RuleId } from './types';

/** The rules about one catalog role: their advice is the role's, in the run's world. */
const RULE_ROLE: Partial<Record<RuleId, Role>> = {
  'kl-above-target': 'kl',
  'entropy-collapse': 'entropy',
  'clip-fraction-out-of-band': 'clip_fraction',
  'grad-norm-spike': 'grad_norm',
  'reward-plateau': 'reward',
  'reward-variance-high': 'reward_variance',
  'response-truncation-rising': 'response_truncation',
  'importance-ratio-off': 'importance_ratio',
  'generation-throughput-low': 'generation_throughput',
  'gpu-util-low': 'gpu_util',
  'memory-high': 'memory_pct',
  'gpu-memory-high': 'gpu_memory_pct',
};

/** Rules spanning several metrics keep their own text here. */
const OWN_ADVICE: Partial<Record<RuleId, string>> = {
  'non-finite':
    'A loss or reward became NaN/Inf: training is broken. Lower the learning rate, check the reward function and enable gradient clipping.',
  'stalled-run':
    'No new data for much longer than this run usually takes between writes: check the training process.',
  'learning-stagnation':
    'Nothing is being learnt: check the learning-rate schedule (a rate of 0), that gradients flow, and that the reward still varies between samples.',
  'trainer-exited':
    'The process writing this run is gone and the run did not finish: look at its log for the error (or an out-of-memory kill), then resume from the last checkpoint.',
  // The three combined signals: seed 004 §7's troubleshooting table.
  'entropy-collapse-low-temperature':
    'Entropy collapsed while the sampling temperature is low: the temperature controller is too suppressive. Lower `qps_sensitivity` or raise `min_temperature`.',
  'kl-high-reward-falling':
    'KL is high while reward falls: the policy is diverging. Tighten the KL constraint or revisit the reward weights.',
  'clip-near-zero-slow-learning':
    'Clip fraction near zero while learning is slow: increase the learning rate or decrease `kl_coef` to allow larger updates.',
};

/** What to do about a rule's alert on a run of `scope` (classic RL runs get classic wording). */
export function ruleAdvice(rule: RuleId, scope: RunScope): string {
  const role = RULE_ROLE[rule];
  return (role ? roleText(role, scope).advice : OWN_ADVICE[rule]) ?? '';
}

/** What to do about each rule's alert on an LLM RLHF run (the catalog's own wording). */
export const RULE_ADVICE: Readonly<Record<RuleId, string>> = Object.fromEntries(
  RULE_IDS.map((id) => [id, ruleAdvice(id, 'llm')]),
) as Record<RuleId, string>;
