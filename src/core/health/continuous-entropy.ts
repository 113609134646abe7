// Entropy judged by the action space: a continuous (Gaussian) policy's differential entropy is judged in nats by
// differences, never by ratios; which tags show a run's actions are continuous.

import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import type { PointRule } from './point-rule';
import type { Level } from './types';

/**
 * Tags only a continuous-action policy logs: its standard deviation (SB3 `train/std`, `log_std`, `action_std`) or a
 * soft actor-critic's tuned entropy coefficient (SB3 SAC `train/ent_coef`, CleanRL SAC `losses/alpha`). A DQN's
 * exploration rate is not among them: it is an ε schedule, not a policy's entropy.
 */
const CONTINUOUS_TAG =
  /(^|\/)(log_std|action_std|actor_std|policy_std)$|^train\/std$|(^|\/)ent_coef(_loss)?$|^losses\/alpha(_loss)?$/i;

/** Whether a tag of the run shows that its policy acts in a continuous space. */
export function showsContinuousActions(tag: string): boolean {
  return CONTINUOUS_TAG.test(tag);
}

/** A fall of this many nats below the recent median: the standard deviation shrank 10× (per dimension) at once. */
const SUDDEN_FALL_NATS = Math.log(10);

interface GaussState {
  w: Window;
}

/**
 * Entropy collapse of a continuous policy. A Gaussian's entropy is 1.42 + ln σ per dimension: negative once σ < 0.24
 * and falling steadily while the policy learns, which is no collapse (a ratio to its start means nothing across
 * zero). What is one: a sudden fall of ln 10 nats below its recent median (σ shrinking tenfold within a few updates).
 */
export const continuousEntropyCollapse: PointRule<GaussState> = {
  id: 'entropy-collapse',
  clearAfter: 5,
  applies: (role) => role === 'entropy',
  init: () => ({ w: new Window(10) }),
  observe: (s, v, { tag, step }): Level => {
    if (!Number.isFinite(v)) return { kind: 'hold' };
    if (s.w.length >= 5) {
      const med = s.w.median();
      if (v < med - SUDDEN_FALL_NATS)
        return {
          kind: 'bad',
          severity: 'warning',
          after: 2,
          message: `${tag} = ${fmt(v)} at step ${step}, ${fmt(med - v)} nats below its recent median ${fmt(med)}: the policy's standard deviation shrank more than tenfold at once`,
          statistic: { kind: 'median', fromStep: s.w.fromStep, toStep: s.w.toStep, value: med },
        };
    }
    s.w.push(v, step);
    return { kind: 'ok' };
  },
};
