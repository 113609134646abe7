// A Store that never throws: the first failing query (IOERR, FULL, CORRUPT…) swaps in a memory store and says why.

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

/**
 * Wraps an open store. On the first throw it copies what it can still read (settings, recent runs)
 * into a MemoryStore, closes the failing one, and serves every later call from memory: losing
 * history is acceptable, crashing the app or the watcher is not.
 */
export class ResilientStore implements Store {
  private inner: Store;
  private degradedWith: StoreDegradation | null = null;
  private readonly listeners = new Set<(d: StoreDegradation) => void>();

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

  private guard<T>(operation: string, fallbackValue: () => T, fn: (s: Store) => T): T {
    try {
      return fn(this.inner);
    } catch (err) {
      if (this.degradedWith) return fallbackValue();
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
    this.guard(
      'touchRun',
      () => undefined,
      (s) => s.touchRun(path, at),
    );
  }
  saveRunView(path: string, view: RunView, at: number): void {
    this.guard(
      'saveRunView',
      () => undefined,
      (s) => s.saveRunView(path, view, at),
    );
  }
  forgetRecentRun(path: string): void {
    this.guard(
      'forgetRecentRun',
      () => undefined,
      (s) => s.forgetRecentRun(path),
    );
  }
  runMeta(path: string): RunMeta | null {
    return this.guard(
      'runMeta',
      () => null,
      (s) => s.runMeta(path),
    );
  }
  updateRunMeta(batch: readonly RunMetaUpdate[]): void {
    this.guard(
      'updateRunMeta',
      () => undefined,
      (s) => s.updateRunMeta(batch),
    );
  }
  getSetting(key: string): JsonValue | undefined {
    return this.guard(
      'getSetting',
      () => undefined,
      (s) => s.getSetting(key),
    );
  }
  setSetting(key: string, value: JsonValue): void {
    this.guard(
      'setSetting',
      () => undefined,
      (s) => s.setSetting(key, value),
    );
  }
  deleteSetting(key: string): void {
    this.guard(
      'deleteSetting',
      () => undefined,
      (s) => s.deleteSetting(key),
    );
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
    this.guard(
      'acknowledgeAlert',
      () => undefined,
      (s) => s.acknowledgeAlert(id, at),
    );
  }
  snoozeAlert(id: number, until: number | null): void {
    this.guard(
      'snoozeAlert',
      () => undefined,
      (s) => s.snoozeAlert(id, until),
    );
  }
  alertHistory(query?: AlertQuery | string): AlertRecord[] {
    return this.guard(
      'alertHistory',
      () => [],
      (s) => s.alertHistory(query),
    );
  }
  appendSystemSamples(batch: readonly SystemSample[]): void {
    this.guard(
      'appendSystemSamples',
      () => undefined,
      (s) => s.appendSystemSamples(batch),
    );
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
    try {
      this.inner.close();
    } catch {
      // Closing is best effort: the process is on its way out.
    }
  }
}
