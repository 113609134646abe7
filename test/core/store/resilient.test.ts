// ResilientStore: a query that throws after opening (IOERR, CORRUPT) degrades to memory once, keeping what it can
// (a full disk is waited out: full-disk.test.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { openStore, ResilientStore, type StoreDegradation } from '../../../src/core/store';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-resilient-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqliteError = (code: string): Error => Object.assign(new Error(`${code} from the test`), { code });

describe('ResilientStore', () => {
  test('SQLITE_IOERR_WRITE on an insert: memory takes over with settings and recent runs, one degradation', () => {
    const inner = openStore({ path: join(dir, 'full.db') });
    inner.setSetting('settings', { theme: 'dark' });
    inner.touchRun('/runs/a', 100);
    inner.saveRunView('/runs/a', { pinnedCharts: ['kl'] }, 100);
    const store = new ResilientStore(inner);
    const seen: StoreDegradation[] = [];
    store.onDegraded((d) => seen.push(d));
    inner.appendSystemSamples = () => {
      throw sqliteError('SQLITE_IOERR_WRITE');
    };
    expect(() => store.appendSystemSamples([{ t: 1, snapshot: { cpuPct: 1 } }])).not.toThrow();
    expect(seen).toEqual([
      {
        code: 'SQLITE_IOERR_WRITE',
        operation: 'appendSystemSamples',
        reason: expect.stringMatching(/SQLITE_IOERR_WRITE/),
      },
    ]);
    expect(store.status).toMatchObject({
      persistent: false,
      kind: 'failed-after-open',
      path: join(dir, 'full.db'),
    });
    expect(store.getSetting('settings')).toEqual({ theme: 'dark' });
    expect(store.recentRuns()).toEqual([
      { path: '/runs/a', lastOpened: 100, view: { pinnedCharts: ['kl'] } },
    ]);
    // The retried call went to memory; later calls too, with no second degradation.
    expect(store.systemSampleCount()).toBe(1);
    expect(
      store.recordAlert({
        run: 'r',
        rule: 'x',
        tag: null,
        severity: 'warning',
        state: 'raised',
        step: 1,
        value: 1,
        message: 'm',
        at: 1,
      }),
    ).toBeGreaterThan(0);
    expect(seen).toHaveLength(1);
    store.close();
  });

  test('a store that is fine stays the SQLite one', () => {
    const store = new ResilientStore(openStore({ path: join(dir, 'fine.db') }));
    store.setSetting('k', 1);
    expect(store.getSetting('k')).toBe(1);
    expect(store.status.persistent).toBe(true);
    expect(store.degradation).toBe(null);
    store.close();
  });
});

describe('ResilientStore under another process holding the lock', () => {
  test('BEGIN EXCLUSIVE elsewhere: a short busy wait, writes queued, nothing given up; they land once the lock goes', async () => {
    const path = join(dir, 'locked.db');
    const store = new ResilientStore(openStore({ path }));
    store.setSetting('before', 1);
    const other = new Database(path);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN EXCLUSIVE');
    const degraded: StoreDegradation[] = [];
    store.onDegraded((d) => degraded.push(d));
    expect(() => store.setSetting('during', 2)).not.toThrow();
    expect(() => store.touchRun('/runs/locked', 5)).not.toThrow();
    expect(store.pendingWrites).toEqual({ queued: 2, dropped: 0 });
    // Reads still answer (WAL readers are not blocked by a writer's lock).
    expect(store.getSetting('before')).toBe(1);
    expect(degraded).toEqual([]);
    expect(store.status.persistent).toBe(true);
    other.exec('COMMIT');
    // The retry timer replays the queue in order once the lock is gone.
    await vi.waitFor(() => expect(store.pendingWrites.queued).toBe(0), { timeout: 5000 });
    const rows = other.prepare('SELECT key, value FROM settings ORDER BY key').all() as Array<{
      key: string;
    }>;
    expect(rows.map((r) => r.key)).toEqual(['before', 'during']);
    expect(store.recentRuns().map((r) => r.path)).toEqual(['/runs/locked']);
    expect(degraded).toEqual([]);
    other.close();
    store.close();
  });

  test('the open store waits at most 100 ms on a lock per call', () => {
    const path = join(dir, 'timeout.db');
    // The connection is private to SqliteStore; its one pragma is read here and nowhere else.
    const store = openStore({ path }) as unknown as { db: Database.Database; close(): void };
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(100);
    store.close();
  });
});
