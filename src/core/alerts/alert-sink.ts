// The health engine's AlertSink over the store: one history row per transition of an incident (stored once), ack/snooze on its row.

import { resolve } from 'node:path';
import type { Alert, AlertSink, AlertTransition } from '../health';
import type { Store } from '../store';

/** Alerts are stored under the run's absolute folder: relative names ('.', 'ppo_demo') collide between folders. */
export type RunPath = (run: string) => string | null;

export const runPathIn =
  (root: () => string | null): RunPath =>
  (run) => {
    const r = root();
    return r === null ? null : resolve(r, run);
  };

export class StoreAlertSink implements AlertSink {
  /** Row of the current incident per alert id (the latest raised/escalated row). */
  private readonly rows = new Map<string, number>();
  /** Rows this session wrote: history from earlier sessions is everything else. */
  readonly written = new Set<number>();
  /** While set, transitions are not stored: closing a folder clears its alerts in the engine, but the
   * incidents did not end, so history keeps them open (as a crash would) and a restart can restore acks. */
  suspended = false;

  constructor(
    private readonly store: () => Store,
    private readonly runPath: RunPath,
    private readonly clock: () => number,
  ) {}

  record(t: AlertTransition): void {
    const a = t.alert;
    const run = this.runPath(a.run);
    if (run === null || this.suspended) return;
    const cleared = t.kind === 'cleared';
    const id = this.store().recordAlert({
      run,
      rule: a.rule,
      tag: a.tag,
      severity: a.severity,
      state: cleared ? 'cleared' : 'raised',
      step: cleared ? t.step : a.step,
      value: cleared ? t.value : a.value,
      message: a.message,
      at: cleared ? t.at : t.kind === 'raised' ? a.raisedAt : this.clock(),
      incident: a.id,
      detail: JSON.stringify(
        cleared
          ? // Co-movers a late point added after the raise are known by the clear: its row keeps them.
            { tag: t.tag, wallTime: t.wallTime, changed: a.changed }
          : { tag: a.tag, tags: a.tags, wallTime: a.wallTime, statistic: a.statistic, changed: a.changed },
      ),
    });
    if (id < 0) return;
    this.written.add(id);
    if (cleared) {
      this.rows.delete(a.id);
      return;
    }
    this.rows.set(a.id, id);
    // An escalation is a new row of the same incident: it keeps the incident's ack and snooze.
    if (t.kind === 'escalated') this.update(a);
  }

  update(a: Alert): void {
    const row = this.rows.get(a.id);
    if (row === undefined) return;
    if (a.acknowledged) this.store().acknowledgeAlert(row, this.clock());
    this.store().snoozeAlert(row, a.snoozedUntil);
  }

  /** The row of the open incident for an alert id, if this session recorded one. */
  rowOf(id: string): number | null {
    return this.rows.get(id) ?? null;
  }
}
