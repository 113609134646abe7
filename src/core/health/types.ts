// Alert types of the health engine: rule ids, severities, rule levels, alerts and their raised/escalated/cleared transitions.

import type { Alert as SharedAlert, AlertStatistic, Severity } from '../../shared/domain';

export type { Severity };

/** A statistic a rule judged: the alert cites the logged point that tripped the rule and adds this beside it. */
export type Statistic = AlertStatistic;

/**
 * A rule's verdict on the latest point. `bad` is past the raise line, `ok` past the (safer) clear
 * line, `hold` in between or not enough evidence: it breaks both streaks, which is the hysteresis
 * band that keeps a stream oscillating around one threshold from flapping. A `bad` level says how much
 * evidence it needs (`after`: consecutive bad levels, 1 = raise on this point) — severity and persistence
 * scale with the margin past the threshold — and a message that quotes the point (and the statistic, if any).
 */
export type Level =
  | { kind: 'bad'; severity: Severity; after: number; message: string; statistic?: Statistic }
  | { kind: 'ok' }
  | { kind: 'hold' };

export const RULE_IDS = [
  'non-finite',
  'kl-above-target',
  'entropy-collapse',
  'clip-fraction-out-of-band',
  'grad-norm-spike',
  'reward-plateau',
  'reward-variance-high',
  'response-truncation-rising',
  'importance-ratio-off',
  'generation-throughput-low',
  'gpu-util-low',
  'memory-high',
  'gpu-memory-high',
  'learning-stagnation',
  'stalled-run',
  'trainer-exited',
  'entropy-collapse-low-temperature',
  'kl-high-reward-falling',
  'clip-near-zero-slow-learning',
  'value-loss-divergence',
  'q-value-explosion',
  'explained-variance-collapse',
  'response-length-collapse',
  'response-length-explosion',
  'reward-hacking',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** One incident of a health rule: the shared alert shape with the rule narrowed to RuleId. */
export type Alert = SharedAlert<RuleId>;

/**
 * What the engine emits. Per alert id, `raised` and `cleared` alternate; `escalated` (warning →
 * critical) only happens between them, so `--exit-on critical` sees a KL blow-up that first
 * crossed the warning line. `watch --json` prints it as `state: "escalated"` (same id: not a new alert).
 * `notify` is false while the alert is snoozed or acknowledged (history still records it). `history`: raised
 * from the first read of a run last written long before it was opened (news of the past: never notified, and
 * `--exit-on critical` does not exit on it).
 */
export type AlertTransition =
  | { kind: 'raised'; alert: Alert; notify: boolean; history?: true }
  | { kind: 'escalated'; alert: Alert; from: Severity; notify: boolean; history?: true }
  | {
      kind: 'cleared';
      alert: Alert;
      /** The point that cleared it (a logged point; tag null when a run-level event cleared it). */
      tag: string | null;
      step: number;
      wallTime: number | null;
      value: number;
      at: number;
      notify: boolean;
      /** Why it cleared, in words ("the run wrote again (step 1200)", "reward_std = 0.31 at step 900: the rule no
       * longer holds"): a cleared line says this, not the firing text again. */
      because: string;
    };

/** Persistence hook (the lead wires SQLite); the engine calls it synchronously and never awaits. */
export interface AlertSink {
  record(transition: AlertTransition): void;
  /** Acknowledge / snooze changes, so history survives restarts. */
  update(alert: Alert): void;
}
