// A database is read from a private copy in the temp folder (never -wal/-shm beside it), the copy is removed on close,
// and one past the copy limit is refused with a typed error saying what to do; a writer's exit still removes its -wal
// and -shm; what a large one is, is told from a copy of its first pages.

import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { sniffDatabase } from '../../../src/core/sources/sniff';
import { databaseBytesCopied, DbConnection, readErrorOf } from '../../../src/core/sqlite-db/open-db';
import { TrackioReader } from '../../../src/core/trackio/trackio-reader';
import { tempDirs } from '../../helpers/temp-dirs';
import { TrackioDb } from '../../helpers/tracker-dbs';

const tmp = tempDirs();

/** This process's private copies now in the temp folder. */
function copies(): string[] {
  return readdirSync(tmpdir())
    .filter((n) => n.startsWith(`rlwatch-db-copies-${process.pid}-`))
    .flatMap((d) => readdirSync(join(tmpdir(), d)));
}

function walProject(dir: string, rows: number): string {
  const path = join(dir, 'project.db');
  const db = new TrackioDb(path, { wal: true });
  const run = { id: 'r1', name: 'ppo' };
  for (let i = 0; i < rows; i++) db.log(run, i, { loss: i }, 1.7e15 + i);
  db.close();
  return path;
}

test('a WAL database with no writer is read from a private copy, removed on close, and nothing is made beside it', () => {
  const dir = tmp('rlwatch-open-db-');
  const path = walProject(dir, 50);
  expect(readdirSync(dir)).toEqual(['project.db']);
  const before = copies().length;
  const conn = new DbConnection(path);
  const n = conn.get().prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM metrics').get()!.n;
  expect(n).toBe(50);
  expect(copies().length).toBe(before + 1);
  expect(readdirSync(dir)).toEqual(['project.db']);

  // The writer comes back and adds rows, then closes: the changed file is copied afresh.
  walProject(dir, 10);
  expect(readdirSync(dir)).toEqual(['project.db']);
  expect(conn.get().prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM metrics').get()!.n).toBe(60);
  expect(copies().length).toBe(before + 1);

  conn.close();
  expect(copies().length).toBe(before);
  expect(readdirSync(dir)).toEqual(['project.db']);
});

test('a database past the copy limit is refused with a typed error saying what to do, making no file', () => {
  const dir = tmp('rlwatch-open-db-');
  const path = walProject(dir, 200);
  const before = copies().length;
  const conn = new DbConnection(path, 4096);
  let thrown: unknown = null;
  try {
    conn.get();
  } catch (e) {
    thrown = e;
  }
  const err = readErrorOf(thrown);
  expect(err.kind).toBe('io');
  expect(err.message).toContain('from a private copy of at most');
  expect(err.message).toContain('Copy it elsewhere and open the copy');
  expect(readdirSync(dir)).toEqual(['project.db']);
  expect(copies().length).toBe(before);
  conn.close();
});

test("a WAL database read while its writer runs: the writer's exit still removes its -wal and -shm", async () => {
  const dir = tmp('rlwatch-open-db-');
  const path = join(dir, 'project.db');
  const writer = new TrackioDb(path, { wal: true });
  const run = { id: 'r1', name: 'ppo' };
  for (let i = 0; i < 10; i++) writer.log(run, i, { loss: i }, 1.7e15 + i);
  expect(readdirSync(dir).sort()).toEqual(['project.db', 'project.db-shm', 'project.db-wal']);
  const reader = new TrackioReader(path, { member: 'r1' });
  await reader.readMore();
  expect([...reader.series.get('loss').values()]).toHaveLength(10);
  // The writer exits between two polls: nothing of ours holds the database, so it checkpoints and cleans up.
  writer.close();
  expect(readdirSync(dir)).toEqual(['project.db']);
  await reader.readMore();
  expect([...reader.series.get('loss').values()]).toHaveLength(10);
  expect(readdirSync(dir)).toEqual(['project.db']);
});

describe('telling what a large WAL database is without copying it', () => {
  /** A WAL database with no writer holding `mib` MiB of another app's rows, its tables made `schemaLast` (after the
   * rows, so the schema's pages lie past the first 4 MiB) or first; then, if `trackio`, trackio's tables. */
  function largeWal(path: string, mib: number, opts: { trackio: boolean; schemaLast: boolean }): void {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('page_size = 4096');
    const tables = (): void => {
      // Enough tables with long definitions that the schema takes many pages.
      for (let i = 0; i < (opts.schemaLast ? 400 : 3); i++)
        db.exec(`CREATE TABLE study_${i} (id INTEGER PRIMARY KEY, ${'c'.repeat(200)}_${i} TEXT, value REAL)`);
      if (opts.trackio) new TrackioDb(path).close();
    };
    if (!opts.schemaLast) tables();
    db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)');
    const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
    const chunk = Buffer.alloc(64 * 1024, 7);
    db.transaction(() => {
      for (let i = 0; i < mib * 16; i++) insert.run(chunk);
    })();
    if (opts.schemaLast) tables();
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
  }

  test("another app's 24 MiB database is told apart from a 4 MiB prefix; a tracker's schema past the prefix is still found", async () => {
    const dir = tmp('rlwatch-open-db-sniff-');
    const other = join(dir, 'optuna.db');
    largeWal(other, 24, { trackio: false, schemaLast: false });
    let before = databaseBytesCopied();
    expect(await sniffDatabase(other)).toBeNull();
    expect(databaseBytesCopied() - before).toBe(4 * 2 ** 20);

    const early = join(dir, 'early.db');
    largeWal(early, 24, { trackio: true, schemaLast: false });
    before = databaseBytesCopied();
    expect(await sniffDatabase(early)).toBe('trackio');
    expect(databaseBytesCopied() - before).toBe(4 * 2 ** 20);

    // The schema written after 24 MiB of rows: the prefix cannot hold it, so the whole file is read.
    const late = join(dir, 'late.db');
    largeWal(late, 24, { trackio: true, schemaLast: true });
    before = databaseBytesCopied();
    expect(await sniffDatabase(late)).toBe('trackio');
    expect(databaseBytesCopied() - before).toBeGreaterThan(24 * 2 ** 20);
    // Nothing is left beside any of them.
    expect(readdirSync(dir).sort()).toEqual(['early.db', 'late.db', 'optuna.db']);
  });
});

test('a large database that keeps changing is copied again only after a pause that grows with its size', () => {
  const dir = tmp('rlwatch-open-db-pause-');
  const path = join(dir, 'big.db');
  const db = new Database(path);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)');
  const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
  const chunk = Buffer.alloc(64 * 1024, 7);
  db.transaction(() => {
    for (let i = 0; i < 20 * 16; i++) insert.run(chunk); // 20 MiB
  })();
  let now = 0;
  const conn = new DbConnection(path, 2 ** 30, () => now);
  const count = (): number =>
    conn.get().prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM blobs').get()!.n;
  expect(count()).toBe(320);
  const before = databaseBytesCopied();
  insert.run(chunk);
  // ~20 MiB copied: the next copy waits 90 ms a MiB, about 1.8 s; until then the copy read is the last one.
  now = 1_000;
  expect(count()).toBe(320);
  expect(databaseBytesCopied()).toBe(before);
  now = 2_000;
  expect(count()).toBe(321);
  expect(databaseBytesCopied() - before).toBeGreaterThan(20 * 2 ** 20);
  // A small database is copied again at once: nothing read depends on a clock.
  db.exec('DELETE FROM blobs WHERE id > 1; VACUUM');
  now = 4_000;
  expect(count()).toBe(1);
  insert.run(chunk);
  expect(count()).toBe(2);
  db.close();
  conn.close();
});
