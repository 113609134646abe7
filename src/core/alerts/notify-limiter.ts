// Rate-limits desktop notifications: at most one per run per window; the excess is summarised as "N more alerts".

import type { AlertInfo, AppFocus, AppNotification } from '../../shared/domain';
import { RULE_TITLES } from '../health';

/** What the limiter decides to show; the contract's push payload, so every host shows the same. */
export type PlannedNotification = AppNotification;

export interface NotificationLimiterOptions {
  /** ms since epoch; injected so tests are deterministic. */
  clock: () => number;
  /** At most one notification per run per this many ms (default 30 s). */
  windowMs?: number;
}

interface RunWindow {
  /** When the last notification for this run was shown. */
  shownAt: number;
  /** Alerts held back since then, newest last. */
  held: AlertInfo[];
}

/** The rule in words (the health rules' own titles); an unknown rule (a newer endpoint's) by its id. */
const ruleTitle = (a: AlertInfo): string => (RULE_TITLES as Record<string, string>)[a.rule] ?? a.rule;

const titleOf = (a: AlertInfo): string =>
  `${a.severity === 'critical' ? 'Critical' : 'Warning'}: ${ruleTitle(a)} — ${a.run}`;

const focusOf = (a: AlertInfo): AppFocus => ({ run: a.run, tag: a.tag, step: a.step });

const single = (a: AlertInfo): PlannedNotification => ({
  run: a.run,
  title: titleOf(a),
  body: a.advice ? `${a.message}\n${a.advice}` : a.message,
  focus: focusOf(a),
});

/** Pure apart from its own state: `offer` on each new alert, `due` on a timer to release summaries. */
export class NotificationLimiter {
  private readonly windows = new Map<string, RunWindow>();
  private readonly windowMs: number;

  constructor(private readonly opts: NotificationLimiterOptions) {
    this.windowMs = opts.windowMs ?? 30_000;
  }

  /** A new (raised or escalated) alert: the notification to show now, or null when held back. */
  offer(alert: AlertInfo): PlannedNotification[] {
    const now = this.opts.clock();
    const out = this.due(now);
    const w = this.windows.get(alert.run);
    if (w && now - w.shownAt < this.windowMs) {
      w.held.push(alert);
      return out;
    }
    this.windows.set(alert.run, { shownAt: now, held: [] });
    out.push(single(alert));
    return out;
  }

  /** Summaries for runs whose window has passed with alerts held back; each opens a new window. */
  due(now = this.opts.clock()): PlannedNotification[] {
    const out: PlannedNotification[] = [];
    for (const [run, w] of this.windows) {
      if (now - w.shownAt < this.windowMs) continue;
      if (w.held.length === 0) {
        this.windows.delete(run);
        continue;
      }
      const last = w.held[w.held.length - 1]!;
      const n = w.held.length;
      this.windows.set(run, { shownAt: now, held: [] });
      if (n === 1) {
        out.push(single(last));
        continue;
      }
      const rules = [...new Set(w.held.map(ruleTitle))].join(', ');
      out.push({
        run,
        title: `${n} more alert${n === 1 ? '' : 's'} — ${run}`,
        body: rules,
        focus: focusOf(last),
      });
    }
    return out;
  }

  /** Alerts currently held back (for tests and the tray tooltip). */
  heldCount(run?: string): number {
    let n = 0;
    for (const [r, w] of this.windows) if (run === undefined || r === run) n += w.held.length;
    return n;
  }
}
