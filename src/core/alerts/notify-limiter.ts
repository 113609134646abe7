// Rate-limits desktop notifications: one per run per window, a few per minute over all runs; the excess is summarised
// as "N more alerts". A critical never waits behind a warning, and a summary or burst names its worst alert first.

import type { AlertInfo, AppFocus, AppNotification, Severity } from '../../shared/domain';
import { ruleTitle as ruleTitleOf } from '../health';

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

/** Alerts held back, kept as a count, a few rule titles, the newest and the first critical (never one entry per
 * alert). */
interface Held {
  count: number;
  rules: Set<string>;
  runs: Set<string>;
  last: AlertInfo;
  /** The first critical among them: what a summary names and focuses (null: warnings only). */
  worst: AlertInfo | null;
}

interface RunWindow {
  /** When the last notification for this run was shown. */
  shownAt: number;
  /** The severity of that notification: a critical offered while it is a warning is shown at once. */
  severity: Severity;
  held: Held | null;
}

/** One notification shown, for the global budget; criticals are counted against criticals only. */
interface Shown {
  at: number;
  critical: boolean;
}

/** Runs tracked with a window of their own; an alert of a further run goes straight to the global gate. */
const MAX_RUN_WINDOWS = 10_000;
/** Rule titles and runs named in one summary (a remote's rule ids are its own: not trusted to be few). */
const MAX_NAMED = 8;
const MAX_RUNS_COUNTED = 10_000;

/** The rule in words (the health rules' own titles); an unknown rule (a newer endpoint's) by its id. */
const ruleTitle = (a: AlertInfo): string => ruleTitleOf(a.rule);

const titleOf = (a: AlertInfo): string =>
  `${a.severity === 'critical' ? 'Critical' : 'Warning'}: ${ruleTitle(a)} — ${a.run}`;

const focusOf = (a: AlertInfo): AppFocus => ({ run: a.run, tag: a.tag, step: a.step });

const isCritical = (a: AlertInfo): boolean => a.severity === 'critical';

const single = (a: AlertInfo): PlannedNotification => ({
  run: a.run,
  title: titleOf(a),
  body: a.advice ? `${a.message}\n${a.advice}` : a.message,
  focus: focusOf(a),
});

function hold(into: Held | null, from: Held): Held {
  const h = into ?? {
    count: 0,
    rules: new Set<string>(),
    runs: new Set<string>(),
    last: from.last,
    worst: null,
  };
  h.count += from.count;
  h.last = from.last;
  h.worst ??= from.worst;
  for (const r of from.rules) if (h.rules.size < MAX_NAMED + 1) h.rules.add(r);
  for (const r of from.runs) if (h.runs.size < MAX_RUNS_COUNTED) h.runs.add(r);
  return h;
}

/** Alerts as held: `alerts` is never empty. */
function heldOf(alerts: readonly AlertInfo[]): Held {
  let h: Held | null = null;
  for (const a of alerts)
    h = hold(h, {
      count: 1,
      rules: new Set([ruleTitle(a)]),
      runs: new Set([a.run]),
      last: a,
      worst: isCritical(a) ? a : null,
    });
  return h!;
}

/** Rule titles, the worst's first, a few at most. */
function ruleList(h: Held): string {
  const rules = h.worst
    ? [ruleTitle(h.worst), ...[...h.rules].filter((r) => r !== ruleTitle(h.worst!))]
    : [...h.rules];
  return rules.slice(0, MAX_NAMED).join(', ') + (h.rules.size > MAX_NAMED ? ', …' : '');
}

/** One held alert as itself; more as "N more alerts — RUN" (or "on K runs"), naming their rules; with a critical
 * among them, the critical first: "Critical: RULE — RUN (+N−1 more alerts)". */
function summary(h: Held): PlannedNotification {
  if (h.count === 1) return single(h.last);
  const where =
    h.runs.size === 1 ? h.last.run : `${h.runs.size}${h.runs.size >= MAX_RUNS_COUNTED ? '+' : ''} runs`;
  if (h.worst)
    return {
      run: h.worst.run,
      title: `${titleOf(h.worst)} (+${h.count - 1} more alert${h.count === 2 ? '' : 's'}${h.runs.size === 1 ? '' : ` on ${where}`})`,
      body: `${h.worst.message}\nAlso: ${ruleList(h)}`,
      focus: focusOf(h.worst),
    };
  return {
    run: h.last.run,
    title: `${h.count} more alerts — ${where}`,
    body: ruleList(h),
    focus: focusOf(h.last),
  };
}

/** Alerts raised together for one run, as one notification: the worst (the first critical, else the first) with
 * its message and advice, then "+N more" naming the others' rules. `alerts` is never empty. */
function burst(alerts: readonly AlertInfo[]): PlannedNotification {
  const worst = alerts.find(isCritical) ?? alerts[0]!;
  const one = single(worst);
  if (alerts.length === 1) return one;
  const others = [...new Set(alerts.filter((a) => a !== worst).map(ruleTitle))];
  const more = alerts.length - 1;
  return {
    ...one,
    title: `${one.title} (+${more} more alert${more === 1 ? '' : 's'})`,
    body: `${one.body}\nAlso: ${others.slice(0, MAX_NAMED).join(', ')}${others.length > MAX_NAMED ? ', …' : ''}`,
  };
}

/** Pure apart from its own state: `offer` on each new alert, `due` on a timer to release summaries. */
export class NotificationLimiter {
  private readonly windows = new Map<string, RunWindow>();
  private readonly windowMs: number;
  private readonly globalMax: number;
  private readonly globalWindowMs: number;
  /** The notifications shown in the last globalWindowMs. */
  private shown: Shown[] = [];
  /** What the global gate held back since its last summary. */
  private overflow: Held | null = null;

  constructor(private readonly opts: NotificationLimiterOptions) {
    this.windowMs = opts.windowMs ?? 30_000;
    this.globalMax = Math.max(1, opts.globalMax ?? 5);
    this.globalWindowMs = opts.globalWindowMs ?? 60_000;
  }

  /** A new (raised or escalated) alert: the notifications to show now (none when held back). */
  offer(alert: AlertInfo): PlannedNotification[] {
    return this.offerAll([alert]);
  }

  /** Alerts raised together (one batch of the engine): per run, one notification naming the worst; a critical is
   * shown at once unless this run's window already showed a critical (it never waits behind a warning). */
  offerAll(alerts: readonly AlertInfo[]): PlannedNotification[] {
    const now = this.opts.clock();
    const out = this.due(now);
    const byRun = new Map<string, AlertInfo[]>();
    for (const a of alerts) {
      const list = byRun.get(a.run);
      if (list) list.push(a);
      else byRun.set(a.run, [a]);
    }
    for (const [run, list] of byRun) {
      const w = this.windows.get(run);
      const open = w !== undefined && now - w.shownAt < this.windowMs;
      // An open window holds everything, but for criticals when what it showed was a warning.
      const show = !open ? list : w.severity === 'warning' ? list.filter(isCritical) : [];
      const held = list.filter((a) => !show.includes(a));
      if (w && held.length > 0) w.held = hold(w.held, heldOf(held));
      if (show.length === 0) continue;
      const severity: Severity = show.some(isCritical) ? 'critical' : 'warning';
      if (w || this.windows.size < MAX_RUN_WINDOWS)
        this.windows.set(run, { shownAt: now, severity, held: w && open ? w.held : null });
      this.gate(burst(show), heldOf(show), now, out);
    }
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
      this.windows.set(run, { shownAt: now, severity: held.worst ? 'critical' : 'warning', held: null });
      this.gate(summary(held), held, now, out);
    }
    if (this.overflow !== null && this.room(now, this.overflow.worst !== null)) {
      this.shown.push({ at: now, critical: this.overflow.worst !== null });
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

  /** Shows `n` when fewer than globalMax were shown in the last globalWindowMs (a critical: fewer than globalMax
   * criticals, so a flood of warnings never holds one back); else folds `held` into the global summary. */
  private gate(n: PlannedNotification, held: Held, now: number, out: PlannedNotification[]): void {
    const critical = held.worst !== null;
    const queued = critical ? (this.overflow?.worst ?? null) !== null : this.overflow !== null;
    if (!queued && this.room(now, critical)) {
      this.shown.push({ at: now, critical });
      out.push(n);
    } else this.overflow = hold(this.overflow, held);
  }

  private room(now: number, critical: boolean): boolean {
    this.shown = this.shown.filter((s) => now - s.at < this.globalWindowMs);
    return this.shown.filter((s) => !critical || s.critical).length < this.globalMax;
  }
}
