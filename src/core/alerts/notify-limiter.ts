// Rate-limits desktop notifications: one per run per window, a few per minute over all runs; the excess is summarised as "N more alerts".

import type { AlertInfo, AppFocus, AppNotification } from '../../shared/domain';
import { RULE_TITLES } from '../health';

/** What the limiter decides to show; the contract's push payload, so every host shows the same. */
export type PlannedNotification = AppNotification;

export interface NotificationLimiterOptions {
  /** ms since epoch; injected so tests are deterministic. */
  clock: () => number;
  /** At most one notification per run per this many ms (default 30 s). */
  windowMs?: number;
  /** At most this many notifications over all runs per `globalWindowMs` (default 5 per minute): 5,000 runs
   * raising at once (a remote's flood) show five, then one summary "N more alerts". */
  globalMax?: number;
  globalWindowMs?: number;
}

/** Alerts held back, kept as a count, a few rule titles and the newest (never one entry per alert). */
interface Held {
  count: number;
  rules: Set<string>;
  runs: Set<string>;
  last: AlertInfo;
}

interface RunWindow {
  /** When the last notification for this run was shown. */
  shownAt: number;
  held: Held | null;
}

/** Runs tracked with a window of their own; an alert of a further run goes straight to the global gate. */
const MAX_RUN_WINDOWS = 10_000;
/** Rule titles and runs named in one summary (a remote's rule ids are its own: not trusted to be few). */
const MAX_NAMED = 8;
const MAX_RUNS_COUNTED = 10_000;

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

function hold(into: Held | null, from: Held): Held {
  const h = into ?? { count: 0, rules: new Set<string>(), runs: new Set<string>(), last: from.last };
  h.count += from.count;
  h.last = from.last;
  for (const r of from.rules) if (h.rules.size < MAX_NAMED + 1) h.rules.add(r);
  for (const r of from.runs) if (h.runs.size < MAX_RUNS_COUNTED) h.runs.add(r);
  return h;
}

const heldOf = (a: AlertInfo): Held => ({
  count: 1,
  rules: new Set([ruleTitle(a)]),
  runs: new Set([a.run]),
  last: a,
});

/** One held alert as itself; more as "N more alerts — RUN" (or "on K runs"), naming their rules. */
function summary(h: Held): PlannedNotification {
  if (h.count === 1) return single(h.last);
  const rules = [...h.rules].slice(0, MAX_NAMED);
  const where =
    h.runs.size === 1 ? h.last.run : `${h.runs.size}${h.runs.size >= MAX_RUNS_COUNTED ? '+' : ''} runs`;
  return {
    run: h.last.run,
    title: `${h.count} more alerts — ${where}`,
    body: rules.join(', ') + (h.rules.size > MAX_NAMED ? ', …' : ''),
    focus: focusOf(h.last),
  };
}

/** Pure apart from its own state: `offer` on each new alert, `due` on a timer to release summaries. */
export class NotificationLimiter {
  private readonly windows = new Map<string, RunWindow>();
  private readonly windowMs: number;
  private readonly globalMax: number;
  private readonly globalWindowMs: number;
  /** When each of the last (at most globalMax) notifications was shown. */
  private shownAt: number[] = [];
  /** What the global gate held back since its last summary. */
  private overflow: Held | null = null;

  constructor(private readonly opts: NotificationLimiterOptions) {
    this.windowMs = opts.windowMs ?? 30_000;
    this.globalMax = Math.max(1, opts.globalMax ?? 5);
    this.globalWindowMs = opts.globalWindowMs ?? 60_000;
  }

  /** A new (raised or escalated) alert: the notifications to show now (none when held back). */
  offer(alert: AlertInfo): PlannedNotification[] {
    const now = this.opts.clock();
    const out = this.due(now);
    const w = this.windows.get(alert.run);
    if (w && now - w.shownAt < this.windowMs) {
      w.held = hold(w.held, heldOf(alert));
      return out;
    }
    if (w || this.windows.size < MAX_RUN_WINDOWS) this.windows.set(alert.run, { shownAt: now, held: null });
    this.gate(single(alert), heldOf(alert), now, out);
    return out;
  }

  /** Summaries for runs whose window has passed with alerts held back (each opens a new window), then the
   * global gate's own summary once it has room. */
  due(now = this.opts.clock()): PlannedNotification[] {
    const out: PlannedNotification[] = [];
    for (const [run, w] of this.windows) {
      if (now - w.shownAt < this.windowMs) continue;
      if (w.held === null) {
        this.windows.delete(run);
        continue;
      }
      const held = w.held;
      this.windows.set(run, { shownAt: now, held: null });
      this.gate(summary(held), held, now, out);
    }
    if (this.overflow !== null && this.room(now)) {
      this.shownAt.push(now);
      out.push(summary(this.overflow));
      this.overflow = null;
    }
    return out;
  }

  /** Alerts currently held back (for tests and the tray tooltip); with a run, that run's own window only. */
  heldCount(run?: string): number {
    let n = 0;
    for (const [r, w] of this.windows) if (run === undefined || r === run) n += w.held?.count ?? 0;
    return run === undefined ? n + (this.overflow?.count ?? 0) : n;
  }

  /** Shows `n` when fewer than globalMax were shown in the last globalWindowMs; else folds `held` into the
   * global summary. */
  private gate(n: PlannedNotification, held: Held, now: number, out: PlannedNotification[]): void {
    if (this.overflow === null && this.room(now)) {
      this.shownAt.push(now);
      out.push(n);
    } else this.overflow = hold(this.overflow, held);
  }

  private room(now: number): boolean {
    this.shownAt = this.shownAt.filter((t) => now - t < this.globalWindowMs);
    return this.shownAt.length < this.globalMax;
  }
}
