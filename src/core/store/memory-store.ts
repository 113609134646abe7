// The fallback Store: same interface, held in memory, so the app keeps working when SQLite cannot.

import type {
  AlertInput,
  AlertQuery,
  AlertRecord,
  JsonValue,
  PruneResult,
  RecentRun,
  Retention,
  RunMeta,
  RunMetaUpdate,
  RunView,
  Store,
  StoreStatus,
  SystemSample,
} from './types';
import { DEFAULT_RETENTION } from './types';

interface RunEntry extends RunMeta {
  view: RunView | null;
}

/** Values are cloned through JSON on the way in and out, as the SQLite store's are, so callers see
 * the same aliasing behaviour whichever store they got. */
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export class MemoryStore implements Store {
  private readonly runs = new Map<string, RunEntry>();
  private readonly settings = new Map<string, string>();
  private readonly alerts: AlertRecord[] = [];
  private samples: SystemSample[] = [];
  private nextId = 1;

  constructor(
    readonly status: StoreStatus,
    private readonly retention: Retention = DEFAULT_RETENTION,
  ) {}

  private entry(path: string, at: number): RunEntry {
    let e = this.runs.get(path);
    if (!e) {
      e = {
        path,
        firstSeen: at,
        lastSeen: at,
        lastOpened: null,
        lastEventAt: null,
        fileWrittenAt: null,
        view: null,
      };
      this.runs.set(path, e);
    }
    return e;
  }

  recentRuns(limit = 20): RecentRun[] {
    return [...this.runs.values()]
      .filter((e) => e.lastOpened !== null)
      .sort((a, b) => b.lastOpened! - a.lastOpened!)
      .slice(0, limit)
      .map((e) => ({ path: e.path, lastOpened: e.lastOpened!, view: e.view && clone(e.view) }));
  }

  touchRun(path: string, at: number): void {
    const e = this.entry(path, at);
    e.lastOpened = at;
    e.lastSeen = Math.max(e.lastSeen, at);
  }

  saveRunView(path: string, view: RunView, at: number): void {
    const e = this.entry(path, at);
    e.view = clone(view);
    e.lastOpened ??= at;
  }

  forgetRecentRun(path: string): void {
    const e = this.runs.get(path);
    if (e) e.lastOpened = null;
  }

  runMeta(path: string): RunMeta | null {
    const e = this.runs.get(path);
    if (!e) return null;
    const { view: _view, ...meta } = e;
    return meta;
  }

  updateRunMeta(batch: readonly RunMetaUpdate[]): void {
    for (const u of batch) {
      const e = this.entry(u.path, u.seenAt);
      e.firstSeen = Math.min(e.firstSeen, u.seenAt);
      e.lastSeen = Math.max(e.lastSeen, u.seenAt);
      if (u.lastEventAt != null) e.lastEventAt = u.lastEventAt;
      if (u.fileWrittenAt != null) e.fileWrittenAt = u.fileWrittenAt;
    }
  }

  getSetting(key: string): JsonValue | undefined {
    const v = this.settings.get(key);
    return v === undefined ? undefined : (JSON.parse(v) as JsonValue);
  }

  setSetting(key: string, value: JsonValue): void {
    this.settings.set(key, JSON.stringify(value));
  }

  deleteSetting(key: string): void {
    this.settings.delete(key);
  }

  allSettings(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of this.settings) out[k] = JSON.parse(v) as JsonValue;
    return out;
  }

  recordAlert(alert: AlertInput): number {
    // One transition of one incident is stored once (the SQLite store's unique index).
    const same = alert.incident
      ? this.alerts.find(
          (a) =>
            a.incident === alert.incident &&
            a.run === alert.run &&
            a.state === alert.state &&
            a.severity === alert.severity &&
            a.step === alert.step,
        )
      : undefined;
    if (same) return same.id;
    const id = this.nextId++;
    this.alerts.push({ ...alert, id, acknowledgedAt: null, snoozedUntil: null });
    return id;
  }

  recordAlerts(batch: readonly AlertInput[]): number[] {
    return batch.map((a) => this.recordAlert(a));
  }

  acknowledgeAlert(id: number, at: number): void {
    const a = this.alerts.find((x) => x.id === id);
    if (a) a.acknowledgedAt = at;
  }

  snoozeAlert(id: number, until: number | null): void {
    const a = this.alerts.find((x) => x.id === id);
    if (a) a.snoozedUntil = until;
  }

  alertHistory(query: AlertQuery | string = {}): AlertRecord[] {
    const q = typeof query === 'string' ? { run: query } : query;
    return this.alerts
      .filter((a) => (q.run === undefined || a.run === q.run) && (q.since === undefined || a.at >= q.since))
      .sort((a, b) => b.at - a.at || b.id - a.id)
      .slice(0, q.limit ?? 1000)
      .map((a) => ({ ...a }));
  }

  appendSystemSamples(batch: readonly SystemSample[]): void {
    for (const s of batch) this.samples.push({ t: s.t, snapshot: clone(s.snapshot) });
    // Memory has no disk to spill to: enforce the row cap as we go instead of waiting for prune().
    const cap = Math.max(0, this.retention.systemSampleMaxRows);
    if (this.samples.length > cap * 1.1) {
      this.samples.sort((a, b) => a.t - b.t);
      this.samples = this.samples.slice(this.samples.length - cap);
    }
  }

  systemSamples(since: number, until = Number.MAX_SAFE_INTEGER, limit = -1): SystemSample[] {
    const out = this.samples
      .filter((s) => s.t >= since && s.t <= until)
      .sort((a, b) => a.t - b.t)
      .map((s) => ({ t: s.t, snapshot: clone(s.snapshot) }));
    return limit >= 0 ? out.slice(0, limit) : out;
  }

  systemSampleCount(): number {
    return this.samples.length;
  }

  prune(now: number, retention: Partial<Retention> = {}): PruneResult {
    const r = { ...this.retention, ...retention };
    const before = this.samples.length;
    const kept = this.samples.filter((s) => s.t >= now - r.systemSampleMaxAgeMs).sort((a, b) => a.t - b.t);
    this.samples = kept.slice(Math.max(0, kept.length - Math.max(0, r.systemSampleMaxRows)));
    const alertsBefore = this.alerts.length;
    const keptAlerts = this.alerts.filter((a) => a.at >= now - r.alertMaxAgeMs);
    this.alerts.splice(0, this.alerts.length, ...keptAlerts);
    return { systemSamples: before - this.samples.length, alerts: alertsBefore - keptAlerts.length };
  }

  close(): void {}
}
