// Learning-progress health rules: NaN/Inf, gradient blow-ups, reward plateau and variance, stagnation, truncation.

import type { Role } from '../../shared/catalog';
import { formatNumber as fmt } from '../../shared/format';
import { Window, mad } from './stats';
import { HOLD, OK, bad, windowStat, type PointRule } from './point-rule';
import type { Level, Statistic } from './types';

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
