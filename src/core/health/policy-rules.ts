// Policy health rules: KL above its target or jumping, entropy collapse, clip fraction out of band, importance ratio off 1.

import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import { HOLD, OK, bad, byMargin, mostUrgent, windowStat, type PointRule } from './point-rule';
import type { Level, Statistic } from './types';

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
