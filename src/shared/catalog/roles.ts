// The metric catalog's role table: canonical roles with group, description, healthy range and advice.
//
// Descriptions and advice are shown to users: provenance (which seed document a convention comes
// from) stays in these code comments, never in the strings.

/**
 * Chart groups in the seeds' order (seed 000 "Metric Groups", seed 003 plots), with the optimizer's own
 * numbers (learning rate, gradient norm: not a loss, not the policy) and progress counters (epoch, steps,
 * FLOPs) as their own groups; unknown tags go to Other.
 */
export const GROUPS = [
  'Reward',
  'Loss',
  'Policy',
  'Optimizer',
  'Performance',
  'Progress',
  'System',
  'Other',
] as const;
export type MetricGroup = (typeof GROUPS)[number];

/** Groups whose points mean the trainer is training (a stall or an idle GPU only matters then). */
export const TRAINING_GROUPS: ReadonlySet<MetricGroup> = new Set<MetricGroup>([
  'Reward',
  'Loss',
  'Policy',
  'Optimizer',
]);

export const GROUP_LABELS: Record<MetricGroup, string> = {
  Reward: 'Reward',
  Loss: 'Loss',
  Policy: 'Policy / KL & entropy',
  Optimizer: 'Optimizer / learning rate & gradients',
  Performance: 'Performance',
  Progress: 'Progress',
  System: 'System',
  Other: 'Other',
};

export type Role =
  | 'kl'
  | 'kl_penalty'
  | 'kl_coef'
  | 'entropy'
  | 'clip_fraction'
  | 'clip_fraction_detail'
  | 'clip_range'
  | 'grad_norm'
  | 'reward'
  | 'reward_std'
  | 'reward_variance'
  | 'reward_min'
  | 'reward_max'
  | 'reward_trend'
  | 'balance_penalty'
  | 'advantage'
  | 'value_estimate'
  | 'explained_variance'
  | 'loss'
  | 'loss_trend'
  | 'policy_loss'
  | 'value_loss'
  | 'learning_rate'
  | 'response_truncation'
  | 'response_length'
  | 'importance_ratio'
  | 'generation_throughput'
  | 'backprop_throughput'
  | 'timing'
  | 'fps'
  | 'gpu_util'
  | 'cpu_pct'
  | 'memory_pct'
  | 'gpu_memory_pct'
  | 'sampling_temperature'
  | 'gpu_temperature'
  | 'episode_length'
  | 'success_rate'
  | 'progress';

/** Threshold names a healthy range can refer to; resolved per run (see src/core/health/thresholds.ts). */
export type ThresholdKey =
  | 'target_kl'
  | 'entropy_min'
  | 'clip_low'
  | 'clip_high'
  | 'max_grad_norm'
  | 'reward_variance_max'
  | 'min_tokens_per_sec'
  | 'gpu_util_min'
  | 'memory_max'
  | 'gpu_memory_max'
  | 'temperature_min'
  | 'temperature_max'
  | 'importance_ratio_tolerance'
  | 'truncation_max';

/** A bound is a fixed number or a named threshold (with the seed's default) so config can move it. */
export type Bound =
  | { kind: 'fixed'; value: number }
  | {
      kind: 'threshold';
      key: ThresholdKey;
      fallback: number;
      /** The rule derives its own line from the run unless the user or the run's config set this threshold (the
       * entropy floor from the early entropy, KL from its own level): the fallback is then no healthy line. */
      derived?: true;
    };

export interface HealthyRange {
  min?: Bound;
  max?: Bound;
  text: string;
}

/** How a raw value becomes the role's value: SB3 logs entropy as `entropy_loss` = −entropy. */
export type Transform = 'identity' | 'negate';

export interface RoleSpec {
  group: MetricGroup;
  label: string;
  /** Description and advice as they read on an LLM RLHF run (the seeds' world). */
  description: string;
  healthy: HealthyRange | null;
  advice: string | null;
  /** The wording on a classic RL run (SB3, DQN, Dreamer…), where the LLM wording does not apply. */
  classic?: { description?: string; advice?: string | null };
}

const th = (key: ThresholdKey, fallback: number): Bound => ({ kind: 'threshold', key, fallback });
const derivedTh = (key: ThresholdKey, fallback: number): Bound => ({
  kind: 'threshold',
  key,
  fallback,
  derived: true,
});

export const ROLES: Record<Role, RoleSpec> = {
  // seed 004 §2, seed 002 `actor/ppo_kl`, seed 003 `kl_divergence`.
  kl: {
    group: 'Policy',
    label: 'KL divergence',
    description: 'Approximate KL divergence π_new vs π_old; measures policy update magnitude.',
    healthy: { max: derivedTh('target_kl', 0.02), text: 'below target_kl' },
    advice:
      'KL above its target, or far above its own level where none is set: increase `kl_coef` or reduce the number of PPO epochs.',
    classic: {
      advice:
        'KL above target_kl or far above its own level: lower the learning rate or the epochs per update, or set `target_kl` to stop updates early.',
    },
  },
  // seed 000 `Train/KLPenalty` (verl's `actor/kl_loss` is the KL itself, before its coefficient: role `kl`).
  kl_penalty: {
    group: 'Loss',
    label: 'KL penalty',
    description: 'KL divergence penalty term of the loss.',
    healthy: null,
    advice: null,
  },
  // seed 002.
  kl_coef: {
    group: 'Policy',
    label: 'KL coefficient',
    description: 'Coefficient multiplying the KL loss term.',
    healthy: null,
    advice: null,
  },
  // seed 004 §2, seed 002 `actor/entropy_loss` ("Average policy entropy"), seed 003 `entropy`.
  entropy: {
    group: 'Policy',
    label: 'Entropy',
    description: 'Policy entropy; higher = more randomness in token selection (exploration measure).',
    healthy: { min: derivedTh('entropy_min', 0.5), text: 'stays above entropy_min' },
    advice: 'A sustained drop means the policy is over-constrained: check the temperature pulses.',
    classic: {
      description: 'Policy entropy; higher = more randomness in action selection (exploration measure).',
      advice:
        'A sustained drop means the policy stopped exploring: raise the entropy coefficient (`ent_coef`).',
    },
  },
  // seed 004 `clipfrac`, seed 002 `actor/pg_clipfrac`.
  clip_fraction: {
    group: 'Policy',
    label: 'Clip fraction',
    description: 'Fraction of tokens where PPO clipping was active; high = strong regularization.',
    healthy: { min: th('clip_low', 0.1), max: th('clip_high', 0.3), text: 'between clip_low and clip_high' },
    advice: 'When many updates are clipped, lower the learning rate or `clip_ratio`.',
    classic: {
      description: 'Fraction of samples where PPO clipping was active; high = strong regularization.',
      advice: 'When many updates are clipped, lower the learning rate or the clip range (`clip_range`).',
    },
  },
  clip_fraction_detail: {
    group: 'Policy',
    label: 'Clip ratio (per side)',
    description: 'Per-side PPO clipping statistics (TRL `clip_ratio/low_*`, `clip_ratio/high_*`).',
    healthy: null,
    advice: null,
  },
  // seed 001 `epsilon`.
  clip_range: {
    group: 'Policy',
    label: 'Clip range',
    description: 'PPO clipping epsilon in force.',
    healthy: null,
    advice: null,
  },
  // seed 004 `pg_grad_norm`, seed 002 `actor/grad_norm`.
  grad_norm: {
    group: 'Optimizer',
    label: 'Gradient norm',
    description: 'Global gradient norm; monitors gradient scale for stability.',
    // No band at max_grad_norm: HF/TRL log the norm before clipping, so a level above it is normal.
    healthy: { text: 'steady, without sudden spikes over its own recent median' },
    advice: 'On sudden spikes, reduce the batch size or the learning rate.',
  },
  // seed 000 `Train/AvgReward`, `Epoch/AvgReward`; seed 001 `rewards/*_mean`; seed 002 `critic/rewards/mean`.
  reward: {
    group: 'Reward',
    label: 'Reward',
    description: 'Average reward for the batch / epoch; should increase over epochs.',
    healthy: { text: 'should increase over time' },
    advice:
      'When reward stops improving, consider early stopping, or revisit the learning rate and the reward.',
  },
  // seed 000.
  reward_std: {
    group: 'Reward',
    label: 'Reward std',
    description: 'Standard deviation of rewards (consistency measure).',
    healthy: null,
    advice: null,
  },
  // seed 000.
  reward_variance: {
    group: 'Reward',
    label: 'Reward variance',
    description: 'Variance of rewards (lower = more consistent).',
    healthy: {
      max: th('reward_variance_max', 0.01),
      text: 'below reward_variance_max, for consistent training',
    },
    advice: 'When rewards vary widely, check the reward function for noise or lower the learning rate.',
  },
  // seed 000.
  reward_min: {
    group: 'Reward',
    label: 'Reward min',
    description: 'Minimum reward in batch.',
    healthy: null,
    advice: null,
  },
  // seed 000.
  reward_max: {
    group: 'Reward',
    label: 'Reward max',
    description: 'Maximum reward in batch.',
    healthy: null,
    advice: null,
  },
  // seed 000.
  reward_trend: {
    group: 'Reward',
    label: 'Reward trend',
    description: 'Change in reward from previous epoch (positive = improving).',
    healthy: { text: 'Should be positive and decreasing (approaching 0)' },
    advice: null,
  },
  // seed 004.
  balance_penalty: {
    group: 'Reward',
    label: 'Balance penalty',
    description: 'Load-balance penalty of the reward breakdown.',
    healthy: { text: 'Near zero once balanced' },
    advice: 'If it stays high, raise the load-balance penalties.',
  },
  // seed 002.
  advantage: {
    group: 'Reward',
    label: 'Advantage',
    description: 'Token-level advantage (drives actor updates).',
    healthy: null,
    advice: null,
  },
  // seed 002.
  value_estimate: {
    group: 'Reward',
    label: 'Value / return',
    description: 'Critic value prediction or discounted return.',
    healthy: null,
    advice: null,
  },
  // seed 002.
  // With the critic's other numbers (seed 002 `critic/*`): how well values predict returns, not a loss.
  explained_variance: {
    group: 'Reward',
    label: 'Explained variance',
    description: 'Value function explained variance; 1.0 = perfect predictions, 0.0 = no predictive power.',
    healthy: null,
    advice: null,
  },
  // seed 000 `Train/Loss`, seed 003 `loss`.
  loss: {
    group: 'Loss',
    label: 'Loss',
    description: 'Total training loss (policy loss + KL penalty); should decrease and stabilize.',
    classic: { description: 'Total training loss; should decrease and stabilize.' },
    healthy: { text: 'Should decrease and stabilize' },
    advice: 'If loss does not fall, check the learning rate.',
  },
  // seed 000.
  loss_trend: {
    group: 'Loss',
    label: 'Loss trend',
    description: 'Change in loss from previous epoch (positive = improving, as loss should decrease).',
    healthy: null,
    advice: null,
  },
  // seed 000, 002.
  policy_loss: {
    group: 'Loss',
    label: 'Policy loss',
    description: 'PPO policy gradient loss; main objective being minimized.',
    healthy: null,
    advice: null,
  },
  value_loss: {
    group: 'Loss',
    label: 'Value loss',
    description: 'Critic (value function) loss.',
    healthy: null,
    advice: null,
  },
  // seed 002, 003.
  learning_rate: {
    group: 'Optimizer',
    label: 'Learning rate',
    description: 'Current learning rate for the optimizer.',
    healthy: null,
    advice: null,
  },
  // seed 002 `response_length/clip_ratio`, `completion/truncated_frac`; TRL `completions/clipped_ratio`.
  response_truncation: {
    group: 'Performance',
    label: 'Response truncation',
    description: 'Fraction of responses hitting max_response_length (truncated).',
    healthy: { max: th('truncation_max', 0.2), text: 'low and not rising' },
    advice: 'Responses are hitting the generation budget: raise the max response length or penalise length.',
  },
  // seed 002.
  response_length: {
    group: 'Performance',
    label: 'Response length',
    description: 'Number of response tokens per sample.',
    healthy: null,
    advice: null,
  },
  // seed 002 `actor/is_ratio/mean`.
  importance_ratio: {
    group: 'Policy',
    label: 'Importance ratio',
    description: 'Mean importance-sampling ratio π_new/π_old; should be near 1.0.',
    healthy: { text: 'near 1.0' },
    advice:
      'A ratio far from 1.0 means unstable updates: reduce the learning rate or PPO epochs, or tighten clipping.',
  },
  // seed 000 `Performance/Generation_TokensPerSec`.
  generation_throughput: {
    group: 'Performance',
    label: 'Generation tokens/s',
    description: 'Real-time generation speed.',
    healthy: { min: th('min_tokens_per_sec', 1), text: 'at least min_tokens_per_sec' },
    advice: 'When generation is this slow, consider enabling MLX.',
  },
  // seed 000.
  backprop_throughput: {
    group: 'Performance',
    label: 'Backprop tokens/s',
    description: 'Backpropagation speed; monitor for training efficiency.',
    healthy: null,
    advice: null,
  },
  // seed 002 `timing_s/*`.
  timing: {
    group: 'Performance',
    label: 'Timing',
    description: 'Wall-clock timing for a phase of each training step.',
    healthy: null,
    advice: null,
  },
  // seed 003 `samples_per_second`, SB3 `time/fps`.
  fps: {
    group: 'Performance',
    label: 'Throughput (fps / samples/s)',
    description: 'Processing speed (samples or frames per second).',
    healthy: null,
    advice: null,
  },
  // seed 000 `System/*`.
  gpu_util: {
    group: 'System',
    label: 'GPU utilisation',
    description: 'Estimated GPU/Neural Engine utilization (%).',
    healthy: { min: th('gpu_util_min', 50), text: 'above gpu_util_min, for efficient GPU usage' },
    advice: 'When the GPU waits, look for a data-loading or generation bottleneck.',
  },
  // seed 000.
  cpu_pct: {
    group: 'System',
    label: 'CPU %',
    description: 'Overall CPU usage percentage.',
    healthy: null,
    advice: null,
  },
  // seed 000.
  memory_pct: {
    group: 'System',
    label: 'Memory %',
    description: 'System memory usage percentage.',
    healthy: { max: th('memory_max', 90), text: 'below memory_max (out-of-memory risk above)' },
    advice: 'An out-of-memory crash is near: reduce the batch size or free host memory.',
  },
  // seed 000.
  gpu_memory_pct: {
    group: 'System',
    label: 'GPU memory %',
    description: 'GPU/MPS memory usage percentage.',
    healthy: { max: th('gpu_memory_max', 95), text: 'below gpu_memory_max (nearly full above)' },
    advice:
      'GPU memory nearly full: reduce micro batch size or sequence length, or enable gradient checkpointing.',
  },
  // seed 004 `current_temperature` (sampling temperature controller) — not the GPU's temperature.
  sampling_temperature: {
    group: 'Policy',
    label: 'Sampling temperature',
    description: 'Sampling temperature from the temperature controller.',
    healthy: {
      min: th('temperature_min', 0.5),
      max: th('temperature_max', 2),
      text: 'between temperature_min and temperature_max (outside pulses)',
    },
    advice: 'Pulses may briefly exceed the maximum; make sure they coincide with stagnation.',
  },
  gpu_temperature: {
    group: 'System',
    label: 'GPU temperature',
    description: 'GPU temperature (°C).',
    healthy: null,
    advice: null,
  },
  // seed 002.
  episode_length: {
    group: 'Performance',
    label: 'Episode length',
    description: 'Mean episode length.',
    healthy: null,
    advice: null,
  },
  // seed 000 "Metric Groups", seed 003 plots.
  success_rate: {
    group: 'Reward',
    label: 'Success rate',
    description: 'Fraction of samples in this batch considered successful.',
    healthy: null,
    advice: null,
  },
  // Counters every trainer logs beside its metrics (HF `train/epoch`, `train/total_flos`; SB3 `train/n_updates`,
  // `time/total_timesteps`; training_progress.json `total_steps`, `training_sessions`).
  progress: {
    group: 'Progress',
    label: 'Progress',
    description: 'How far training has come (steps, epochs, updates, samples or FLOPs so far).',
    healthy: null,
    advice: null,
  },
};

/** A bound's value, looked up in resolved thresholds when it names one. */
export function boundValue(b: Bound, thresholds?: Partial<Record<ThresholdKey, number>>): number {
  return b.kind === 'fixed' ? b.value : (thresholds?.[b.key] ?? b.fallback);
}

/** Whether a bound is a line at all given the thresholds set (by the user or the run's config): a derived one is
 * not while its threshold is unset. */
export function boundDrawn(b: Bound, thresholds?: Partial<Record<ThresholdKey, number>>): boolean {
  return !(b.kind === 'threshold' && b.derived && thresholds?.[b.key] === undefined);
}
