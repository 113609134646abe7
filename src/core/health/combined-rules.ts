// Run-level rules that combine another rule's active alert with a run summary, declared as data like the point rules.
//
// The three combined signals come from seed 004 §7's troubleshooting table. Each reads the run's
// primary tag of its input roles (via RunSummary) and the run's active alert of its companion rule.

import type { Role } from '../../shared/catalog';
import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import type { Thresholds } from './thresholds';
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

  observe(role: Role, value: number, step: number): void {
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

export interface CombinedRule {
  id: RuleId;
  /** Points of these roles (on the run's primary tag) re-evaluate the rule. */
  inputs: readonly Role[];
  /** The rule whose latched member (on any tag of the run) is one half of the signal. */
  companion: RuleId;
  /** The summary window the rule judges; its median is the measure (NaN while there is too little evidence). */
  window(s: RunSummary): Window;
  /** Points the window needs before the measure counts. */
  minPoints: number;
  /** The other half of the signal, judged only while the companion is on: true is bad. */
  condition(measure: number, s: RunSummary, th: Thresholds): boolean;
  /** The alert's text; the alert cites the point that re-evaluated the rule and the measure as its statistic. */
  message(measure: number, s: RunSummary): string;
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
    message: (reward, s) =>
      `KL above target while reward's median fell to ${fmt(reward)} from ${fmt(s.rewardBest)}`,
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
];

/** The one evaluation path of every combined rule; combined signals are warnings, never critical. */
export function judgeCombined(
  rule: CombinedRule,
  summary: RunSummary,
  companionOn: boolean,
  th: Thresholds,
): Level {
  const w = rule.window(summary);
  const measure = w.length >= rule.minPoints ? w.median() : NaN;
  if (!companionOn || !rule.condition(measure, summary, th)) return { kind: 'ok' };
  return {
    kind: 'bad',
    severity: 'warning',
    after: rule.raiseAfter,
    message: rule.message(measure, summary),
    statistic: { kind: 'median', fromStep: w.fromStep, toStep: w.toStep, value: measure },
  };
}
