// Each health rule's title in words, for reports and headings (the rule id stays the key everywhere else).

import type { JobRule } from '../../shared/job-types';
import type { RuleId } from './types';

export const RULE_TITLES: Readonly<Record<RuleId, string>> = {
  'non-finite': 'NaN / Inf value',
  'kl-above-target': 'KL above target',
  'entropy-collapse': 'Entropy collapse',
  'clip-fraction-out-of-band': 'Clip fraction out of band',
  'grad-norm-spike': 'Gradient-norm spike',
  'reward-plateau': 'Reward plateau',
  'reward-variance-high': 'Reward variance high',
  'response-truncation-rising': 'Response truncation rising',
  'importance-ratio-off': 'Importance ratio far from 1',
  'generation-throughput-low': 'Generation throughput low',
  'gpu-util-low': 'GPU utilisation low',
  'memory-high': 'System memory high',
  'gpu-memory-high': 'GPU memory nearly full',
  'learning-stagnation': 'Learning stopped',
  'stalled-run': 'Run stalled',
  'trainer-exited': 'Trainer exited',
  'entropy-collapse-low-temperature': 'Entropy collapse at low temperature',
  'kl-high-reward-falling': 'KL high while reward falls',
  'clip-near-zero-slow-learning': 'Clip fraction near zero, slow learning',
  'value-loss-divergence': 'Value / critic loss diverging',
  'q-value-explosion': 'Q values exploding',
  'explained-variance-collapse': 'Explained variance collapsed',
  'response-length-collapse': 'Response length collapse',
  'response-length-explosion': 'Response length explosion',
  'reward-hacking': 'Likely reward hacking',
};

/** The cross-node rules of a job (core/jobs), titled as the per-run ones. */
export const JOB_RULE_TITLES: Readonly<Record<JobRule, string>> = {
  'job-node-silent': 'Node silent',
  'job-node-exited': 'Node trainer exited',
  'job-agent-unreachable': 'Node agent unreachable',
  'job-step-skew': 'Node behind (straggler)',
  'job-node-gpus-idle': 'Node GPUs idle',
};

/** Any alert's rule in words (a run rule or a job rule); an unknown id as it is. */
export function ruleTitle(rule: string): string {
  return (
    (RULE_TITLES as Record<string, string>)[rule] ?? (JOB_RULE_TITLES as Record<string, string>)[rule] ?? rule
  );
}
