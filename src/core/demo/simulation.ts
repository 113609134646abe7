// A deterministic simulated PPO/GRPO run: healthy at first, then a KL blow-up and an entropy collapse.

import { seededRandom } from '../../shared/seeded-random';

/** Where the demo's pathologies start and end, in steps. */
export interface DemoSchedule {
  klBlowupStart: number;
  klBlowupEnd: number;
  entropyCollapseStart: number;
  stepsPerEpoch: number;
}

/** At the default 4 steps/s the KL blow-up starts at ~35 s and the entropy collapse at ~75 s. */
export const DEFAULT_SCHEDULE: DemoSchedule = {
  klBlowupStart: 140,
  klBlowupEnd: 420,
  entropyCollapseStart: 300,
  stepsPerEpoch: 20,
};

export const DEMO_CONFIG = {
  algorithm: 'PPO',
  model: 'demo-policy-1.3b',
  target_kl: 0.02,
  entropy_min: 0.5,
  max_grad_norm: 1.0,
  kl_coef: 0.1,
  clip_ratio: 0.2,
  learning_rate: 1e-5,
  ppo_epochs: 4,
  batch_size: 64,
} as const;

/** Plausible noise, the same every run (mulberry32). */
export const rng = seededRandom;

function gauss(r: () => number): number {
  const u = Math.max(r(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

const smoothstep = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

export interface StepMetrics {
  /** TensorBoard scalars for this step, tag → value. */
  scalars: Record<string, number>;
  /** Columns of the metrics CSV row for this step. */
  csv: Record<string, number>;
}

export class DemoSimulation {
  private readonly r: () => number;
  private rewardEma = 0;
  private epochRewards: number[] = [];
  private lastEpochReward = 0;

  constructor(
    seed = 42,
    readonly schedule: DemoSchedule = DEFAULT_SCHEDULE,
    readonly maxSteps = 1200,
  ) {
    this.r = rng(seed);
  }

  step(step: number): StepMetrics {
    const s = this.schedule;
    const n = (scale: number): number => gauss(this.r) * scale;
    const progress = step / this.maxSteps;

    const klRise = smoothstep((step - s.klBlowupStart) / 40) * (1 - smoothstep((step - s.klBlowupEnd) / 30));
    const approxKl = Math.max(
      1e-4,
      0.008 + 0.004 * Math.sin(step / 9) + n(0.0015) + klRise * (0.09 + n(0.012)),
    );
    const collapse = smoothstep((step - s.entropyCollapseStart) / 35);
    const entropy = Math.max(0.02, (1.65 - 0.5 * progress) * (1 - 0.88 * collapse) + n(0.03));
    const clipfrac = Math.min(0.95, Math.max(0, 0.18 + n(0.02) + klRise * 0.22 - collapse * 0.05));
    const temperature = Math.max(0.2, 1.0 + n(0.03) - collapse * 0.6);
    const spike = this.r() < 0.01 ? 2.5 + this.r() * 3 : 0;
    const gradNorm = Math.max(0.01, 0.45 + n(0.06) + klRise * 0.4 + spike);
    const lr = DEMO_CONFIG.learning_rate * (0.5 + 0.5 * Math.cos(Math.PI * Math.min(1, progress)));

    const learning = 1 - Math.exp(-step / 180);
    const rewardMean = -0.4 + 1.6 * learning * (1 - 0.35 * collapse) - klRise * 0.25;
    const rewardStd = Math.max(0.02, 0.35 * (1 - 0.6 * learning) * (1 - 0.7 * collapse) + n(0.01));
    const reward = rewardMean + n(rewardStd);
    this.rewardEma = step === 0 ? reward : 0.9 * this.rewardEma + 0.1 * reward;
    const policyLoss = -0.02 + n(0.01) + klRise * 0.05;
    const klPenalty = DEMO_CONFIG.kl_coef * approxKl;
    const valueLoss = Math.max(0.01, 0.6 * Math.exp(-step / 300) + 0.05 + n(0.02));

    const scalars: Record<string, number> = {
      'Train/Loss': policyLoss + klPenalty + 0.5 * valueLoss,
      'Train/PolicyLoss': policyLoss,
      'Train/ValueLoss': valueLoss,
      'Train/KLPenalty': klPenalty,
      'Train/AvgReward': reward,
      'Train/RewardStd': rewardStd,
      'Train/RewardVariance': rewardStd * rewardStd,
      approx_kl: approxKl,
      entropy,
      clipfrac,
      pg_grad_norm: gradNorm,
      current_temperature: temperature,
      learning_rate: lr,
      'Performance/Generation_TokensPerSec': Math.max(1, 850 + n(40) - collapse * 120),
      'System/GPU_Utilization': Math.min(100, Math.max(0, 86 + n(4))),
      'System/Memory_Percent': Math.min(100, 58 + progress * 12 + n(0.5)),
    };

    this.epochRewards.push(reward);
    if ((step + 1) % s.stepsPerEpoch === 0) {
      const avg = this.epochRewards.reduce((a, b) => a + b, 0) / this.epochRewards.length;
      const variance = this.epochRewards.reduce((a, b) => a + (b - avg) ** 2, 0) / this.epochRewards.length;
      scalars['Epoch/AvgReward'] = avg;
      scalars['Epoch/RewardVariance'] = variance;
      scalars['Epoch/RewardTrend'] = avg - this.lastEpochReward;
      this.lastEpochReward = avg;
      this.epochRewards = [];
    }

    const balancePenalty = Math.max(0, 0.3 * Math.exp(-step / 250) + n(0.01));
    const csv: Record<string, number> = {
      reward,
      reward_mean: this.rewardEma,
      absolute_score: reward + balancePenalty + 0.1,
      delta_score: n(0.05),
      balance_penalty: balancePenalty,
      temperature,
    };
    return { scalars, csv };
  }
}
