// Alerts as the contract shows them: active and cleared this session, plus earlier sessions' history from the store.

import type { AlertChange, AlertInfo } from '../../shared/domain';
import { alertId, parseAlertId, type Alert, type AlertTransition, type RuleId } from '../health';
import type { AlertRecord, Store } from '../store';
import type { RunPath } from './alert-sink';

export function toAlertInfo(
  a: Alert,
  cleared: { at: number; step: number; wallTime: number | null; because?: string } | null = null,
): AlertInfo {
  return {
    id: a.id,
    rule: a.rule,
    severity: a.severity,
    run: a.run,
    tag: a.tag,
    tags: a.tags,
    step: a.step,
    wallTime: a.wallTime,
    value: a.value,
    statistic: a.statistic,
    message: a.message,
    advice: a.advice,
    ...(a.changed && a.changed.length > 0 ? { changed: a.changed } : {}),
    raisedAt: a.raisedAt,
    acknowledged: a.acknowledged,
    snoozedUntil: a.snoozedUntil,
    active: cleared === null,
    clearedAt: cleared?.at ?? null,
    clearedStep: cleared?.step ?? null,
    clearedWallTime: cleared?.wallTime ?? null,
    ...(cleared?.because !== undefined ? { clearedBecause: cleared.because } : {}),
  };
}

/** What a stored row's detail column says (tags, wall time, statistic, co-movers); anything unreadable is left out. */
function rowDetail(
  json: string | null | undefined,
): Partial<Pick<AlertInfo, 'tags' | 'wallTime' | 'statistic' | 'changed'>> {
  if (!json) return {};
  try {
    const d = JSON.parse(json) as Record<string, unknown>;
    const out: Partial<Pick<AlertInfo, 'tags' | 'wallTime' | 'statistic' | 'changed'>> = {};
    if (Array.isArray(d.changed) && d.changed.every((m) => typeof (m as { tag?: unknown })?.tag === 'string'))
      out.changed = d.changed as NonNullable<AlertInfo['changed']>;
    if (Array.isArray(d.tags) && d.tags.every((t) => typeof t === 'string')) out.tags = d.tags as string[];
    if (typeof d.wallTime === 'number') out.wallTime = d.wallTime;
    if (d.statistic !== null && typeof d.statistic === 'object')
      out.statistic = d.statistic as AlertInfo['statistic'];
    return out;
  } catch {
    return {};
  }
}

/** What an earlier session left for one run: snoozes still running, incidents acknowledged while open. */
export interface PersistedAlertState {
  snoozes: { id: string; until: number }[];
  acknowledged: Set<string>;
}

/** The run of an alert id (health/alert-id.ts); null for anything else a client might send. */
export function runOfAlertId(id: string): string | null {
  return parseAlertId(id)?.run ?? null;
}

const bySeverityThenNewest = (a: AlertInfo, b: AlertInfo): number => {
  if (a.active !== b.active) return a.active ? -1 : 1;
  if (a.severity !== b.severity) return a.severity === 'critical' ? -1 : 1;
  return b.raisedAt - a.raisedAt;
};

const HISTORY_LIMIT = 500;
const CLEARED_KEPT = 1000;

export class AlertRegistry {
  private readonly active = new Map<string, AlertInfo>();
  private readonly cleared: AlertInfo[] = [];

  constructor(
    private readonly store: () => Store,
    private readonly runPath: RunPath,
    /** Rows written by this session (they are already in `active`/`cleared`). */
    private readonly written: ReadonlySet<number>,
    /** The advice an earlier session's incident shows: worded for its run's world, as the live alert was. */
    private readonly adviceOf: (rule: RuleId, run: string) => string,
  ) {}

  apply(t: AlertTransition): AlertChange {
    if (t.kind === 'cleared') {
      const info = toAlertInfo(t.alert, { at: t.at, step: t.step, wallTime: t.wallTime, because: t.because });
      this.active.delete(t.alert.id);
      this.cleared.push(info);
      if (this.cleared.length > CLEARED_KEPT) this.cleared.shift();
      return { kind: 'cleared', alert: info };
    }
    const info = toAlertInfo(t.alert);
    this.active.set(info.id, info);
    // The same incident again (a run replayed from its start): one entry, never a cleared copy beside it.
    const copy = this.cleared.findIndex((c) => c.id === info.id);
    if (copy >= 0) this.cleared.splice(copy, 1);
    return { kind: t.kind, alert: info };
  }

  /** Mirrors an engine-side change (ack, snooze) into the active alert; null when it is not active. */
  update(
    id: string,
    patch: Partial<Pick<AlertInfo, 'acknowledged' | 'snoozedUntil' | 'tags' | 'changed' | 'message'>>,
  ): AlertInfo | null {
    const a = this.active.get(id);
    if (!a) return null;
    const next = { ...a, ...patch };
    this.active.set(id, next);
    return next;
  }

  /** The newest known incident of an id: active, else cleared this session, else from history. */
  latest(id: string, runs: readonly string[]): AlertInfo | null {
    const a = this.active.get(id);
    if (a) return a;
    for (let i = this.cleared.length - 1; i >= 0; i--)
      if (this.cleared[i]!.id === id) return this.cleared[i]!;
    const run = runOfAlertId(id);
    if (run === null || !runs.includes(run)) return null;
    return this.history(run).find((h) => h.id === id) ?? null;
  }

  /** Marks a cleared incident seen (nothing in the engine to change). */
  patchCleared(
    id: string,
    patch: Partial<Pick<AlertInfo, 'acknowledged' | 'snoozedUntil'>>,
  ): AlertInfo | null {
    for (let i = this.cleared.length - 1; i >= 0; i--) {
      if (this.cleared[i]!.id === id) {
        this.cleared[i] = { ...this.cleared[i]!, ...patch };
        return this.cleared[i]!;
      }
    }
    return null;
  }

  activeAlerts(run?: string): AlertInfo[] {
    return [...this.active.values()]
      .filter((a) => run === undefined || a.run === run)
      .sort(bySeverityThenNewest);
  }

  /** Active, then cleared this session, then earlier sessions (newest first), for the given open runs. */
  list(runs: readonly string[], run?: string): AlertInfo[] {
    const wanted = run === undefined ? runs : runs.filter((r) => r === run);
    const session = [
      ...this.activeAlerts(run),
      ...this.cleared.filter((a) => run === undefined || a.run === run).reverse(),
    ];
    // An earlier session's copy of an incident this session shows (the same run replayed) is not listed twice.
    const shown = new Set(session.map((a) => a.id));
    const past = wanted
      .flatMap((r) => this.history(r))
      .filter((a) => !shown.has(a.id))
      .sort((a, b) => b.raisedAt - a.raisedAt);
    return [...session, ...past];
  }

  forgetSession(): void {
    this.active.clear();
    this.cleared.length = 0;
  }

  /** Earlier sessions' incidents of one run, rebuilt from its rows (an escalation merges into its incident). */
  history(run: string): AlertInfo[] {
    return this.incidents(run).map((i) => i.info);
  }

  /** Snoozes still running and incidents acknowledged while open, as an earlier session left them. */
  persisted(run: string, now: number): PersistedAlertState {
    const snoozes = new Map<string, number>();
    const acknowledged = new Set<string>();
    for (const i of this.incidents(run)) {
      const { info } = i;
      // incidents() is newest first: the first seen per id is the latest.
      if (!snoozes.has(info.id) && info.snoozedUntil !== null && info.snoozedUntil > now)
        snoozes.set(info.id, info.snoozedUntil);
      if (i.latestForId && info.clearedAt === null && info.acknowledged) acknowledged.add(info.id);
    }
    return { snoozes: [...snoozes].map(([id, until]) => ({ id, until })), acknowledged };
  }

  /** Newest first. */
  private incidents(run: string): { info: AlertInfo; latestForId: boolean }[] {
    const path = this.runPath(run);
    if (path === null) return [];
    let rows: AlertRecord[];
    try {
      rows = this.store().alertHistory({ run: path, limit: HISTORY_LIMIT });
    } catch {
      return [];
    }
    const open = new Map<string, AlertInfo>();
    const done: AlertInfo[] = [];
    for (const r of rows.filter((x) => !this.written.has(x.id)).reverse()) {
      const id = r.incident ?? alertId(run, r.rule as RuleId, r.tag, r.step ?? Number.NaN);
      const cur = open.get(id);
      const detail = rowDetail(r.detail);
      if (r.state === 'cleared') {
        if (cur) {
          // A snooze or ack set after the incident cleared lives on its cleared row.
          done.push({
            ...cur,
            clearedAt: r.at,
            clearedStep: r.step,
            clearedWallTime: detail.wallTime ?? null,
            acknowledged: cur.acknowledged || r.acknowledgedAt !== null,
            snoozedUntil: r.snoozedUntil ?? cur.snoozedUntil,
            // The co-movers as the incident knew them when it cleared (a late point can add some after the raise).
            ...(detail.changed ? { changed: detail.changed, message: r.message } : {}),
          });
          open.delete(id);
        }
        continue;
      }
      const severity = r.severity === 'critical' ? 'critical' : 'warning';
      if (cur) {
        open.set(id, {
          ...cur,
          severity: cur.severity === 'critical' ? 'critical' : severity,
          step: r.step ?? cur.step,
          value: r.value ?? cur.value,
          ...detail,
          message: r.message,
          acknowledged: cur.acknowledged || r.acknowledgedAt !== null,
          snoozedUntil: r.snoozedUntil ?? cur.snoozedUntil,
        });
        continue;
      }
      open.set(id, {
        id,
        rule: r.rule,
        severity,
        run,
        tag: r.tag,
        tags: r.tag === null ? [] : [r.tag],
        step: r.step ?? 0,
        wallTime: null,
        value: r.value ?? Number.NaN,
        statistic: null,
        ...detail,
        message: r.message,
        advice: this.adviceOf(r.rule as RuleId, run) || null,
        raisedAt: r.at,
        acknowledged: r.acknowledgedAt !== null,
        snoozedUntil: r.snoozedUntil,
        active: false,
        clearedAt: null,
        clearedStep: null,
        clearedWallTime: null,
      });
    }
    // Incidents still open when that session ended: not active now (this session re-evaluates the run).
    const all = [...done, ...open.values()].sort((a, b) => b.raisedAt - a.raisedAt);
    const seen = new Set<string>();
    return all.map((info) => {
      const latestForId = !seen.has(info.id);
      seen.add(info.id);
      return { info, latestForId };
    });
  }
}
