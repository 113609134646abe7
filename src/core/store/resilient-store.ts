// A Store that never throws: a locked or full database queues writes; a failing one (IOERR, CORRUPT…) swaps in memory.

import { describeStoreFailure } from './open';
import { MemoryStore } from './memory-store';
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

export interface StoreDegradation {
  /** SQLite's error code (SQLITE_IOERR_WRITE…) or the error's name. */
  code: string;
  /** The method that failed. */
  operation: string;
  /** What the app shows (also in `status.reason`). */
  reason: string;
}

const codeOf = (err: unknown): string =>
  err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string'
    ? err.code
    : err instanceof Error
      ? err.name
      : 'error';

/** Another connection holds the lock: transient, never a reason to give the database up. */
const isLocked = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(codeOf(err));
/** The disk holding the database is full (or its page cap is reached): room may come back, so the
 * database is kept and writes wait, as for a lock. Reads still work on a full database. */
const isFull = (err: unknown): boolean => /^SQLITE_FULL/.test(codeOf(err));
/** Worth waiting for: writes queue and are retried. */
const isTransient = (err: unknown): boolean => isLocked(err) || isFull(err);

/** The database ran out of room, or has room again: what the app tells the user. */
export interface StoreSpaceEvent {
  full: boolean;
  /** The method that met the full disk, or the queued write that landed first. */
  operation: string;
  message: string;
}

/** Writes kept while the database is locked; past this the oldest are dropped (and counted). */
const MAX_QUEUED_WRITES = 10_000;
/** How often queued writes are retried while the lock lasts. */
const RETRY_MS = 1000;

/**
 * Wraps an open store. A call that meets another process's lock (SQLITE_BUSY / LOCKED, after the
 * short busy wait set at open) or a full disk (SQLITE_FULL) does not give the database up: a write is
 * queued and replayed in order once the lock is gone or there is room (on the next call or a retry
 * timer), a read answers its fallback; a full disk is announced once, and again when room is back.
 * On the first other throw it copies what it can still read (settings, recent runs)
 * into a MemoryStore, closes the failing one, and serves every later call from memory: losing
 * history is acceptable, crashing the app or the watcher is not.
 */
export class ResilientStore implements Store {
  private inner: Store;
  private degradedWith: StoreDegradation | null = null;
  private readonly listeners = new Set<(d: StoreDegradation) => void>();
  private readonly queued: Array<{ operation: string; fn: (s: Store) => unknown }> = [];
  private droppedWrites = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set while the database is full (from the first SQLITE_FULL until a queued write lands). */
  private fullSince: string | null = null;
  private readonly spaceListeners = new Set<(e: StoreSpaceEvent) => void>();

  constructor(
    inner: Store,
    private readonly retention?: Retention,
  ) {
    this.inner = inner;
  }

  /** Called once, when the store falls back to memory. */
  onDegraded(listener: (d: StoreDegradation) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Called when the database becomes full (once per episode) and when it has room again. */
  onSpace(listener: (e: StoreSpaceEvent) => void): () => void {
    this.spaceListeners.add(listener);
    return () => void this.spaceListeners.delete(listener);
  }

  /** Whether the database is full now (writes waiting for room). */
  get full(): boolean {
    return this.fullSince !== null;
  }

  get status(): StoreStatus {
    return this.inner.status;
  }

  get degradation(): StoreDegradation | null {
    return this.degradedWith;
  }

  /** Writes waiting for a lock to go, and how many were dropped past the queue's bound. */
  get pendingWrites(): { queued: number; dropped: number } {
    return { queued: this.queued.length, dropped: this.droppedWrites };
  }

  /** A write: queued behind earlier queued writes, and while the database is locked. */
  private write(operation: string, fn: (s: Store) => void): void {
    if (this.flush()) {
      this.guard(operation, () => undefined, fn, true);
    } else {
      this.enqueue(operation, fn);
    }
  }

  private enqueue(operation: string, fn: (s: Store) => unknown): void {
    if (this.queued.length >= MAX_QUEUED_WRITES) {
      this.queued.shift();
      this.droppedWrites++;
    }
    this.queued.push({ operation, fn });
    this.armRetry();
  }

  private armRetry(): void {
    if (this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.flush()) this.armRetry();
    }, RETRY_MS);
    this.retryTimer.unref?.();
  }

  /** Replays queued writes in order; true when none is left waiting. */
  private flush(): boolean {
    let landed: string | null = null;
    while (this.queued.length > 0) {
      const next = this.queued[0]!;
      try {
        next.fn(this.inner);
        landed ??= next.operation;
      } catch (err) {
        if (isTransient(err) && !this.degradedWith) {
          if (isFull(err)) this.markFull(next.operation);
          return false;
        }
        if (!this.degradedWith) this.degrade(next.operation, err);
      }
      this.queued.shift();
    }
    if (landed !== null && this.fullSince !== null) this.markRoom(landed);
    return true;
  }

  private markFull(operation: string): void {
    if (this.fullSince !== null) return;
    this.fullSince = operation;
    this.announce({
      full: true,
      operation,
      message:
        `the disk holding the database ${this.inner.status.path ?? ''} is full (SQLITE_FULL in ${operation}): ` +
        `rlwatch goes on; settings, alert and system history are kept in memory and written when there is ` +
        `room again (up to ${MAX_QUEUED_WRITES} writes, the oldest dropped past that). Run folders are only read.`,
    });
  }

  private markRoom(operation: string): void {
    this.fullSince = null;
    this.announce({
      full: false,
      operation,
      message: `the database has room again: the writes kept while the disk was full are saved${
        this.droppedWrites > 0 ? ` (${this.droppedWrites} dropped while waiting)` : ''
      }`,
    });
  }

  private announce(e: StoreSpaceEvent): void {
    for (const l of this.spaceListeners) {
      try {
        l(e);
      } catch {
        // A listener's failure must not turn a handled full disk into a crash.
      }
    }
  }

  private guard<T>(operation: string, fallbackValue: () => T, fn: (s: Store) => T, isWrite = false): T {
    try {
      return fn(this.inner);
    } catch (err) {
      if (this.degradedWith) return fallbackValue();
      if (isTransient(err)) {
        if (isWrite) this.enqueue(operation, fn);
        if (isFull(err)) this.markFull(operation);
        return fallbackValue();
      }
      this.degrade(operation, err);
      try {
        return fn(this.inner);
      } catch {
        return fallbackValue();
      }
    }
  }

  private degrade(operation: string, err: unknown): void {
    const code = codeOf(err);
    const detail = `${code} in ${operation}: ${err instanceof Error ? err.message : String(err)}`;
    const reason = describeStoreFailure('failed-after-open', detail);
    const failing = this.inner;
    const path = failing.status.path;
    const memory = new MemoryStore(
      { persistent: false, kind: 'failed-after-open', reason, path },
      this.retention,
    );
    // Carry over what a failing database may still give: the user's settings and recent list matter most.
    try {
      for (const [k, v] of Object.entries(failing.allSettings())) memory.setSetting(k, v);
    } catch {
      // Unreadable too: defaults it is.
    }
    try {
      for (const r of failing.recentRuns(50).reverse()) {
        memory.touchRun(r.path, r.lastOpened);
        if (r.view) memory.saveRunView(r.path, r.view, r.lastOpened);
      }
    } catch {
      // Same.
    }
    try {
      failing.close();
    } catch {
      // Closing a broken handle may fail; it is being dropped either way.
    }
    this.inner = memory;
    this.degradedWith = { code, operation, reason };
    for (const l of this.listeners) {
      try {
        l(this.degradedWith);
      } catch {
        // A listener's failure must not turn a handled store failure into a crash.
      }
    }
  }

  recentRuns(limit?: number): RecentRun[] {
    return this.guard(
      'recentRuns',
      () => [],
      (s) => s.recentRuns(limit),
    );
  }
  touchRun(path: string, at: number): void {
    this.write('touchRun', (s) => s.touchRun(path, at));
  }
  saveRunView(path: string, view: RunView, at: number): void {
    this.write('saveRunView', (s) => s.saveRunView(path, view, at));
  }
  forgetRecentRun(path: string): void {
    this.write('forgetRecentRun', (s) => s.forgetRecentRun(path));
  }
  runMeta(path: string): RunMeta | null {
    return this.guard(
      'runMeta',
      () => null,
      (s) => s.runMeta(path),
    );
  }
  updateRunMeta(batch: readonly RunMetaUpdate[]): void {
    this.write('updateRunMeta', (s) => s.updateRunMeta(batch));
  }
  getSetting(key: string): JsonValue | undefined {
    return this.guard(
      'getSetting',
      () => undefined,
      (s) => s.getSetting(key),
    );
  }
  setSetting(key: string, value: JsonValue): void {
    this.write('setSetting', (s) => s.setSetting(key, value));
  }
  deleteSetting(key: string): void {
    this.write('deleteSetting', (s) => s.deleteSetting(key));
  }
  allSettings(): Record<string, JsonValue> {
    return this.guard(
      'allSettings',
      () => ({}),
      (s) => s.allSettings(),
    );
  }
  recordAlert(alert: AlertInput): number {
    return this.guard(
      'recordAlert',
      () => -1,
      // Not queued on a lock: the caller needs the row id now (acks and the clear update address it); a
      // row written later without it would stay open in the history forever.
      (s) => s.recordAlert(alert),
    );
  }
  recordAlerts(batch: readonly AlertInput[]): number[] {
    return this.guard(
      'recordAlerts',
      () => batch.map(() => -1),
      (s) => s.recordAlerts(batch),
    );
  }
  acknowledgeAlert(id: number, at: number): void {
    this.write('acknowledgeAlert', (s) => s.acknowledgeAlert(id, at));
  }
  snoozeAlert(id: number, until: number | null): void {
    this.write('snoozeAlert', (s) => s.snoozeAlert(id, until));
  }
  alertHistory(query?: AlertQuery | string): AlertRecord[] {
    return this.guard(
      'alertHistory',
      () => [],
      (s) => s.alertHistory(query),
    );
  }
  appendSystemSamples(batch: readonly SystemSample[]): void {
    this.write('appendSystemSamples', (s) => s.appendSystemSamples(batch));
  }
  systemSamples(since: number, until?: number, limit?: number): SystemSample[] {
    return this.guard(
      'systemSamples',
      () => [],
      (s) => s.systemSamples(since, until, limit),
    );
  }
  systemSampleCount(): number {
    return this.guard(
      'systemSampleCount',
      () => 0,
      (s) => s.systemSampleCount(),
    );
  }
  prune(now: number, retention?: Partial<Retention>): PruneResult {
    return this.guard(
      'prune',
      () => ({ systemSamples: 0, alerts: 0 }),
      (s) => s.prune(now, retention),
    );
  }
  close(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.flush();
    try {
      this.inner.close();
    } catch {
      // Closing is best effort: the process is on its way out.
    }
  }
}
