// The kit every per-tag health rule is made of: the rule's shape and context, its levels, and severity by margin.

import type { Role, RunScope } from '../../shared/catalog';
import type { Window } from './stats';
import type { Thresholds, ThresholdName } from './thresholds';
import type { Level, RuleId, Severity, Statistic } from './types';

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

export const HOLD: Level = { kind: 'hold' };
export const OK: Level = { kind: 'ok' };
/** A bad level: severity, consecutive bad points needed, the message, and the statistic judged (if any). */
export const bad = (severity: Severity, after: number, message: string, statistic?: Statistic): Level => ({
  kind: 'bad',
  severity,
  after,
  message,
  ...(statistic ? { statistic } : {}),
});

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
export function mostUrgent(levels: Level[]): Level {
  const rank = (l: Level): number =>
    l.kind === 'bad' ? l.after * 2 - (l.severity === 'critical' ? 1 : 0) : 99;
  return levels.reduce((a, b) => (rank(b) < rank(a) ? b : a));
}

export const windowStat = (kind: Statistic['kind'], w: Window, value: number): Statistic => ({
  kind,
  fromStep: w.fromStep,
  toStep: w.toStep,
  value,
});
