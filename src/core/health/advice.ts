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
  'value-loss-divergence':
    'The critic is diverging (its loss grew by orders of magnitude): lower the critic learning rate, check reward scaling and normalisation, clip value updates or gradients, and for Q-learning check the target network is updated slowly (target_update_interval, tau).',
  'q-value-explosion':
    'Q values are exploding (the deadly triad: bootstrapping off-policy with function approximation): update the target network more slowly, lower the learning rate, use a Huber loss and check rewards and the discount factor.',
  'explained-variance-collapse':
    'The value function no longer predicts returns: the critic is diverging or the reward changed scale. Check reward scaling and normalisation and lower the value learning rate (or vf_coef).',
  'response-length-collapse':
    'Responses became much shorter within a few updates: look for a length penalty or a reward that favours short answers, and check EOS handling and the generation settings.',
  'response-length-explosion':
    'Responses became much longer within a few updates: check for reward hacking (a reward that grows with length), repetition, and the generation budget; consider a length penalty.',
  'reward-hacking':
    'Reward rising with KL and length jumping: likely reward hacking. Read sample responses, check the reward function or model for exploits, raise the KL coefficient and penalise length or truncated answers.',
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
