// Opens a tracker's SQLite database (trackio, MLflow) from a private copy, shared by its runs' readers: never writes, never holds a lock.

import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { ReadError } from '../readers/types';
import {
  addBytesCopied,
  copyPathFor,
  filesState,
  head,
  removeCopy,
  stateKey,
  takeSnapshot,
  toRollbackJournal,
  type DbFailure,
  type DbSnapshot,
  type FilesState,
} from './db-snapshot';

export { databaseBytesCopied } from './db-snapshot';

type SqliteConstructor = typeof Database;

/** better-sqlite3's own `nativeBinding` option (Electron main passes the Electron-ABI build); Node's build by default. */
let nativeBinding: string | undefined;

/** Where the better-sqlite3 addon of this process lives (Electron main: the Electron-ABI build), for the tracker databases. */
export function useSqliteBinding(path: string | null): void {
  nativeBinding = path ?? undefined;
}

const load = (): SqliteConstructor => createRequire(import.meta.url)('better-sqlite3') as SqliteConstructor;

const SQLITE_HEADER = 'SQLite format 3\0';
/** Wait at most this long on a lock (only ever on the private copy, which nothing else opens). */
const BUSY_TIMEOUT_MS = 50;
/** A database (with its `-wal`) is read from a private copy up to this size; see `DbConnection`. */
const MAX_COPY_BYTES = 2 ** 30;

/** Whether these first bytes are an SQLite database's. */
export function isSqliteHeader(head: Uint8Array): boolean {
  if (head.length < SQLITE_HEADER.length) return false;
  for (let i = 0; i < SQLITE_HEADER.length; i++) if (head[i] !== SQLITE_HEADER.charCodeAt(i)) return false;
  return true;
}

/** What the file's 100-byte header says: not a database, or shorter than its own page count (cut short). */
function headerProblem(bytes: Uint8Array, size: number): ReadError | null {
  if (!isSqliteHeader(bytes) || bytes.length < 100)
    return { kind: 'decode', offset: 0, message: 'not an SQLite database (no "SQLite format 3" header)' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raw = view.getUint16(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = view.getUint32(28);
  // The in-header page count is valid when its version number equals the change counter (SQLite ≥ 3.7.0).
  const valid = view.getUint32(92) === view.getUint32(24) && pages > 0;
  if (valid && size < pageSize * pages)
    return {
      kind: 'truncated',
      offset: size,
      message: `the database is cut short: ${size} bytes of its ${pageSize * pages}`,
    };
  return null;
}

/** The typed error of an SQLite failure: a damaged file `decode`, a lock or an unreadable file `io`. */
function sqliteReadError(e: unknown): ReadError {
  const code = e !== null && typeof e === 'object' && 'code' in e ? String(e.code) : '';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return { kind: 'decode', offset: 0, message: `the database is damaged: ${message(e)} (${code})` };
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { kind: 'io', offset: 0, message: `the database is locked by its writer: ${message(e)}` };
  return { kind: 'io', offset: 0, message: `${message(e)}${code ? ` (${code})` : ''}` };
}

/** Whether a failure is a writer's lock or its commit under way (`DbFailure.busy`), which the next poll may not meet. */
export function isBusy(e: unknown): boolean {
  if (e !== null && typeof e === 'object' && 'busy' in e && e.busy === true) return true;
  const code = e !== null && typeof e === 'object' && 'code' in e ? String(e.code) : '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** A failure worth telling the user now: not a writer's commit under way (one a writer was stopped in is). */
export function isLasting(e: unknown): boolean {
  return !isBusy(e) || (isFailure(e) && e.stuck === true);
}

function isFailure(e: unknown): e is DbFailure {
  return e !== null && typeof e === 'object' && 'readError' in e;
}

/** A copy of more than this many bytes is followed by a pause before the next (COPY_PAUSE_MS_PER_MIB for each MiB
 * copied, 90 ms: nine times what copying one takes at ~100 MiB/s), so copying a large database that a writer changes
 * all the time takes at most about a tenth of the time, its runs a little behind instead. By size, not by time taken,
 * so what is read does not depend on how busy the machine is. */
const PAUSED_COPY_BYTES = 16 * 2 ** 20;
const COPY_PAUSE_MS_PER_MIB = 90;

/**
 * One open database, read from a private copy (`takeSnapshot`): SQLite never opens the tracker's own files, so it
 * never writes beside them (a `-shm`, read marks, a recovered index) and never holds a lock that could fail a
 * writer's commit or keep it from checkpointing and removing its `-wal` and `-shm`. The copy is taken afresh when the
 * files have changed (while a writer runs in WAL mode, only its `-wal` is copied again), never while a read is under
 * way on it (`enter`/`leave`), and after a copy of a large database no sooner than PAUSED_COPY_BYTES says. Queries run
 * in autocommit, each to its end (`all()`). The copy (database and `-wal` together) is refused past `maxCopyBytes`
 * with what to do instead.
 */
export class DbConnection {
  private db: Database.Database | null = null;
  /** The open copy, and the files' stamp (`filesStamp`) when it was begun. */
  private snapshot: (DbSnapshot & { stamp: string | null }) | null = null;
  /** Reads under way on the open copy (across their pauses): it is not replaced under them. */
  private users = 0;
  private nextCopyAt = 0;
  /**
   * dev:ino:birth time of the file opened (read it, never set it): another file at the path (the database deleted and
   * made again) is a new database, and readers that read another identity start over (their rowids were the old
   * file's). A property of the file, not of this connection, so it holds across connections closed and made again.
   */
  identity: string | null = null;
  refs = 0;

  constructor(
    readonly path: string,
    private readonly maxCopyBytes = MAX_COPY_BYTES,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** The files' stamp (`filesStamp`) as the open copy holds them: what a reader has read once it read this copy. */
  get stamp(): string | null {
    return this.snapshot?.stamp ?? null;
  }

  /** The open copy, taken afresh when the files have changed; throws a typed ReadError (as `{ readError }`). */
  get(): Database.Database {
    let state: FilesState;
    try {
      state = filesState(this.path);
    } catch (e) {
      if (this.users === 0) this.close();
      throw { readError: { kind: 'io', offset: 0, message: `${this.path}: ${message(e)}` } };
    }
    if (this.db) {
      if (this.users > 0 || this.snapshot!.key === stateKey(state) || this.now() < this.nextCopyAt)
        return this.db;
    }
    if (!isSqliteHeader(state.header) || state.header.length < 100) {
      this.close();
      throw { readError: headerProblem(state.header, state.size)! };
    }
    const prev = this.snapshot;
    this.closeDb();
    let snap: DbSnapshot & { stamp: string | null };
    try {
      const stamp = filesStamp(this.path);
      snap = { ...takeSnapshot(this.path, prev, this.maxCopyBytes), stamp };
    } catch (e) {
      if (prev) removeCopy(prev.path);
      this.snapshot = null;
      throw isFailure(e) ? e : { readError: readErrorOf(e) };
    }
    if (prev && prev.path !== snap.path) removeCopy(prev.path);
    this.snapshot = snap;
    this.nextCopyAt =
      snap.copied > PAUSED_COPY_BYTES ? this.now() + (snap.copied / 2 ** 20) * COPY_PAUSE_MS_PER_MIB : 0;
    // A copy of a database with no WAL is one committed state: shorter than its header's page count, it was cut.
    const problem =
      snap.walGen === null ? headerProblem(head(snap.path, 100), statSync(snap.path).size) : null;
    if (problem) {
      this.close();
      throw { readError: problem };
    }
    const Ctor = load();
    try {
      this.db = new Ctor(snap.path, {
        readonly: true,
        fileMustExist: true,
        timeout: BUSY_TIMEOUT_MS,
        ...(nativeBinding ? { nativeBinding } : {}),
      });
      this.identity = snap.identity;
      return this.db;
    } catch (e) {
      this.close();
      throw { readError: readErrorOf(e) };
    }
  }

  /** A read that spans pauses begins on the copy `get` gave: it is kept until `leave`. */
  enter(): void {
    this.users++;
  }

  leave(): void {
    this.users = Math.max(0, this.users - 1);
  }

  private closeDb(): void {
    try {
      this.db?.close();
    } catch {
      // closing a read-only connection cannot lose anything
    }
    this.db = null;
  }

  close(): void {
    this.closeDb();
    if (this.snapshot !== null) removeCopy(this.snapshot.path);
    this.snapshot = null;
    this.nextCopyAt = 0;
  }
}

/**
 * Runs `fn`, which asks only about the schema (tables and their columns), on the database at `path`, copying as little
 * as it can: a database with no WAL in use and over SCHEMA_PREFIX_BYTES is first read from a copy of its first
 * SCHEMA_PREFIX_BYTES. SQLite reads the whole schema before any statement runs, and a page past the copy reads as
 * zeros, which it reports as damage, so `fn` either sees the whole schema or fails, and then runs on the whole file
 * (`withDb`). Another app's large database in a run folder (an Optuna study) is then told apart without being copied.
 */
export function withSchema<T>(path: string, fn: (db: Database.Database) => T): T {
  const prefix = schemaPrefixCopy(path);
  if (prefix !== null) {
    let db: Database.Database | null = null;
    try {
      const Ctor = load();
      db = new Ctor(prefix, {
        readonly: true,
        fileMustExist: true,
        ...(nativeBinding ? { nativeBinding } : {}),
      });
      return fn(db);
    } catch {
      // The schema reaches past the prefix (or the prefix could not be made): the whole file below.
    } finally {
      try {
        db?.close();
        removeCopy(prefix);
      } catch {
        // closing a read-only connection cannot lose anything; a copy not removed goes with the folder at exit
      }
    }
  }
  return withDb(path, (db) => fn(db));
}

/** The first bytes of a database copied to read its schema: SQLite keeps the schema in the first pages of most
 * databases (page 1 and those made with the first tables), so telling what a database is rarely needs the whole file
 * copied. A multiple of every page size. */
const SCHEMA_PREFIX_BYTES = 4 * 1024 * 1024;

/** A copy of the first SCHEMA_PREFIX_BYTES of a larger database with no WAL in use, made while no commit was under way
 * (the files the same before and after, no hot journal), or null (any other database). */
function schemaPrefixCopy(path: string): string | null {
  let fd: number | null = null;
  let copy: string | null = null;
  try {
    const before = filesState(path);
    if (before.size <= SCHEMA_PREFIX_BYTES || before.walGen !== null || before.hotJournal !== null)
      return null;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(SCHEMA_PREFIX_BYTES);
    const n = readSync(fd, head, 0, SCHEMA_PREFIX_BYTES, 0);
    if (n < 100 || !isSqliteHeader(head) || stateKey(filesState(path, true)) !== stateKey(before))
      return null;
    // The header's page count made the prefix's (SQLite refuses a file shorter than its header says), so a page past
    // it is one SQLite knows is missing, and any read of one fails as damage.
    const raw = head.readUInt16BE(16);
    head.writeUInt32BE(Math.floor(n / (raw === 1 ? 65536 : raw)), 28);
    copy = copyPathFor();
    const out = openSync(copy, 'w');
    try {
      writeSync(out, head, 0, n, 0);
    } finally {
      closeSync(out);
    }
    addBytesCopied(n);
    toRollbackJournal(copy);
    return copy;
  } catch {
    try {
      if (copy !== null) removeCopy(copy);
    } catch {
      // left to the removal of the copies folder at exit
    }
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The ReadError a `DbConnection.get()` threw, or the typed form of an SQLite failure. */
export function readErrorOf(e: unknown): ReadError {
  if (e !== null && typeof e === 'object' && 'readError' in e)
    return (e as { readError: ReadError }).readError;
  return sqliteReadError(e);
}

/** Open connections by database path: the runs of one database share one. */
const connections = new Map<string, DbConnection>();

/** A shared connection to `path`; `releaseDb` when done. */
export function acquireDb(path: string): DbConnection {
  let c = connections.get(path);
  if (!c) connections.set(path, (c = new DbConnection(path)));
  c.refs++;
  return c;
}

function releaseDb(c: DbConnection): void {
  if (--c.refs > 0) return;
  c.close();
  if (connections.get(c.path) === c) connections.delete(c.path);
}

/** An idle connection stays open this long after its last use (the runs of one database and discovery share it; the
 * sweep polls each second), so a database is copied again only when it changed, not on every poll. */
const LINGER_MS = 5_000;
const lingering = new WeakMap<DbConnection, NodeJS.Timeout>();

/** Ends a use of `conn` (from `acquireDb`): it is released LINGER_MS later unless used again meanwhile. */
export function linger(conn: DbConnection): void {
  const old = lingering.get(conn);
  if (old) {
    clearTimeout(old);
    releaseDb(conn); // the hold the timer kept
  }
  const t = setTimeout(() => {
    lingering.delete(conn);
    releaseDb(conn);
  }, LINGER_MS);
  t.unref();
  lingering.set(conn, t);
}

/** Runs `fn` on the shared connection to `path` (discovery, sniffing), told the file's identity. */
export function withDb<T>(path: string, fn: (db: Database.Database, identity: string) => T): T {
  const c = acquireDb(path);
  try {
    const db = c.get();
    return fn(db, c.identity!);
  } finally {
    linger(c);
  }
}

/** One tracker run of a database holding many. */
export interface DbRun {
  /** The run's id in the database (what its reader is given). */
  member: string;
  /** The tracker's name for it. */
  name: string;
}

/** The tables of a database and their columns. */
export function tableColumns(db: Database.Database): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const tables = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all()
    .map((r) => r.name);
  for (const t of tables) {
    const cols = db.prepare<[], { name: string }>(`PRAGMA table_info(${quoteId(t)})`).all();
    out.set(t, new Set(cols.map((c) => c.name)));
  }
  return out;
}

function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * What changes when anything is committed to the database at `path`: the file's identity, size and modification time,
 * and its `-wal`'s size and time (a WAL commit appends there). Null when the file cannot be read. Cheap (two stats),
 * and needs no connection, so an idle run's poll opens nothing.
 */
export function filesStamp(path: string): string | null {
  let st;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    return null;
  }
  let wal = '-';
  try {
    const w = statSync(`${path}-wal`, { bigint: true });
    wal = `${w.size}:${w.mtimeNs}`;
  } catch {
    // no writer: no -wal
  }
  return `${st.dev}:${st.ino}:${st.birthtimeNs}:${st.size}:${st.mtimeNs}|${wal}`;
}
