// The better-sqlite3-backed Store: prepared statements once, batches in single transactions.

import type Database from 'better-sqlite3';
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

type Db = Database.Database;

interface RunRow {
  path: string;
  first_seen: number;
  last_seen: number;
  last_opened: number | null;
  last_event_at: number | null;
  file_written_at: number | null;
  view: string | null;
}

interface AlertRow {
  id: number;
  run: string;
  rule: string;
  tag: string | null;
  severity: AlertRecord['severity'];
  state: AlertRecord['state'];
  step: number | null;
  value: number | string | null;
  message: string;
  at: number;
  acknowledged_at: number | null;
  snoozed_until: number | null;
  incident: string | null;
  detail: string | null;
}

const encodeValue = (v: number | null): number | string | null => (v !== null && Number.isNaN(v) ? 'NaN' : v);
const decodeValue = (v: number | string | null): number | null => (typeof v === 'string' ? Number.NaN : v);

function parseView(text: string | null): RunView | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as RunView) : null;
  } catch {
    // A hand-edited or half-written blob must not take the recent list down with it.
    return null;
  }
}

function toAlert(r: AlertRow): AlertRecord {
  return {
    id: r.id,
    run: r.run,
    rule: r.rule,
    tag: r.tag,
    severity: r.severity,
    state: r.state,
    step: r.step,
    value: decodeValue(r.value),
    message: r.message,
    at: r.at,
    acknowledgedAt: r.acknowledged_at,
    snoozedUntil: r.snoozed_until,
    incident: r.incident,
    detail: r.detail,
  };
}

export class SqliteStore implements Store {
  private readonly s;
  private readonly insertAlerts: (batch: readonly AlertInput[]) => number[];
  private readonly insertSamples: (batch: readonly SystemSample[]) => void;
  private readonly applyMeta: (batch: readonly RunMetaUpdate[]) => void;
  private closed = false;

  constructor(
    private readonly db: Db,
    readonly status: StoreStatus,
    private readonly retention: Retention = DEFAULT_RETENTION,
  ) {
    this.s = {
      recent: db.prepare<[number], RunRow>(
        'SELECT * FROM runs WHERE last_opened IS NOT NULL ORDER BY last_opened DESC LIMIT ?',
      ),
      touch: db.prepare<[{ path: string; at: number }]>(
        `INSERT INTO runs (path, first_seen, last_seen, last_opened) VALUES (@path, @at, @at, @at)
         ON CONFLICT(path) DO UPDATE SET last_opened = excluded.last_opened,
           last_seen = max(last_seen, excluded.last_seen)`,
      ),
      saveView: db.prepare<[{ path: string; at: number; view: string }]>(
        `INSERT INTO runs (path, first_seen, last_seen, last_opened, view) VALUES (@path, @at, @at, @at, @view)
         ON CONFLICT(path) DO UPDATE SET view = excluded.view,
           last_opened = coalesce(last_opened, excluded.last_opened)`,
      ),
      forget: db.prepare<[string]>('UPDATE runs SET last_opened = NULL WHERE path = ?'),
      meta: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE path = ?'),
      // coalesce(?, col): an omitted field is bound as NULL and keeps the stored value.
      upsertMeta: db.prepare<[{ path: string; at: number; event: number | null; written: number | null }]>(
        `INSERT INTO runs (path, first_seen, last_seen, last_event_at, file_written_at)
         VALUES (@path, @at, @at, @event, @written)
         ON CONFLICT(path) DO UPDATE SET
           first_seen = min(first_seen, excluded.first_seen),
           last_seen = max(last_seen, excluded.last_seen),
           last_event_at = coalesce(excluded.last_event_at, last_event_at),
           file_written_at = coalesce(excluded.file_written_at, file_written_at)`,
      ),
      getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
      setSetting: db.prepare<[string, string, number]>(
        `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
      deleteSetting: db.prepare<[string]>('DELETE FROM settings WHERE key = ?'),
      allSettings: db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings'),
      // A transition of an incident already stored (the same run replayed) answers the stored row's id.
      insertAlert: db.prepare<
        [
          string,
          string,
          string | null,
          string,
          string,
          number | null,
          number | string | null,
          string,
          number,
          string | null,
          string | null,
        ],
        { id: number }
      >(
        `INSERT INTO alerts (run, rule, tag, severity, state, step, value, message, at, incident, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(run, incident, state, severity, step) WHERE incident IS NOT NULL
         DO UPDATE SET incident = excluded.incident
         RETURNING id`,
      ),
      ack: db.prepare<[number, number]>('UPDATE alerts SET acknowledged_at = ? WHERE id = ?'),
      snooze: db.prepare<[number | null, number]>('UPDATE alerts SET snoozed_until = ? WHERE id = ?'),
      alertsAll: db.prepare<[number, number], AlertRow>(
        'SELECT * FROM alerts WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?',
      ),
      alertsRun: db.prepare<[string, number, number], AlertRow>(
        'SELECT * FROM alerts WHERE run = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?',
      ),
      insertSample: db.prepare<[number, string]>('INSERT INTO system_samples (t, snapshot) VALUES (?, ?)'),
      samples: db.prepare<[number, number, number], { t: number; snapshot: string }>(
        'SELECT t, snapshot FROM system_samples WHERE t >= ? AND t <= ? ORDER BY t, rowid LIMIT ?',
      ),
      sampleCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM system_samples'),
      pruneSamplesAge: db.prepare<[number]>('DELETE FROM system_samples WHERE t < ?'),
      // Keeps the newest `n` by time; ORDER BY uses the t index, so no sort of the whole table.
      pruneSamplesRows: db.prepare<[number]>(
        `DELETE FROM system_samples WHERE rowid IN
           (SELECT rowid FROM system_samples ORDER BY t DESC, rowid DESC LIMIT -1 OFFSET ?)`,
      ),
      pruneAlerts: db.prepare<[number]>('DELETE FROM alerts WHERE at < ?'),
    };
    const s = this.s;
    this.insertAlerts = db.transaction((batch: readonly AlertInput[]) =>
      batch.map((a) =>
        Number(
          s.insertAlert.get(
            a.run,
            a.rule,
            a.tag,
            a.severity,
            a.state,
            a.step,
            encodeValue(a.value),
            a.message,
            a.at,
            a.incident ?? null,
            a.detail ?? null,
          )!.id,
        ),
      ),
    );
    this.insertSamples = db.transaction((batch: readonly SystemSample[]) => {
      for (const x of batch) s.insertSample.run(x.t, JSON.stringify(x.snapshot));
    });
    this.applyMeta = db.transaction((batch: readonly RunMetaUpdate[]) => {
      for (const u of batch)
        s.upsertMeta.run({
          path: u.path,
          at: u.seenAt,
          event: u.lastEventAt ?? null,
          written: u.fileWrittenAt ?? null,
        });
    });
  }

  recentRuns(limit = 20): RecentRun[] {
    return this.s.recent.all(limit).map((r) => ({
      path: r.path,
      lastOpened: r.last_opened!,
      view: parseView(r.view),
    }));
  }

  touchRun(path: string, at: number): void {
    this.s.touch.run({ path, at });
  }

  saveRunView(path: string, view: RunView, at: number): void {
    this.s.saveView.run({ path, at, view: JSON.stringify(view) });
  }

  forgetRecentRun(path: string): void {
    this.s.forget.run(path);
  }

  runMeta(path: string): RunMeta | null {
    const r = this.s.meta.get(path);
    if (!r) return null;
    return {
      path: r.path,
      firstSeen: r.first_seen,
      lastSeen: r.last_seen,
      lastOpened: r.last_opened,
      lastEventAt: r.last_event_at,
      fileWrittenAt: r.file_written_at,
    };
  }

  updateRunMeta(batch: readonly RunMetaUpdate[]): void {
    if (batch.length) this.applyMeta(batch);
  }

  getSetting(key: string): JsonValue | undefined {
    const r = this.s.getSetting.get(key);
    return r ? (JSON.parse(r.value) as JsonValue) : undefined;
  }

  setSetting(key: string, value: JsonValue): void {
    this.s.setSetting.run(key, JSON.stringify(value), Date.now());
  }

  deleteSetting(key: string): void {
    this.s.deleteSetting.run(key);
  }

  allSettings(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const r of this.s.allSettings.all()) out[r.key] = JSON.parse(r.value) as JsonValue;
    return out;
  }

  recordAlert(alert: AlertInput): number {
    return this.insertAlerts([alert])[0]!;
  }

  recordAlerts(batch: readonly AlertInput[]): number[] {
    return batch.length ? this.insertAlerts(batch) : [];
  }

  acknowledgeAlert(id: number, at: number): void {
    this.s.ack.run(at, id);
  }

  snoozeAlert(id: number, until: number | null): void {
    this.s.snooze.run(until, id);
  }

  alertHistory(query: AlertQuery | string = {}): AlertRecord[] {
    const q = typeof query === 'string' ? { run: query } : query;
    const since = q.since ?? -Number.MAX_SAFE_INTEGER;
    const limit = q.limit ?? 1000;
    const rows =
      q.run === undefined ? this.s.alertsAll.all(since, limit) : this.s.alertsRun.all(q.run, since, limit);
    return rows.map(toAlert);
  }

  appendSystemSamples(batch: readonly SystemSample[]): void {
    if (batch.length) this.insertSamples(batch);
  }

  systemSamples(since: number, until = Number.MAX_SAFE_INTEGER, limit = -1): SystemSample[] {
    return this.s.samples
      .all(since, until, limit)
      .map((r) => ({ t: r.t, snapshot: JSON.parse(r.snapshot) as JsonValue }));
  }

  systemSampleCount(): number {
    return this.s.sampleCount.get()!.n;
  }

  prune(now: number, retention: Partial<Retention> = {}): PruneResult {
    const r = { ...this.retention, ...retention };
    return this.db.transaction(() => {
      let systemSamples = this.s.pruneSamplesAge.run(now - r.systemSampleMaxAgeMs).changes;
      systemSamples += this.s.pruneSamplesRows.run(Math.max(0, r.systemSampleMaxRows)).changes;
      const alerts = this.s.pruneAlerts.run(now - r.alertMaxAgeMs).changes;
      return { systemSamples, alerts };
    })();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Folds the WAL back so the file is self-contained when copied or moved by the user.
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Another connection may hold a read lock; the WAL stays valid and is replayed on next open.
    }
    this.db.close();
  }
}
