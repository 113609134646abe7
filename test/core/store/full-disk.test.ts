// A full disk under the store (real SQLite: SQLITE_FULL from max_page_count): the app goes on, one clear
// notice, the writes wait in order and land once there is room; the database is never given up.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { openStore, ResilientStore, type StoreSpaceEvent } from '../../../src/core/store';
import type { AppNotice } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-full-disk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Opens the store through a better-sqlite3 whose connection the test keeps, to cap its size. */
function storeWithHandle(name: string): { store: ResilientStore; db: () => Database.Database } {
  let db: Database.Database | null = null;
  const Captured = function (this: unknown, ...args: ConstructorParameters<typeof Database>) {
    db = new Database(...args);
    return db;
  } as unknown as typeof Database;
  const store = new ResilientStore(openStore({ path: join(dir, name), loader: () => Captured }));
  return { store, db: () => db! };
}

/** The disk is full: the database may not grow past the pages it has (SQLite answers SQLITE_FULL). */
function fill(db: Database.Database): void {
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
}
function makeRoom(db: Database.Database): void {
  db.pragma('max_page_count = 1073741823');
}

const samples = (from: number, n: number): { t: number; snapshot: { cpuPct: number; pad: string } }[] =>
  Array.from({ length: n }, (_, i) => ({ t: from + i, snapshot: { cpuPct: i, pad: 'x'.repeat(2000) } }));

test('SQLITE_FULL: nothing throws, one notice, the database is kept, writes land in order when room is back', async () => {
  const { store, db } = storeWithHandle('full.db');
  const events: StoreSpaceEvent[] = [];
  store.onSpace((e) => events.push(e));
  store.setSetting('settings', { theme: 'dark' });
  fill(db());

  // Enough rows to need new pages: SQLite refuses them.
  for (let i = 0; i < 5; i++) expect(() => store.appendSystemSamples(samples(i * 100, 20))).not.toThrow();
  expect(() => store.setSetting('settings', { theme: 'light' })).not.toThrow();
  expect(store.full).toBe(true);
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ full: true, operation: 'appendSystemSamples' });
  expect(events[0]!.message).toMatch(/disk holding the database .*full\.db is full/);
  // Still the SQLite database (not memory for the rest of the session), reads still answered.
  expect(store.status.persistent).toBe(true);
  expect(store.degradation).toBeNull();
  expect(store.getSetting('settings')).toEqual({ theme: 'dark' });
  expect(store.pendingWrites.queued).toBe(6);

  makeRoom(db());
  await waitFor(() => !store.full, 'the waiting writes retried and landed', 5000);
  expect(events.map((e) => e.full)).toEqual([true, false]);
  expect(store.pendingWrites).toEqual({ queued: 0, dropped: 0 });
  expect(store.systemSampleCount()).toBe(100);
  expect(store.getSetting('settings')).toEqual({ theme: 'light' });
  store.close();

  // Persisted: a new connection reads what waited.
  const again = openStore({ path: join(dir, 'full.db') });
  expect(again.systemSampleCount()).toBe(100);
  expect(again.getSetting('settings')).toEqual({ theme: 'light' });
  again.close();
});

test('the app tells every client about the full disk and goes on', () => {
  const { store, db } = storeWithHandle('app-full.db');
  const core = new AppCore({ host: { mode: 'serve', version: 't', allowOpenFolder: false }, store });
  const pushed: AppNotice[] = [];
  core.bus.on('app.notice', (n) => pushed.push(n));
  fill(db());
  expect(() => store.appendSystemSamples(samples(0, 50))).not.toThrow();
  expect(pushed).toEqual([{ level: 'warning', message: expect.stringMatching(/is full \(SQLITE_FULL/) }]);
  store.close();
});
