// Run-level rules that combine another rule's active alert with a run summary, declared as data like the point rules.
//
// The three combined signals come from seed 004 §7's troubleshooting table. Each reads the run's
// primary tag of its input roles (via RunSummary) and the run's active alert of its companion rule.

import type { Role } from '../../shared/catalog';
import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import type { Thresholds } from './thresholds';
import type { Alert, Level, RuleId } from './types';

/** Bounded per-run summaries of the primary tag of each role the combined rules read. */
export class RunSummary {
  readonly temperature = new Window(5);
  readonly reward = new Window(10);
  /** The best rolling reward median so far (of full windows), so a fall is measured from a peak. */
  rewardBest = -Infinity;
  readonly clip = new Window(10);
  /** Clipping engaged at least once: a clip fraction of exactly 0 throughout is by design, not slow learning. */
  clipNonZero = false;

  observe(role: Role, value: number): void {
    if (role === 'sampling_temperature') this.temperature.push(value);
    if (role === 'reward') {
      this.reward.push(value);
      if (this.reward.length >= 10) this.rewardBest = Math.max(this.rewardBest, this.reward.median());
    }
    if (role === 'clip_fraction') {
      this.clip.push(value);
      if (value !== 0) this.clipNonZero = true;
    }
  }
}

export interface CombinedRule {
  id: RuleId;
  /** Points of these roles (on the run's primary tag) re-evaluate the rule. */
  inputs: readonly Role[];
  /** The rule whose active alert (on any tag of the run) is one half of the signal. */
  companion: RuleId;
  /** The summary statistic the rule judges; NaN while there is too little evidence. */
  measure(s: RunSummary): number;
  /** The other half of the signal, judged only while the companion alert is active: true is bad. */
  condition(measure: number, s: RunSummary, th: Thresholds): boolean;
  /** The alert's text; it quotes `value`, the value the alert carries (see valueFrom). */
  message(measure: number, s: RunSummary, value: number): string;
  /** The alert's tag: the companion alert's, or the tag of the point that re-evaluated the rule. */
  tagFrom: 'companion' | 'point';
  /** The alert's value: the measure, or the companion alert's value (the point's while it is not active). */
  valueFrom: 'measure' | 'companion';
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
    measure: (s) => (s.temperature.length >= 3 ? s.temperature.median() : NaN),
    condition: (temperature, _s, th) => temperature < th.temperature_min,
    message: (temperature) => `entropy collapsed while sampling temperature is ${fmt(temperature)}`,
    tagFrom: 'companion',
    valueFrom: 'measure',
    raiseAfter: 1,
    clearAfter: 3,
  },
  {
    id: 'kl-high-reward-falling',
    inputs: ['kl', 'reward'],
    companion: 'kl-above-target',
    measure: (s) => (s.reward.length >= 10 ? s.reward.median() : NaN),
    condition: (reward, s) => reward < s.rewardBest - 0.1 * Math.max(Math.abs(s.rewardBest), 0.1),
    message: (reward, s, kl) =>
      `KL ${fmt(kl)} above target while reward fell to ${fmt(reward)} from ${fmt(s.rewardBest)}`,
    tagFrom: 'companion',
    valueFrom: 'companion',
    // Reward medians are noisy around the fall line: more evidence both ways than the others.
    raiseAfter: 3,
    clearAfter: 20,
  },
  {
    id: 'clip-near-zero-slow-learning',
    inputs: ['clip_fraction', 'reward'],
    companion: 'reward-plateau',
    measure: (s) => (s.clip.length >= 5 ? s.clip.median() : NaN),
    condition: (clip, s) => s.clipNonZero && clip < CLIP_NEAR_ZERO,
    message: (clip) => `clip fraction ${fmt(clip)} near zero while reward has plateaued`,
    tagFrom: 'point',
    valueFrom: 'measure',
    raiseAfter: 1,
    clearAfter: 3,
  },
];

/** What one evaluation of a combined rule says, and the tag and value its alert carries. */
export interface CombinedVerdict {
  level: Level;
  tag: string;
  value: number;
}

/** The one evaluation path of every combined rule; combined signals are warnings, never critical. */
export function judgeCombined(
  rule: CombinedRule,
  summary: RunSummary,
  companion: Alert | null,
  th: Thresholds,
  point: { tag: string; value: number },
): CombinedVerdict {
  const measure = rule.measure(summary);
  const bad = companion !== null && rule.condition(measure, summary, th);
  const value = rule.valueFrom === 'measure' ? measure : (companion?.value ?? point.value);
  return {
    level: bad
      ? { kind: 'bad', severity: 'warning', value, message: rule.message(measure, summary, value) }
      : { kind: 'ok' },
    tag: rule.tagFrom === 'companion' ? (companion?.tag ?? point.tag) : point.tag,
    value,
  };
}
