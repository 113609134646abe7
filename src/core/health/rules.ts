// Per-tag health rules as small pure state machines: each point yields bad / ok / hold; the gate adds hysteresis.

import type { Role, RunScope } from '../../shared/catalog';
import { formatNumber } from '../../shared/format';
import { Window, mad } from './stats';
import type { ThresholdName, Thresholds } from './thresholds';
import type { Level, RuleId, Severity, Statistic } from './types';
import { VALUE_RULES } from './value-rules';
import { LLM_RULES } from './llm-rules';

export interface RuleContext {
  th: Thresholds;
  /** Thresholds the user or the run's config set: a rule whose default depends on the run (entropy floor, an
   * LLM run's KL) uses its own derivation only while its threshold is not set. */
  explicit: (name: ThresholdName) => boolean;
  /** The tag as messages name it (a negated tag as `−tag`). */
  tag: string;
  step: number;
  /** The tag's catalog role (null for an unclassified tag). */
  role: Role | null;
  scope: RunScope;
  /** Tag logs one point per epoch (`Epoch/*`): each point is an epoch for plateau/variance rules. */
  epochLevel: boolean;
  /** A training metric arrived recently (data time): an idle GPU matters only then. */
  trainingActive: boolean;
}

export interface PointRule<S> {
  id: RuleId;
  /** Consecutive ok points to clear. (Evidence to raise comes with each bad level: see byMargin.) */
  clearAfter: number;
  applies(role: Role | null, tag: string, epochLevel: boolean): boolean;
  init(): S;
  observe(state: S, value: number, ctx: RuleContext): Level;
}

const HOLD: Level = { kind: 'hold' };
const OK: Level = { kind: 'ok' };
/** A bad level: severity, consecutive bad points needed, the message, and the statistic judged (if any). */
const bad = (severity: Severity, after: number, message: string, statistic?: Statistic): Level => ({
  kind: 'bad',
  severity,
  after,
  message,
  ...(statistic ? { statistic } : {}),
});
const fmt = (v: number): string => formatNumber(v);

/** A margin this far past the threshold (value ÷ threshold, or its inverse for floors) raises on its own point. */
const FAR_MARGIN = 10;

/**
 * Severity and persistence from the margin past a threshold (≥ 1 is past it): far past it (`far`, 10× by default)
 * or non-finite raises on that point as critical; twice past it is critical after 3 points; a modest excess is a
 * warning after 3 points.
 */
export function byMargin(margin: number, far = FAR_MARGIN): { severity: Severity; after: number } {
  if (!Number.isFinite(margin) || margin >= far) return { severity: 'critical', after: 1 };
  if (margin >= 2) return { severity: 'critical', after: 3 };
  return { severity: 'warning', after: 3 };
}

/** Of several bad levels for one point, the one that needs the least evidence (then the more severe). */
function mostUrgent(levels: Level[]): Level {
  const rank = (l: Level): number =>
    l.kind === 'bad' ? l.after * 2 - (l.severity === 'critical' ? 1 : 0) : 99;
  return levels.reduce((a, b) => (rank(b) < rank(a) ? b : a));
}

const windowStat = (kind: Statistic['kind'], w: Window, value: number): Statistic => ({
  kind,
  fromStep: w.fromStep,
  toStep: w.toStep,
  value,
});

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
  clearAfter: 5,
  applies: (role, tag) => (role !== null ? LOSS_OR_REWARD.has(role) : /loss|reward/i.test(tag)),
  init: () => null,
  observe: (_s, v, ctx) =>
    Number.isFinite(v)
      ? OK
      : bad(
          'critical',
          1,
          `${ctx.tag} is ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'} at step ${ctx.step}`,
        ),
};

/** KL of an LLM run with no target jumps when it is this many times its recent median (or the floor below). */
const KL_JUMP = 3;
/** …and is critical on its own point this far past it. */
const KL_JUMP_FAR = 5;
/** An LLM run's KL starts at 0 and grows as the policy leaves its reference, and a classic PPO's KL between
 * successive policies wanders around 0.01 (a healthy CartPole run: median 0.013, 90th percentile 0.028): below
 * this it is never a jump. */
const KL_JUMP_FLOOR = 0.05;

interface KlState {
  /** Recent KL not judged bad: the level a jump is measured from. */
  w: Window;
}

/**
 * KL above target_kl (seed 004) with severity and persistence by margin (byMargin), when the user or the run's config
 * set one. A run without a target (SB3's `target_kl` defaults to None; TRL GRPO/PPO judge KL through `beta` /
 * `kl_coef`) is judged against its own recent level, and the alert says so: a jump to KL_JUMP× its recent median
 * is the policy leaving its trust region, KL_JUMP_FAR× raises at once.
 */
export const klAboveTarget: PointRule<KlState> = {
  id: 'kl-above-target',
  clearAfter: 5,
  applies: (role) => role === 'kl',
  init: () => ({ w: new Window(10) }),
  observe: (s, v, { th, tag, step, explicit }) => {
    if (!Number.isFinite(v)) return HOLD;
    if (explicit('target_kl')) {
      const t = th.target_kl;
      const m = v / t;
      if (m > 1) {
        const { severity, after } = byMargin(m);
        return bad(severity, after, `${tag} = ${fmt(v)} at step ${step}, ${fmt(m)}× target_kl ${fmt(t)}`);
      }
      return v < 0.8 * t ? OK : HOLD;
    }
    if (s.w.length < 5) {
      s.w.push(v, step);
      return HOLD;
    }
    const med = s.w.median();
    const base = Math.max(med, KL_JUMP_FLOOR);
    const m = v / base;
    if (m >= KL_JUMP) {
      const stat = windowStat('median', s.w, med);
      const severity = m >= KL_JUMP_FAR ? 'critical' : 'warning';
      return bad(
        severity,
        m >= KL_JUMP_FAR ? 1 : 2,
        `${tag} = ${fmt(v)} at step ${step}, ${fmt(m)}× its recent median ${fmt(med)} (steps ${stat.fromStep}–${stat.toStep}); no target_kl is set, so KL is judged against the run's own level`,
        stat,
      );
    }
    s.w.push(v, step);
    return m < KL_JUMP / 1.5 ? OK : HOLD;
  },
};

interface EntropyState {
  /** The run's first points: its entropy before learning narrowed the policy (near the action space's maximum). */
  early: Window;
  /** Recent points not judged a sudden drop. */
  w: Window;
  /** Recent rolling medians, and the level the entropy last settled at (stable for a while, below its start). */
  meds: Window;
  settled: Statistic | null;
  n: number;
}

/** Without an entropy_min of the user's or the run's, the floor is this fraction of the early entropy: a policy
 * this near determinism has collapsed whatever its action space (a two-action policy starts at ln 2 = 0.69, a
 * 16-token one at 2.77: no fixed number fits both, and a solved task legitimately ends near a tenth of the start). */
const ENTROPY_FLOOR_OF_EARLY = 0.05;
const EARLY_POINTS = 5;
/** Rolling medians this many points in a row within ±SETTLED_BAND of their median, drifting less than that from the
 * first to the last, are a settled level… */
const SETTLED_POINTS = 15;
const SETTLED_BAND = 0.1;
/** …when that level is below the start (learning narrowed the policy, then it held). */
const SETTLED_BELOW_EARLY = 0.9;

/** The level the rolling medians settled at, or null while they move (or still sit at the start). */
function settledLevel(meds: Window, early: number): number | null {
  if (meds.length < SETTLED_POINTS) return null;
  const level = meds.median();
  if (!(level > 0) || !(level <= SETTLED_BELOW_EARLY * early)) return null;
  const ms = meds.values();
  // Within the band and not drifting across it: a steady decline (learning) passes the first test, not the second.
  const drift = Math.abs(ms[ms.length - 1]! - ms[0]!);
  return drift <= SETTLED_BAND * level && ms.every((m) => Math.abs(m - level) <= SETTLED_BAND * level)
    ? level
    : null;
}

/**
 * Entropy collapse: below entropy_min (set by the user or the run's config), else below a twentieth of its early
 * level; a sudden fall under half its recent median; or, once the entropy had settled at a level (learning
 * narrowed the policy, then it held), a fall under half that level. A steady decline from the start is learning
 * (a solved Acrobot ends near a tenth of its starting entropy), not a collapse.
 */
export const entropyCollapse: PointRule<EntropyState> = {
  id: 'entropy-collapse',
  clearAfter: 5,
  applies: (role) => role === 'entropy',
  init: () => ({
    early: new Window(EARLY_POINTS),
    w: new Window(10),
    meds: new Window(SETTLED_POINTS),
    settled: null,
    n: 0,
  }),
  observe: (s, v, { th, tag, step, explicit }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.n++;
    if (s.early.length < EARLY_POINTS) s.early.push(v, step);
    const early = s.early.median();
    const own = explicit('entropy_min');
    const floor = own
      ? th.entropy_min
      : s.early.length >= EARLY_POINTS && early > 0
        ? ENTROPY_FLOOR_OF_EARLY * early
        : NaN;
    const recent = s.w.length >= 5 ? s.w.median() : NaN;
    const levels: Level[] = [];
    if (v < floor) {
      const { severity, after } = byMargin(v > 0 ? floor / v : Infinity, 4);
      const what = own
        ? `entropy_min ${fmt(floor)}`
        : `a twentieth of its early level ${fmt(early)} (steps ${s.early.fromStep}–${s.early.toStep})`;
      levels.push(
        bad(
          severity,
          after,
          `${tag} = ${fmt(v)} at step ${step}, below ${what}`,
          own ? undefined : windowStat('early-median', s.early, early),
        ),
      );
    }
    if (recent > 0 && v < 0.5 * recent) {
      const far = v < 0.25 * recent;
      levels.push(
        bad(
          far ? 'critical' : 'warning',
          far ? 1 : 2,
          `${tag} = ${fmt(v)} at step ${step}, under half its recent median ${fmt(recent)}`,
          windowStat('median', s.w, recent),
        ),
      );
    }
    // A sudden fall is judged against the level before it: it does not enter the window it is measured from.
    if (levels.length > 0) return mostUrgent(levels);
    s.w.push(v, step);
    const med = s.w.median();
    if (s.w.length >= 10) {
      s.meds.push(med, step);
      const level = settledLevel(s.meds, early);
      if (level !== null)
        s.settled = { kind: 'median', fromStep: s.meds.fromStep, toStep: s.meds.toStep, value: level };
    }
    const settled = s.settled;
    if (settled !== null && med < 0.5 * settled.value)
      return bad(
        'warning',
        3,
        `${tag} = ${fmt(v)} at step ${step}; its median ${fmt(med)} fell under half the level it had settled at, ${fmt(settled.value)} (steps ${settled.fromStep}–${settled.toStep})`,
        settled,
      );
    const recovered = !(v < 1.1 * floor) && !(settled !== null && med < 0.6 * settled.value);
    return recovered ? OK : HOLD;
  },
};

/**
 * Clip fraction above the band's top (seed 004: 0.1–0.3), judged on the median of 5 points (itself persistence).
 * A low clip fraction is normal for many PPO setups and never a warning on its own: near zero while reward has
 * plateaued is the combined rule clip-near-zero-slow-learning, with its own advice.
 */
export const clipBand: PointRule<Window> = {
  id: 'clip-fraction-out-of-band',
  clearAfter: 5,
  applies: (role) => role === 'clip_fraction',
  init: () => new Window(5),
  observe: (w, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    w.push(v, step);
    if (w.length < 5) return HOLD;
    const med = w.median();
    const hi = th.clip_high;
    if (med > hi)
      return bad(
        med > 2 * hi ? 'critical' : 'warning',
        1,
        `${tag} = ${fmt(v)} at step ${step}; median of the last 5 ${fmt(med)} above ${fmt(hi)}: many updates are clipped`,
        windowStat('median', w, med),
      );
    return med <= hi - 0.1 * (hi - th.clip_low) ? OK : HOLD;
  },
};

/** A point this many times its recent median is a blow-up, not clipping at work nor a heavy tail (a healthy A2C
 * run's grad norm jumps 18× for a while when it solves CartPole; an explosion is ×1000). */
const GRAD_BLOWUP_FACTOR = 30;
const GRAD_CRITICAL_FACTOR = 100;

/**
 * Gradient-norm blow-ups judged against the run's own recent history, never against max_grad_norm: HF/TRL and SB3
 * log the norm before clipping, so a steady level above the clip value is normal, and spikes of a few times the
 * median come and go in healthy runs. A point GRAD_BLOWUP_FACTOR× the median of the last 50 (and a robust z-score
 * over 6) raises on its own; 100× is critical.
 */
export const gradNormSpike: PointRule<Window> = {
  id: 'grad-norm-spike',
  clearAfter: 10,
  applies: (role) => role === 'grad_norm',
  init: () => new Window(50),
  observe: (hist, v, { tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    let level: Level = hist.length >= 20 ? OK : HOLD;
    if (hist.length >= 20) {
      const med = hist.median();
      const sigma = Math.max(mad(hist.values(), med), 1e-3 * Math.abs(med), 1e-12);
      const ratio = v / med;
      if (med > 0 && ratio >= GRAD_BLOWUP_FACTOR && (v - med) / sigma > 6) {
        level = bad(
          ratio >= GRAD_CRITICAL_FACTOR ? 'critical' : 'warning',
          1,
          `${tag} = ${fmt(v)} at step ${step}, ${fmt(ratio)}× its recent median ${fmt(med)}`,
          windowStat('median', hist, med),
        );
      }
    }
    // A blow-up does not become the baseline it is measured against.
    if (level.kind !== 'bad') hist.push(v, step);
    return level;
  },
};

interface PlateauState {
  sum: number;
  count: number;
  from: number;
  best: number;
  blocks: number;
  since: number;
  /** The first block's mean (where learning started), the highest point logged before this block, this block's
   * highest point with how many of its points sit at it, and how many blocks in a row held the ceiling. */
  first: number;
  held: number;
  top: number;
  blockTop: number;
  atTop: number;
}

/** Points within this fraction of a block's highest are at it: a task's ceiling (CartPole's 500) held. */
const CEILING_TOLERANCE = 0.005;

/**
 * Reward plateau: no improvement of the epoch (or block-of-steps) mean for plateau_epochs (seed 003: 5). A reward
 * that rose from its start and has stayed at the highest it ever logged in every block since (at least half of each
 * block's points there) has reached its task's ceiling (CartPole's 500): solved, not a plateau.
 */
export const rewardPlateau: PointRule<PlateauState> = {
  id: 'reward-plateau',
  clearAfter: 1,
  applies: (role) => role === 'reward',
  init: () => ({
    sum: 0,
    count: 0,
    from: NaN,
    best: -Infinity,
    blocks: 0,
    since: 0,
    first: NaN,
    held: 0,
    top: -Infinity,
    blockTop: -Infinity,
    atTop: 0,
  }),
  observe: (s, v, { th, tag, step, epochLevel }) => {
    if (!Number.isFinite(v)) return HOLD;
    if (s.count === 0) s.from = step;
    s.sum += v;
    s.count++;
    const near = CEILING_TOLERANCE * Math.max(Math.abs(v), 1e-9);
    if (s.atTop === 0 || v > s.blockTop + near) {
      s.blockTop = v;
      s.atTop = 1;
    } else if (v >= s.blockTop - near) s.atTop++;
    const size = epochLevel ? 1 : Math.max(1, Math.round(th.plateau_block));
    if (s.count < size) return HOLD;
    const mean = s.sum / s.count;
    const stat: Statistic = { kind: 'mean', fromStep: s.from, toStep: step, value: mean };
    const tol = CEILING_TOLERANCE * Math.max(Math.abs(s.blockTop), 1e-9);
    const atCeiling =
      s.blocks > 0 &&
      s.atTop * 2 >= s.count &&
      s.blockTop >= s.top - tol &&
      s.blockTop > s.first + Math.max(tol, 0.01 * Math.abs(s.first));
    s.top = Math.max(s.top, s.blockTop);
    s.blockTop = -Infinity;
    s.atTop = 0;
    s.sum = 0;
    s.count = 0;
    s.blocks++;
    if (s.blocks === 1) s.first = mean;
    // 1 % of the best so far (absolute floor) so a noisy block mean does not count as progress.
    const minDelta = Math.max(1e-9, 0.01 * Math.abs(s.best));
    s.held = atCeiling ? s.held + 1 : 0;
    if (mean > s.best + minDelta || s.blocks === 1) {
      s.best = Math.max(s.best, mean);
      s.since = 0;
      return OK;
    }
    s.since++;
    const unit = epochLevel ? 'epochs' : `blocks of ${size} points`;
    if (s.held >= s.since) return OK;
    return s.since >= th.plateau_epochs
      ? bad(
          'warning',
          1,
          `${tag} = ${fmt(v)} at step ${step}: its mean has not improved on ${fmt(s.best)} for ${s.since} ${unit}`,
          stat,
        )
      : HOLD;
  },
};

/** What an exact 0 means, per role, and how many in a row say learning stopped (a schedule ends at 0 for one point). */
const STAGNANT: Partial<Record<Role, { after: number; meaning: string }>> = {
  kl: { after: 5, meaning: 'the policy no longer changes (a learning rate of 0, or no gradient)' },
  learning_rate: { after: 3, meaning: 'nothing is learnt' },
  reward_std: {
    after: 5,
    meaning: 'every sample of a group gets the same reward, so the advantages are 0 and nothing is learnt',
  },
};

/**
 * Learning stopped: a quantity that moves while a policy learns — KL between successive policies, the learning
 * rate, the reward's spread within a group (GRPO's advantages) — sits at exactly 0 for several updates after it
 * was not. The reward itself may keep rising for a while on what was learnt (a plateau rule needs 100 points).
 */
export const learningStagnation: PointRule<{ role: Role | null; moved: boolean; zeros: number }> = {
  id: 'learning-stagnation',
  clearAfter: 3,
  applies: (role) => role !== null && STAGNANT[role] !== undefined,
  init: () => ({ role: null, moved: false, zeros: 0 }),
  observe: (s, v, { tag, step, role }) => {
    if (!Number.isFinite(v)) return HOLD;
    const spec = role === null ? undefined : STAGNANT[role];
    if (v !== 0 || spec === undefined) {
      s.moved = true;
      s.zeros = 0;
      return OK;
    }
    if (!s.moved) return HOLD;
    s.zeros++;
    return s.zeros >= spec.after
      ? bad(
          'warning',
          1,
          `${tag} has been exactly 0 for ${s.zeros} updates (to step ${step}): ${spec.meaning}`,
        )
      : HOLD;
  },
};

/**
 * Reward variance above 0.01 (seed 000 states it for `Epoch/RewardVariance`). Only epoch-level tags:
 * a per-batch variance is GRPO's learning signal, high by design early on. The first 5 epochs are
 * warm-up; judged on the median of 3 epochs.
 */
export const rewardVariance: PointRule<{ w: Window; n: number }> = {
  id: 'reward-variance-high',
  clearAfter: 3,
  applies: (role, _tag, epochLevel) => role === 'reward_variance' && epochLevel,
  init: () => ({ w: new Window(3), n: 0 }),
  observe: (s, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v, step);
    if (++s.n <= 5) return HOLD;
    const med = s.w.median();
    const max = th.reward_variance_max;
    if (med > max)
      return bad(
        'warning',
        3,
        `${tag} = ${fmt(v)} at step ${step}; median of 3 ${fmt(med)} above ${fmt(max)}`,
        windowStat('median', s.w, med),
      );
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
  clearAfter: 5,
  applies: (role) => role === 'response_truncation',
  init: () => ({ w: new Window(5), baseline: Infinity }),
  observe: (s, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    s.w.push(v, step);
    if (s.w.length < 5) return HOLD;
    const med = s.w.median();
    s.baseline = Math.min(s.baseline, med);
    const max = th.truncation_max;
    if (med >= max && med >= s.baseline + 0.1)
      return bad(
        med >= 0.5 ? 'critical' : 'warning',
        3,
        `${tag} = ${fmt(v)} at step ${step}; its median ${fmt(med)} rose from ${fmt(s.baseline)}`,
        windowStat('median', s.w, med),
      );
    return med < 0.75 * max || med < s.baseline + 0.05 ? OK : HOLD;
  },
};

/** Importance ratio far from 1 (seed 002: "should be near 1.0"); severity and persistence by margin. */
export const importanceRatio: PointRule<null> = {
  id: 'importance-ratio-off',
  clearAfter: 5,
  applies: (role) => role === 'importance_ratio',
  init: () => null,
  observe: (_s, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    const d = Math.abs(v - 1);
    const tol = th.importance_ratio_tolerance;
    if (d > tol) {
      const { severity, after } = byMargin(d / tol);
      return bad(severity, after, `${tag} = ${fmt(v)} at step ${step}, more than ${fmt(tol)} from 1`);
    }
    return d < tol / 2 ? OK : HOLD;
  },
};

/** Generation throughput below 1 token/s (seed 000). */
export const lowThroughput: PointRule<null> = {
  id: 'generation-throughput-low',
  clearAfter: 3,
  applies: (role) => role === 'generation_throughput',
  init: () => null,
  observe: (_s, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    const min = th.min_tokens_per_sec;
    if (v < min) return bad('warning', 3, `${tag} = ${fmt(v)} tokens/s at step ${step}, below ${fmt(min)}`);
    return v >= 1.2 * min ? OK : HOLD;
  },
};

/** GPU utilisation below 50 % while training (seed 000), on the median of 5 samples. */
export const gpuIdle: PointRule<Window> = {
  id: 'gpu-util-low',
  clearAfter: 3,
  applies: (role) => role === 'gpu_util',
  init: () => new Window(5),
  observe: (w, v, { th, tag, step, trainingActive }) => {
    if (!Number.isFinite(v)) return HOLD;
    w.push(v, step);
    if (w.length < 5) return HOLD;
    // A finished or paused run leaves the GPU idle on purpose: clear rather than hold.
    if (!trainingActive) return OK;
    const med = w.median();
    const min = th.gpu_util_min;
    if (med < min)
      return bad(
        'warning',
        3,
        `${tag} = ${fmt(v)} %; median of 5 samples ${fmt(med)} % below ${fmt(min)} % while training`,
        windowStat('median', w, med),
      );
    return med >= min + 10 ? OK : HOLD;
  },
};

/** System memory above 90 % (seed 000); > 97 % critical (OOM is imminent). */
export const memoryHigh: PointRule<null> = {
  id: 'memory-high',
  clearAfter: 3,
  applies: (role) => role === 'memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.memory_max;
    if (v > max) return bad(v > 97 ? 'critical' : 'warning', 3, `${tag} = ${fmt(v)} % above ${fmt(max)} %`);
    return v < max - 5 ? OK : HOLD;
  },
};

/** GPU memory nearly full (> 95 %, > 99 % critical). */
export const gpuMemoryHigh: PointRule<null> = {
  id: 'gpu-memory-high',
  clearAfter: 3,
  applies: (role) => role === 'gpu_memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.gpu_memory_max;
    if (v > max)
      return bad(v > 99 ? 'critical' : 'warning', 3, `${tag} = ${fmt(v)} % — GPU memory nearly full`);
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
  learningStagnation,
  rewardVariance,
  truncationRising,
  importanceRatio,
  lowThroughput,
  gpuIdle,
  memoryHigh,
  gpuMemoryHigh,
  ...VALUE_RULES,
  ...LLM_RULES,
];
