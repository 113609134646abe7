// A Store that never throws: a locked database queues writes; a failing one (IOERR, FULL…) swaps in memory.

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

/** Writes kept while the database is locked; past this the oldest are dropped (and counted). */
const MAX_QUEUED_WRITES = 10_000;
/** How often queued writes are retried while the lock lasts. */
const RETRY_MS = 1000;

/**
 * Wraps an open store. A call that meets another process's lock (SQLITE_BUSY / LOCKED, after the
 * short busy wait set at open) does not give the database up: a write is queued and replayed in
 * order once the lock is gone (on the next call or a retry timer), a read answers its fallback.
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
    while (this.queued.length > 0) {
      const next = this.queued[0]!;
      try {
        next.fn(this.inner);
      } catch (err) {
        if (isLocked(err) && !this.degradedWith) return false;
        if (!this.degradedWith) this.degrade(next.operation, err);
      }
      this.queued.shift();
    }
    return true;
  }

  private guard<T>(operation: string, fallbackValue: () => T, fn: (s: Store) => T, isWrite = false): T {
    try {
      return fn(this.inner);
    } catch (err) {
      if (this.degradedWith) return fallbackValue();
      if (isLocked(err)) {
        if (isWrite) this.enqueue(operation, fn);
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
