// Run-level rules that combine another rule's active alert with a run summary, declared as data like the point rules.
//
// Three combined signals come from seed 004 §7's troubleshooting table. Each reads the run's primary tag of its
// input roles (via RunSummary) and the run's active alert of its companion rule. Reward hacking has no companion:
// it is three trends of the run together (reward up, KL to the reference ×10, responses longer or truncated).

import type { Role } from '../../shared/catalog';
import { formatNumber as fmt } from '../../shared/format';
import { Window, median } from './stats';
import type { ThresholdName, Thresholds } from './thresholds';
import type { Level, RuleId } from './types';

/** Bounded per-run summaries of the primary tag of each role the combined rules read. */
export class RunSummary {
  readonly temperature = new Window(5);
  readonly reward = new Window(10);
  /** The best rolling reward median so far (of full windows), so a fall is measured from a peak. */
  rewardBest = -Infinity;
  readonly clip = new Window(10);
  /** Clipping engaged at least once: a clip fraction of exactly 0 throughout is by design, not slow learning. */
  clipNonZero = false;
  /** The last TREND_POINTS points of the roles reward hacking reads (KL to the reference: `kl_penalty`, verl's
   * `actor/kl_loss`, else `kl`). */
  readonly trend = {
    reward: new Window(TREND_POINTS),
    kl: new Window(TREND_POINTS),
    klRef: new Window(TREND_POINTS),
    length: new Window(TREND_POINTS),
    truncation: new Window(TREND_POINTS),
  };

  observe(role: Role, value: number, step: number): void {
    const trend = TREND_ROLES[role];
    if (trend !== undefined) this.trend[trend].push(value, step);
    if (role === 'sampling_temperature') this.temperature.push(value, step);
    if (role === 'reward') {
      this.reward.push(value, step);
      if (this.reward.length >= 10) this.rewardBest = Math.max(this.rewardBest, this.reward.median());
    }
    if (role === 'clip_fraction') {
      this.clip.push(value, step);
      if (value !== 0) this.clipNonZero = true;
    }
  }
}

/** Points of each trend reward hacking compares: the oldest HACK_THEN against the newest HACK_NOW. */
const TREND_POINTS = 30;
const HACK_THEN = 10;
const HACK_NOW = 5;
/** KL to the reference this many times its earlier level (never measured from below KL_FLOOR)… */
const HACK_KL_FACTOR = 10;
const HACK_KL_FLOOR = 0.01;
/** …with responses this many times longer, or this much more often truncated. */
const HACK_LENGTH_FACTOR = 1.5;
const HACK_TRUNCATION_RISE = 0.2;

const TREND_ROLES: Partial<Record<Role, keyof RunSummary['trend']>> = {
  reward: 'reward',
  kl: 'kl',
  kl_penalty: 'klRef',
  response_length: 'length',
  response_truncation: 'truncation',
};

/** The earlier and the recent median of a full trend window (null while it holds too few points). */
function thenNow(w: Window): { then: number; now: number } | null {
  if (w.length < TREND_POINTS - 5) return null;
  const xs = w.values();
  return { then: median(xs.slice(0, HACK_THEN)), now: median(xs.slice(-HACK_NOW)) };
}

export interface HackingEvidence {
  reward: { then: number; now: number };
  kl: { then: number; now: number };
  length: { then: number; now: number } | null;
  truncation: { then: number; now: number } | null;
}

/** Reward hacking's evidence, when all of it is there: reward up, KL ×10, responses longer or truncated. */
export function hackingEvidence(s: RunSummary): HackingEvidence | null {
  const reward = thenNow(s.trend.reward);
  const kl = thenNow(s.trend.klRef) ?? thenNow(s.trend.kl);
  if (reward === null || kl === null) return null;
  const rewardUp = reward.now > reward.then + Math.max(0.1 * Math.abs(reward.then), 1e-6);
  const klUp = kl.now >= HACK_KL_FACTOR * Math.max(kl.then, HACK_KL_FLOOR);
  const length = thenNow(s.trend.length);
  const truncation = thenNow(s.trend.truncation);
  const longer =
    (length !== null && length.then > 0 && length.now >= HACK_LENGTH_FACTOR * length.then) ||
    (truncation !== null && truncation.now >= truncation.then + HACK_TRUNCATION_RISE);
  return rewardUp && klUp && longer ? { reward, kl, length, truncation } : null;
}

export interface CombinedRule {
  id: RuleId;
  /** Points of these roles (on the run's primary tag) re-evaluate the rule. */
  inputs: readonly Role[];
  /** The rule whose latched member (on any tag of the run) is one half of the signal; null: the condition alone. */
  companion: RuleId | null;
  /** The summary window the rule judges; its median is the measure (NaN while there is too little evidence). */
  window(s: RunSummary): Window;
  /** Points the window needs before the measure counts. */
  minPoints: number;
  /** The other half of the signal, judged only while the companion is on: true is bad. */
  condition(measure: number, s: RunSummary, th: Thresholds): boolean;
  /** The alert's text; the alert cites the point that re-evaluated the rule and the measure as its statistic.
   * `explicit` says which thresholds the user or the run's config set (a KL without target_kl has none). */
  message(measure: number, s: RunSummary, explicit: (name: ThresholdName) => boolean): string;
  /** Consecutive bad evaluations to raise. */
  raiseAfter: number;
  /** Consecutive ok evaluations to clear. */
  clearAfter: number;
}

/** Clip fraction below this median counts as "near zero". */
const CLIP_NEAR_ZERO = 0.02;

export const COMBINED_RULES: readonly CombinedRule[] = [
  {
    id: 'entropy-collapse-low-temperature',
    inputs: ['entropy', 'sampling_temperature'],
    companion: 'entropy-collapse',
    window: (s) => s.temperature,
    minPoints: 3,
    condition: (temperature, _s, th) => temperature < th.temperature_min,
    message: (temperature) =>
      `entropy collapsed while the sampling temperature's median is ${fmt(temperature)}`,
    raiseAfter: 1,
    clearAfter: 3,
  },
  {
    id: 'kl-high-reward-falling',
    inputs: ['kl', 'reward'],
    companion: 'kl-above-target',
    window: (s) => s.reward,
    minPoints: 10,
    condition: (reward, s) => reward < s.rewardBest - 0.1 * Math.max(Math.abs(s.rewardBest), 0.1),
    // Without a target_kl, kl-above-target judges KL against the run's own recent level: the text says which.
    message: (reward, s, explicit) =>
      `KL above ${explicit('target_kl') ? 'target_kl' : 'its own level'} while reward's median fell to ${fmt(reward)} from ${fmt(s.rewardBest)}`,
    // Reward medians are noisy around the fall line: more evidence both ways than the others.
    raiseAfter: 3,
    clearAfter: 20,
  },
  {
    id: 'clip-near-zero-slow-learning',
    inputs: ['clip_fraction', 'reward'],
    companion: 'reward-plateau',
    window: (s) => s.clip,
    minPoints: 5,
    condition: (clip, s) => s.clipNonZero && clip < CLIP_NEAR_ZERO,
    message: (clip) => `clip fraction's median ${fmt(clip)} near zero while reward has plateaued`,
    raiseAfter: 1,
    clearAfter: 3,
  },
  {
    id: 'reward-hacking',
    inputs: ['reward', 'kl', 'kl_penalty', 'response_length', 'response_truncation'],
    companion: null,
    window: (s) => s.trend.reward,
    minPoints: TREND_POINTS - 5,
    condition: (_reward, s) => hackingEvidence(s) !== null,
    message: (_reward, s) => {
      const e = hackingEvidence(s);
      if (e === null) return 'reward rising with KL and response length: likely reward hacking';
      const span = (x: { then: number; now: number }): string => `${fmt(x.then)} → ${fmt(x.now)}`;
      const longer = [
        e.length !== null ? `response length ${span(e.length)}` : null,
        e.truncation !== null ? `truncated ${span(e.truncation)}` : null,
      ].filter((x) => x !== null);
      return `reward rising (${span(e.reward)}) with KL ×${fmt(e.kl.now / Math.max(e.kl.then, HACK_KL_FLOOR))} (${span(e.kl)}) and ${longer.join(', ')} over the last ${TREND_POINTS} updates: likely reward hacking`;
    },
    raiseAfter: 2,
    clearAfter: 5,
  },
];

/** The one evaluation path of every combined rule; combined signals are warnings, never critical. */
export function judgeCombined(
  rule: CombinedRule,
  summary: RunSummary,
  companionOn: boolean,
  th: Thresholds,
  explicit: (name: ThresholdName) => boolean,
): Level {
  const w = rule.window(summary);
  const measure = w.length >= rule.minPoints ? w.median() : NaN;
  if (!companionOn || !rule.condition(measure, summary, th)) return { kind: 'ok' };
  return {
    kind: 'bad',
    severity: 'warning',
    after: rule.raiseAfter,
    message: rule.message(measure, summary, explicit),
    statistic: { kind: 'median', fromStep: w.fromStep, toStep: w.toStep, value: measure },
  };
}
