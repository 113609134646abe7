// Per-tag health rules as small pure state machines: each point yields bad / ok / hold; the gate adds hysteresis.

import type { Role } from '../../shared/catalog';
import { Window, mad } from './stats';
import type { Thresholds } from './thresholds';
import type { Level, RuleId, Severity } from './types';
import { formatNumber } from '../../shared/format';

export interface RuleContext {
  th: Thresholds;
  tag: string;
  /** Tag logs one point per epoch (`Epoch/*`): each point is an epoch for plateau/variance rules. */
  epochLevel: boolean;
  /** A training metric arrived recently (data time): an idle GPU matters only then. */
  trainingActive: boolean;
}

export interface PointRule<S> {
  id: RuleId;
  /** Consecutive bad points to raise (and critical points to escalate). */
  raiseAfter: number;
  /** Consecutive ok points to clear. */
  clearAfter: number;
  applies(role: Role | null, tag: string, epochLevel: boolean): boolean;
  init(): S;
  observe(state: S, value: number, ctx: RuleContext): Level;
}

const HOLD: Level = { kind: 'hold' };
const OK: Level = { kind: 'ok' };
/** A bad level: `value` is what tripped the rule, and the message quotes it. */
const bad = (severity: Severity, value: number, message: string): Level => ({
  kind: 'bad',
  severity,
  value,
  message,
});
const fmt = (v: number): string => formatNumber(v);

const LOSS_OR_REWARD: ReadonlySet<Role> = new Set<Role>([
  'loss',
  'policy_loss',
  'value_loss',
  'kl_penalty',
  'reward',
  'reward_std',
  'reward_variance',
  'reward_min',
  'reward_max',
  'kl',
  'entropy',
  'grad_norm',
]);

/** NaN/Inf in any loss or reward: one point is enough, and it is critical (training is broken). */
export const nonFinite: PointRule<null> = {
  id: 'non-finite',
  raiseAfter: 1,
  clearAfter: 5,
  applies: (role, tag) => (role !== null ? LOSS_OR_REWARD.has(role) : /loss|reward/i.test(tag)),
  init: () => null,
  observe: (_s, v, ctx) =>
    Number.isFinite(v)
      ? OK
      : bad('critical', v, `${ctx.tag} is ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`),
};

/** KL above target_kl (seed 004); > 2× target is critical. Clears below 0.8× target. */
export const klAboveTarget: PointRule<null> = {
  id: 'kl-above-target',
  raiseAfter: 3,
  clearAfter: 5,
  applies: (role) => role === 'kl',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const t = th.target_kl;
    if (v > 2 * t) return bad('critical', v, `${tag} = ${fmt(v)} is more than twice target_kl ${fmt(t)}`);
    if (v > t) return bad('warning', v, `${tag} = ${fmt(v)} above target_kl ${fmt(t)}`);
    return v < 0.8 * t ? OK : HOLD;
  },
};

interface EntropyState {
  w: Window;
  peak: number;
  n: number;
}

/** Entropy below entropy_min, or a sustained drop to < 50 % of its best rolling median. */
export const entropyCollapse: PointRule<EntropyState> = {
  id: 'entropy-collapse',
  raiseAfter: 3,
  clearAfter: 5,
  applies: (role) => role === 'entropy',
  init: () => ({ w: new Window(10), peak: -Infinity, n: 0 }),
  observe: (s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v);
    s.n++;
    const med = s.w.median();
    // The peak is of rolling medians (not raw points) so one noisy high point cannot fake a drop.
    if (s.n >= 10) s.peak = Math.max(s.peak, med);
    const min = th.entropy_min;
    if (v < min) {
      const sev: Severity = v < 0.5 * min ? 'critical' : 'warning';
      return bad(sev, v, `${tag} = ${fmt(v)} below entropy_min ${fmt(min)}`);
    }
    const dropped = s.n >= 20 && s.peak > 0 && med < 0.5 * s.peak;
    if (dropped) return bad('warning', med, `${tag} fell to ${fmt(med)}, under half its peak ${fmt(s.peak)}`);
    const recovered = v >= 1.1 * min && !(s.peak > 0 && med < 0.6 * s.peak);
    return recovered ? OK : HOLD;
  },
};

interface ClipState {
  w: Window;
  sawNonZero: boolean;
}

/** Clip fraction outside 0.1–0.3 (seed 004), judged on the median of 5 points. */
export const clipBand: PointRule<ClipState> = {
  id: 'clip-fraction-out-of-band',
  raiseAfter: 3,
  clearAfter: 5,
  applies: (role) => role === 'clip_fraction',
  init: () => ({ w: new Window(5), sawNonZero: false }),
  observe: (s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v);
    if (v !== 0) s.sawNonZero = true;
    if (s.w.length < 5) return HOLD;
    const med = s.w.median();
    const { clip_low: lo, clip_high: hi } = th;
    if (med > hi)
      return bad(med > 2 * hi ? 'critical' : 'warning', med, `${tag} median ${fmt(med)} above ${fmt(hi)}`);
    // Exactly 0 on every point means clipping never engages (one on-policy update per batch, as
    // TRL GRPO does by default): the ratio is identically 1, not a fault of the band.
    if (med < lo && s.sawNonZero) return bad('warning', med, `${tag} median ${fmt(med)} below ${fmt(lo)}`);
    const margin = 0.1 * (hi - lo);
    return med >= lo + margin && med <= hi - margin ? OK : HOLD;
  },
};

interface GradState {
  hist: Window;
  spikes: number[];
}

/** A single point this many times the rolling median is no longer clipping at work: it raises alone. */
const GRAD_BLOWUP_FACTOR = 10;

/**
 * Gradient-norm spikes judged against the run's own recent history, never against max_grad_norm:
 * HF/TRL log `grad_norm` before clipping, so a steady level above the clip value is normal. A spike
 * is a robust z-score > 6 vs median/MAD of the last 50 points and > 1.5× the median; one spike is
 * the clipping doing its job, so it takes 2 within 20 points to raise, or one point
 * GRAD_BLOWUP_FACTOR× the median.
 */
export const gradNormSpike: PointRule<GradState> = {
  id: 'grad-norm-spike',
  raiseAfter: 1,
  clearAfter: 10,
  applies: (role) => role === 'grad_norm',
  init: () => ({ hist: new Window(50), spikes: [] }),
  observe: (s, v, { tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    let spike = false;
    let med = NaN;
    if (s.hist.length >= 20) {
      med = s.hist.median();
      const sigma = Math.max(mad(s.hist.values(), med), 1e-3 * Math.abs(med), 1e-12);
      spike = (v - med) / sigma > 6 && v > 1.5 * med;
    }
    s.spikes.push(spike ? 1 : 0);
    if (s.spikes.length > 20) s.spikes.shift();
    s.hist.push(v);
    const n = s.spikes.reduce((a, b) => a + b, 0);
    if (spike && (n >= 2 || (med > 0 && v >= GRAD_BLOWUP_FACTOR * med)))
      return bad('warning', v, `${tag} = ${fmt(v)}, ${fmt(v / med)}× its recent median ${fmt(med)}`);
    return n === 0 ? OK : HOLD;
  },
};

interface PlateauState {
  sum: number;
  count: number;
  best: number;
  blocks: number;
  since: number;
}

/** Reward plateau: no improvement of the epoch (or block-of-steps) mean for plateau_epochs (seed 003: 5). */
export const rewardPlateau: PointRule<PlateauState> = {
  id: 'reward-plateau',
  raiseAfter: 1,
  clearAfter: 1,
  applies: (role) => role === 'reward',
  init: () => ({ sum: 0, count: 0, best: -Infinity, blocks: 0, since: 0 }),
  observe: (s, v, { th, tag, epochLevel }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.sum += v;
    s.count++;
    const size = epochLevel ? 1 : Math.max(1, Math.round(th.plateau_block));
    if (s.count < size) return HOLD;
    const mean = s.sum / s.count;
    s.sum = 0;
    s.count = 0;
    s.blocks++;
    // 1 % of the best so far (absolute floor) so a noisy block mean does not count as progress.
    const minDelta = Math.max(1e-9, 0.01 * Math.abs(s.best));
    if (mean > s.best + minDelta || s.blocks === 1) {
      s.best = Math.max(s.best, mean);
      s.since = 0;
      return OK;
    }
    s.since++;
    const unit = epochLevel ? 'epochs' : `blocks of ${size} points`;
    return s.since >= th.plateau_epochs
      ? bad('warning', s.best, `${tag} has not improved on ${fmt(s.best)} for ${s.since} ${unit}`)
      : HOLD;
  },
};

interface WarmWindow {
  w: Window;
  n: number;
}

/**
 * Reward variance above 0.01 (seed 000 states it for `Epoch/RewardVariance`). Only epoch-level tags:
 * a per-batch variance is GRPO's learning signal, high by design early on. The first 5 epochs are
 * warm-up.
 */
export const rewardVariance: PointRule<WarmWindow> = {
  id: 'reward-variance-high',
  raiseAfter: 3,
  clearAfter: 3,
  applies: (role, _tag, epochLevel) => role === 'reward_variance' && epochLevel,
  init: () => ({ w: new Window(3), n: 0 }),
  observe: (s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v);
    if (++s.n <= 5) return HOLD;
    const med = s.w.median();
    const max = th.reward_variance_max;
    if (med > max) return bad('warning', med, `${tag} = ${fmt(med)} above ${fmt(max)}`);
    return med < 0.8 * max ? OK : HOLD;
  },
};

interface TruncState {
  w: Window;
  baseline: number;
}

/** Response truncation rising: median of 5 ≥ truncation_max and ≥ 0.1 above its lowest level. */
export const truncationRising: PointRule<TruncState> = {
  id: 'response-truncation-rising',
  raiseAfter: 3,
  clearAfter: 5,
  applies: (role) => role === 'response_truncation',
  init: () => ({ w: new Window(5), baseline: Infinity }),
  observe: (s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v);
    if (s.w.length < 5) return HOLD;
    const med = s.w.median();
    s.baseline = Math.min(s.baseline, med);
    const max = th.truncation_max;
    if (med >= max && med >= s.baseline + 0.1)
      return bad(
        med >= 0.5 ? 'critical' : 'warning',
        med,
        `${tag} rose to ${fmt(med)} from ${fmt(s.baseline)}`,
      );
    return med < 0.75 * max || med < s.baseline + 0.05 ? OK : HOLD;
  },
};

/** Importance ratio far from 1 (seed 002: "should be near 1.0"). */
export const importanceRatio: PointRule<null> = {
  id: 'importance-ratio-off',
  raiseAfter: 3,
  clearAfter: 5,
  applies: (role) => role === 'importance_ratio',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const d = Math.abs(v - 1);
    const tol = th.importance_ratio_tolerance;
    if (d > Math.max(0.5, 2.5 * tol)) return bad('critical', v, `${tag} = ${fmt(v)}, far from 1`);
    if (d > tol) return bad('warning', v, `${tag} = ${fmt(v)}, more than ${fmt(tol)} from 1`);
    return d < tol / 2 ? OK : HOLD;
  },
};

/** Generation throughput below 1 token/s (seed 000). */
export const lowThroughput: PointRule<null> = {
  id: 'generation-throughput-low',
  raiseAfter: 3,
  clearAfter: 3,
  applies: (role) => role === 'generation_throughput',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const min = th.min_tokens_per_sec;
    if (v < min) return bad('warning', v, `${tag} = ${fmt(v)} tokens/s, below ${fmt(min)}`);
    return v >= 1.2 * min ? OK : HOLD;
  },
};

/** GPU utilisation below 50 % while training (seed 000), on the median of 5 samples. */
export const gpuIdle: PointRule<Window> = {
  id: 'gpu-util-low',
  raiseAfter: 3,
  clearAfter: 3,
  applies: (role) => role === 'gpu_util',
  init: () => new Window(5),
  observe: (w, v, { th, tag, trainingActive }) => {
    if (!Number.isFinite(v)) return HOLD;
    w.push(v);
    if (w.length < 5) return HOLD;
    // A finished or paused run leaves the GPU idle on purpose: clear rather than hold.
    if (!trainingActive) return OK;
    const med = w.median();
    const min = th.gpu_util_min;
    if (med < min)
      return bad('warning', med, `${tag} median ${fmt(med)} % below ${fmt(min)} % while training`);
    return med >= min + 10 ? OK : HOLD;
  },
};

/** System memory above 90 % (seed 000); > 97 % critical (OOM is imminent). */
export const memoryHigh: PointRule<null> = {
  id: 'memory-high',
  raiseAfter: 3,
  clearAfter: 3,
  applies: (role) => role === 'memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.memory_max;
    if (v > max) return bad(v > 97 ? 'critical' : 'warning', v, `${tag} = ${fmt(v)} % above ${fmt(max)} %`);
    return v < max - 5 ? OK : HOLD;
  },
};

/** GPU memory nearly full (> 95 %, > 99 % critical). */
export const gpuMemoryHigh: PointRule<null> = {
  id: 'gpu-memory-high',
  raiseAfter: 3,
  clearAfter: 3,
  applies: (role) => role === 'gpu_memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.gpu_memory_max;
    if (v > max)
      return bad(v > 99 ? 'critical' : 'warning', v, `${tag} = ${fmt(v)} % — GPU memory nearly full`);
    return v < max - 5 ? OK : HOLD;
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous rule states
export const POINT_RULES: readonly PointRule<any>[] = [
  nonFinite,
  klAboveTarget,
  entropyCollapse,
  clipBand,
  gradNormSpike,
  rewardPlateau,
  rewardVariance,
  truncationRising,
  importanceRatio,
  lowThroughput,
  gpuIdle,
  memoryHigh,
  gpuMemoryHigh,
];
