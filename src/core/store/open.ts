// openStore: opens (or repairs, or falls back from) the SQLite database; never throws, never blocks the app.

import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { MemoryStore } from './memory-store';
import { migrate, SCHEMA_VERSION } from './schema';
import { SqliteStore } from './sqlite-store';
import type { Recovery, Retention, Store, StoreFailureKind } from './types';
import { DEFAULT_RETENTION } from './types';

export type SqliteConstructor = typeof Database;
/** Returns better-sqlite3's constructor. Injectable so tests can simulate a module that cannot load. */
export type SqliteLoader = () => SqliteConstructor;

export interface OpenStoreOptions {
  /** The database file; null asks for a memory store outright. */
  path: string | null;
  /** better-sqlite3's own option: the .node addon to load instead of the default (Node-ABI) build.
   * Electron main passes the Electron-ABI build here; tests and the CLI leave it out. */
  nativeBinding?: string | object;
  loader?: SqliteLoader;
  /** 'quick' runs PRAGMA quick_check over the whole file (~330 ms for 1M samples, 380 MiB);
   * 'auto' (default) does that up to AUTO_FULL_CHECK_BYTES and above it checks every table but
   * system_samples, which holds nearly all the bytes and only history we can afford to lose;
   * 'none' trusts the file until a query fails. */
  integrityCheck?: 'auto' | 'quick' | 'none';
  retention?: Partial<Retention>;
  /** Wait this long on another connection's write lock while opening and migrating (ms). */
  busyTimeoutMs?: number;
  /** Wait at most this long on a lock once open: store calls run on the request path, so a lock held
   * by another process must cost a short wait, never seconds (the ResilientStore queues the write). */
  callBusyTimeoutMs?: number;
  /** Clock for the `.corrupt-<timestamp>` name. */
  now?: () => number;
}

/** The busy wait of a store call once open (see OpenStoreOptions.callBusyTimeoutMs). */
export const CALL_BUSY_TIMEOUT_MS = 100;

/** Below this, a full quick_check costs < ~50 ms, the main-process stall budget. */
export const AUTO_FULL_CHECK_BYTES = 48 * 2 ** 20;
const SMALL_TABLES = ['runs', 'settings', 'alerts'];

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
const MEMORY_NOTE = 'Recent runs, settings and alert history are kept in memory for this session only.';

export const defaultLoader: SqliteLoader = () =>
  createRequire(import.meta.url)('better-sqlite3') as SqliteConstructor;

type Attempt =
  | { kind: 'ok'; db: Database.Database }
  | { kind: 'corrupt'; cause: string }
  | { kind: 'fail'; failure: StoreFailureKind; message: string };

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const codeOf = (err: unknown): string =>
  err !== null && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : '';

/** A native module that will not load: wrong ABI (Electron vs Node), missing or foreign binary. */
function isNativeModuleError(err: unknown): boolean {
  const code = codeOf(err);
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND') return true;
  return /NODE_MODULE_VERSION|compiled against a different Node\.js version|Could not locate the bindings file|Module did not self-register|invalid ELF header|wrong ELF class|not a valid Win32 application/i.test(
    message(err),
  );
}

function isCorruptError(err: unknown): boolean {
  const code = codeOf(err);
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** A non-empty file that does not start with SQLite's magic is not ours to open: SQLite would report
 * NOTADB anyway, but only on the first query, after we had set pragmas on it. */
function badHeader(path: string): string | null {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  if (size === 0) return null;
  const head = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return head.equals(SQLITE_HEADER) ? null : 'not an SQLite database (bad header)';
}

/** Null when fine, else quick_check's first complaint. May throw SQLITE_CORRUPT itself. */
function integrityProblem(
  db: Database.Database,
  path: string,
  mode: 'auto' | 'quick' | 'none',
): string | null {
  if (mode === 'none') return null;
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // A brand-new file may not exist until the first write.
  }
  const tables =
    mode === 'quick' || size <= AUTO_FULL_CHECK_BYTES
      ? [null]
      : SMALL_TABLES.filter((t) => db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(t));
  for (const table of tables) {
    // quick_check(TABLE) checks one table and its indexes; the name is ours, never user input.
    const result = db.pragma(table ? `quick_check(${table})` : 'quick_check', { simple: true });
    if (result !== 'ok') return `quick_check${table ? `(${table})` : ''}: ${String(result)}`;
  }
  return null;
}

function attempt(Ctor: SqliteConstructor, path: string, opts: OpenStoreOptions): Attempt {
  const header = badHeader(path);
  if (header) return { kind: 'corrupt', cause: header };
  let db: Database.Database | null = null;
  try {
    db = new Ctor(path, {
      timeout: opts.busyTimeoutMs ?? 5000,
      // The typings only admit a path; better-sqlite3 itself also accepts a loaded addon object.
      ...(opts.nativeBinding !== undefined ? { nativeBinding: opts.nativeBinding as string } : {}),
    });
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL: a power cut may lose the last commits but never corrupts the file.
    db.pragma('synchronous = NORMAL');
    const problem = integrityProblem(db, path, opts.integrityCheck ?? 'auto');
    if (problem) {
      db.close();
      return { kind: 'corrupt', cause: problem };
    }
    const m = migrate(db);
    if (m.kind === 'newer') {
      db.close();
      return {
        kind: 'fail',
        failure: 'newer-schema',
        message: `${path} has schema version ${m.found}, newer than this rlwatch knows (${m.known}); it was left untouched.`,
      };
    }
    db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.callBusyTimeoutMs ?? CALL_BUSY_TIMEOUT_MS))}`);
    return { kind: 'ok', db };
  } catch (err) {
    try {
      db?.close();
    } catch {
      // Closing a half-opened handle can fail too; the original error is the one to report.
    }
    if (isNativeModuleError(err)) return { kind: 'fail', failure: 'native-module', message: message(err) };
    if (isCorruptError(err)) return { kind: 'corrupt', cause: `${codeOf(err)}: ${message(err)}` };
    return { kind: 'fail', failure: 'cannot-open', message: `${codeOf(err) || 'error'}: ${message(err)}` };
  }
}

/** Renames the file and its -wal/-shm/-journal with one suffix, so the pair still opens together for
 * anyone who wants to rescue rows from it. Colons are left out of the stamp for Windows. */
export function moveAside(path: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 1; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  renameSync(path, target);
  for (const suffix of ['-wal', '-shm', '-journal']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}

function fallback(
  kind: StoreFailureKind,
  reason: string,
  path: string | null,
  retention: Retention,
): MemoryStore {
  return new MemoryStore({ persistent: false, kind, reason, path }, retention);
}

export const describeStoreFailure = (kind: StoreFailureKind, detail: string): string => {
  switch (kind) {
    case 'native-module':
      return `SQLite is unavailable: better-sqlite3's native module did not load (${detail}). ${MEMORY_NOTE}`;
    case 'cannot-open':
      return `The database cannot be opened or created (${detail}). ${MEMORY_NOTE}`;
    case 'newer-schema':
      return `${detail} ${MEMORY_NOTE}`;
    case 'corrupt-unrecoverable':
      return `The database is corrupt and could not be rebuilt (${detail}). ${MEMORY_NOTE}`;
    case 'memory-requested':
      return detail;
    case 'failed-after-open':
      return `The database failed while in use (${detail}). ${MEMORY_NOTE}`;
  }
};

/** Opens the store. Never throws: a corrupt file is moved aside and rebuilt (status.recovered says
 * so), and anything that prevents opening yields a MemoryStore whose status says why. */
export function openStore(opts: OpenStoreOptions): Store {
  const retention = { ...DEFAULT_RETENTION, ...opts.retention };
  const path = opts.path;
  if (path === null) return fallback('memory-requested', 'Store kept in memory by request.', null, retention);

  let Ctor: SqliteConstructor;
  try {
    Ctor = (opts.loader ?? defaultLoader)();
  } catch (err) {
    return fallback('native-module', describeStoreFailure('native-module', message(err)), path, retention);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (err) {
    return fallback('cannot-open', describeStoreFailure('cannot-open', message(err)), path, retention);
  }

  let recovered: Recovery | null = null;
  let result = attempt(Ctor, path, opts);
  if (result.kind === 'corrupt') {
    const cause = result.cause;
    try {
      recovered = { movedTo: moveAside(path, (opts.now ?? Date.now)()), cause };
    } catch (err) {
      return fallback(
        'corrupt-unrecoverable',
        describeStoreFailure('corrupt-unrecoverable', `${cause}; moving it aside failed: ${message(err)}`),
        path,
        retention,
      );
    }
    result = attempt(Ctor, path, opts);
    if (result.kind === 'corrupt') {
      return fallback(
        'corrupt-unrecoverable',
        describeStoreFailure('corrupt-unrecoverable', result.cause),
        path,
        retention,
      );
    }
  }
  if (result.kind === 'fail')
    return fallback(result.failure, describeStoreFailure(result.failure, result.message), path, retention);
  return new SqliteStore(
    result.db,
    { persistent: true, path, schemaVersion: SCHEMA_VERSION, recovered },
    retention,
  );
}
