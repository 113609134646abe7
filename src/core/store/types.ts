// The persistent store's interface and records: what rlwatch keeps that is not in the run folders.

/** Anything JSON.stringify round-trips; settings and snapshots are stored as JSON text. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type XAxisMode = 'step' | 'relative' | 'wall';

/** How a run was last viewed. Stored as one JSON blob: the UI owns its shape, the DB only keeps it. */
export interface RunView {
  selectedRun?: string | null;
  pinnedCharts?: string[];
  smoothing?: number;
  xAxis?: XAxisMode;
  [key: string]: JsonValue | undefined;
}

export interface RecentRun {
  path: string;
  /** ms since epoch. */
  lastOpened: number;
  view: RunView | null;
}

/** Freshness and sighting times for one run; all ms since epoch, null when never known. */
export interface RunMeta {
  path: string;
  firstSeen: number;
  lastSeen: number;
  lastOpened: number | null;
  lastEventAt: number | null;
  fileWrittenAt: number | null;
}

/** One update from the watcher; missing fields keep their stored value. */
export interface RunMetaUpdate {
  path: string;
  seenAt: number;
  lastEventAt?: number | null;
  fileWrittenAt?: number | null;
}

export type AlertSeverity = 'info' | 'warning' | 'critical';
export type AlertState = 'raised' | 'cleared';

export interface AlertInput {
  run: string;
  rule: string;
  tag: string | null;
  severity: AlertSeverity;
  state: AlertState;
  step: number | null;
  /** NaN and ±Infinity round-trip: a NaN loss is the alert people most need to see. */
  value: number | null;
  message: string;
  /** ms since epoch. */
  at: number;
  /** The incident's id (run, rule, quantity, onset step): one transition of one incident is stored once, so
   * replaying a run records nothing new. Absent on rows from before incidents had ids. */
  incident?: string | null;
  /** JSON of what the alert cites besides step and value (tags, wall time, statistic). */
  detail?: string | null;
}

export interface AlertRecord extends AlertInput {
  id: number;
  acknowledgedAt: number | null;
  snoozedUntil: number | null;
}

export interface AlertQuery {
  run?: string;
  /** Only alerts at or after this time (ms). */
  since?: number;
  /** Newest first; default 1000. */
  limit?: number;
}

export interface SystemSample {
  /** ms since epoch. */
  t: number;
  snapshot: JsonValue;
}

export interface Retention {
  /** Drop system samples older than now − this (ms). */
  systemSampleMaxAgeMs: number;
  /** Keep at most this many system samples (newest win). */
  systemSampleMaxRows: number;
  /** Drop alerts older than now − this (ms). */
  alertMaxAgeMs: number;
}

export interface PruneResult {
  systemSamples: number;
  alerts: number;
}

/** Why the store is not persistent. The app shows `reason`; `kind` lets it choose wording/actions. */
export type StoreFailureKind =
  /** better-sqlite3's native addon did not load (ABI mismatch, missing build, bad nativeBinding). */
  | 'native-module'
  /** The location cannot be created/written (read-only, permissions, not a directory). */
  | 'cannot-open'
  /** The file was written by a newer rlwatch; left untouched so a downgrade loses nothing. */
  | 'newer-schema'
  /** Corrupt, and moving it aside or rebuilding failed too. */
  | 'corrupt-unrecoverable'
  /** The caller asked for memory only (tests, `--no-store`). */
  | 'memory-requested'
  /** It opened, then a query failed (SQLITE_IOERR, SQLITE_CORRUPT…; a full disk is waited out): the session went on in memory. */
  | 'failed-after-open';

export interface Recovery {
  /** Where the corrupt file went (the -wal/-shm went beside it with the same suffix). */
  movedTo: string;
  /** What made us decide it was corrupt. */
  cause: string;
}

export type StoreStatus =
  | { persistent: true; path: string; schemaVersion: number; recovered: Recovery | null }
  | { persistent: false; kind: StoreFailureKind; reason: string; path: string | null };

/** Small, synchronous methods: every call is one prepared statement or one transaction. */
export interface Store {
  readonly status: StoreStatus;

  /** Most recently opened first. */
  recentRuns(limit?: number): RecentRun[];
  /** Marks a run opened now (it joins/moves to the top of the recent list). */
  touchRun(path: string, at: number): void;
  saveRunView(path: string, view: RunView, at: number): void;
  forgetRecentRun(path: string): void;

  runMeta(path: string): RunMeta | null;
  /** Watcher freshness updates, batched into one transaction. */
  updateRunMeta(batch: readonly RunMetaUpdate[]): void;

  getSetting(key: string): JsonValue | undefined;
  setSetting(key: string, value: JsonValue): void;
  deleteSetting(key: string): void;
  allSettings(): Record<string, JsonValue>;

  /** Returns the new alert's id. */
  recordAlert(alert: AlertInput): number;
  recordAlerts(batch: readonly AlertInput[]): number[];
  acknowledgeAlert(id: number, at: number): void;
  snoozeAlert(id: number, until: number | null): void;
  alertHistory(query?: AlertQuery | string): AlertRecord[];

  appendSystemSamples(batch: readonly SystemSample[]): void;
  /** Oldest first, t in [since, until]. */
  systemSamples(since: number, until?: number, limit?: number): SystemSample[];
  systemSampleCount(): number;

  /** Applies the retention given, or the store's default; `now` in ms. */
  prune(now: number, retention?: Partial<Retention>): PruneResult;
  close(): void;
}

export const DEFAULT_RETENTION: Retention = {
  // 7 days at the sampler's 1 Hz is ~600k rows, a few hundred MB at most.
  systemSampleMaxAgeMs: 7 * 24 * 3600 * 1000,
  systemSampleMaxRows: 1_000_000,
  alertMaxAgeMs: 180 * 24 * 3600 * 1000,
};
