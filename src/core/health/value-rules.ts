// Critic-side health rules (value / critic / TD loss divergence, Q-value explosion, explained-variance collapse), each
// judged against the run's own recent history: a critic diverging is a blow-up of orders of magnitude, not a bump.

import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import { HOLD, OK, bad, type PointRule } from './point-rule';
import type { Level, Statistic } from './types';
const median = (w: Window): Statistic => ({
  kind: 'median',
  fromStep: w.fromStep,
  toStep: w.toStep,
  value: w.median(),
});

/** A critic's loss this many times its recent median, on DIVERGE_POINTS points in a row, is a divergence… */
const DIVERGE_FACTOR = 10;
/** …critical this many times (two orders of magnitude). Never on one or two points: an A2C value loss logged from
 * one batch (highway-env) has spikes of ×1000 that are gone a point or two later (a crash episode's returns); a
 * divergence stays. */
const DIVERGE_FAR = 100;
const DIVERGE_POINTS = 3;
/** The recent history a blow-up is measured from: long enough that learning's own growth (a TD loss grows with the
 * Q values it fits, ×10 over a healthy DQN run) enters it, short enough that a change of regime is seen. */
const HISTORY = 30;
const MIN_HISTORY = 10;

interface GrowthState {
  /** Recent values not judged a blow-up: the level one is measured from. */
  w: Window;
  /** A negative value was logged: not a squared error (a PPO total loss), so ratios mean nothing. */
  signed: boolean;
}

/** The blow-up verdict of a non-negative magnitude against its recent median (shared by the critic rules). */
function judgeGrowth(
  s: GrowthState,
  v: number,
  step: number,
  describe: (ratio: number, stat: Statistic) => string,
): Level {
  if (s.w.length < MIN_HISTORY) {
    s.w.push(v, step);
    return HOLD;
  }
  const stat = median(s.w);
  const base = stat.value;
  if (!(base > 0)) {
    s.w.push(v, step);
    return HOLD;
  }
  const ratio = v / base;
  if (ratio >= DIVERGE_FACTOR) {
    const far = ratio >= DIVERGE_FAR;
    return bad(far ? 'critical' : 'warning', DIVERGE_POINTS, describe(ratio, stat), stat);
  }
  // A blow-up never becomes the baseline it is measured against; ordinary points do.
  s.w.push(v, step);
  return ratio < DIVERGE_FACTOR / 3 ? OK : HOLD;
}

/** Tags only a Q-learner logs (SB3 DQN `rollout/exploration_rate`, an ε schedule): its `train/loss` is the TD loss. */
const Q_LEARNING_TAG = /(^|\/)(exploration_rate|epsilon|exploration_eps)$/i;

/** Whether a tag of the run shows a Q-learner (whose generic loss is its critic's TD loss). */
export function showsQLearning(tag: string): boolean {
  return Q_LEARNING_TAG.test(tag);
}

/**
 * Value / critic / TD loss divergence: the critic's loss (SB3 `train/value_loss`, SAC `train/critic_loss`, CleanRL
 * `losses/td_loss`, verl `critic/vf_loss`; a Q-learner's `train/loss`, SB3 DQN's TD loss: the engine gives it this
 * rule once the run shows an exploration rate) at DIVERGE_FACTOR× its recent median on DIVERGE_POINTS points in a
 * row (DIVERGE_FAR×: critical). The policy's metrics can look normal meanwhile (normalised advantages hide the critic's scale). A total
 * loss of an actor-critic is not judged: it mixes a policy term of either sign, and A2C logs one noisy batch's.
 */
export const valueLossDivergence: PointRule<GrowthState> = {
  id: 'value-loss-divergence',
  clearAfter: 5,
  applies: (role) => role === 'value_loss',
  init: () => ({ w: new Window(HISTORY), signed: false }),
  observe: (s, v, { tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    // A squared error is never negative: a signed series is no critic's loss, and ratios across zero mean nothing.
    if (v < 0) s.signed = true;
    if (s.signed) return OK;
    return judgeGrowth(
      s,
      v,
      step,
      (ratio, stat) =>
        `${tag} = ${fmt(v)} at step ${step}, ${fmt(ratio)}× its recent median ${fmt(stat.value)} (steps ${stat.fromStep}–${stat.toStep}): the critic is diverging`,
    );
  },
};

/**
 * Q-value explosion: the mean Q estimate's magnitude (CleanRL `losses/q_values`, `train/q_values`) at
 * DIVERGE_FACTOR× its recent median magnitude on DIVERGE_POINTS points in a row; values grow with the return while
 * learning, never by ×10 in a few updates.
 */
export const qValueExplosion: PointRule<GrowthState> = {
  id: 'q-value-explosion',
  clearAfter: 5,
  applies: (role) => role === 'value_estimate',
  init: () => ({ w: new Window(HISTORY), signed: false }),
  observe: (s, v, { tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    return judgeGrowth(
      s,
      Math.abs(v),
      step,
      (ratio, stat) =>
        `${tag} = ${fmt(v)} at step ${step}, ${fmt(ratio)}× the magnitude of its recent median ${fmt(stat.value)} (steps ${stat.fromStep}–${stat.toStep}): Q values are exploding`,
    );
  },
};

/** Explained variance at or above this median means the critic was predicting returns… */
const EV_GOOD = 0.5;
/** …and a median of the last 3 at or below this means it predicts worse than a constant, by far. Near 0 is no
 * evidence: once a task is solved the returns barely vary, and a healthy PPO CartPole run's explained variance
 * wanders between 0.95 and −0.25 there. */
const EV_LOST = -1;

interface EvState {
  /** Points before the latest 3: how well the critic predicted returns. */
  before: Window;
  recent: Window;
}

/**
 * Explained-variance collapse (SB3 `train/explained_variance`, verl `critic/vf_explained_var`): a critic that
 * explained returns (median ≥ EV_GOOD over up to 20 points) predicts far worse than a constant (median of the last 3 ≤
 * EV_LOST). Early values near 0 or negative are a critic still learning, never judged.
 */
export const explainedVarianceCollapse: PointRule<EvState> = {
  id: 'explained-variance-collapse',
  clearAfter: 5,
  applies: (role) => role === 'explained_variance',
  init: () => ({ before: new Window(20), recent: new Window(3) }),
  observe: (s, v, { tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    const goodBefore = s.before.length >= 10 ? s.before.median() : NaN;
    s.recent.push(v, step);
    const now = s.recent.length >= 3 ? s.recent.median() : NaN;
    if (goodBefore >= EV_GOOD && now <= EV_LOST) {
      const stat = median(s.before);
      return bad(
        'warning',
        2,
        `${tag} = ${fmt(v)} at step ${step}; its median of the last 3, ${fmt(now)}, fell from ${fmt(goodBefore)} (steps ${stat.fromStep}–${stat.toStep}): the critic no longer predicts returns`,
        stat,
      );
    }
    // A collapsed stretch does not become the level it is judged against.
    s.before.push(v, step);
    return OK;
  },
};

export const VALUE_RULES = [valueLossDivergence, qValueExplosion, explainedVarianceCollapse] as const;
