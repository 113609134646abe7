// Opens a tracker's SQLite database (trackio, MLflow) read-only, shared by its runs' readers: never writes, never holds a lock.

import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { fileIdentity } from '../readers/file-io';
import type { ReadError } from '../readers/types';

type SqliteConstructor = typeof Database;

/** better-sqlite3's own `nativeBinding` option (Electron main passes the Electron-ABI build); Node's build by default. */
let nativeBinding: string | undefined;

/** Where the better-sqlite3 addon of this process lives (Electron main: the Electron-ABI build), for the tracker databases. */
export function useSqliteBinding(path: string | null): void {
  nativeBinding = path ?? undefined;
}

const load = (): SqliteConstructor => createRequire(import.meta.url)('better-sqlite3') as SqliteConstructor;

const SQLITE_HEADER = 'SQLite format 3\0';
/** Wait at most this long on a writer's lock (a commit in rollback-journal mode): the poll comes back anyway. */
const BUSY_TIMEOUT_MS = 50;
/** A WAL database with no `-wal` file (no writer) is read from a private copy up to this size; see `DbConnection`. */
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

/** Whether an SQLite failure is a writer's lock, which the next poll may not meet. */
export function isBusy(e: unknown): boolean {
  const code = e !== null && typeof e === 'object' && 'code' in e ? String(e.code) : '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * One open database. Queries run in autocommit, each to its end (`all()`), so no read transaction outlives a
 * query and the writer is never held up past one bounded batch. A database in WAL mode with no `-wal` file has no
 * writer: SQLite would create `-wal` and `-shm` beside it even for a read-only connection (and could not remove
 * them), so it is read from a private copy in the temp folder (`privateCopy`: reflinked where the file system can,
 * so neither memory nor, mostly, disk grows with it), reopened from the file as soon as a `-wal` appears (a writer
 * started) or the file changes. One larger than `maxCopyBytes` is refused with what to do instead.
 */
export class DbConnection {
  private db: Database.Database | null = null;
  /** The file as copied (size:mtime), while reading a copy. */
  private copied: string | null = null;
  /** The private copy's path, while reading one. */
  private copyPath: string | null = null;
  /** Open in place on a database in WAL mode (its writer running): see `linger`. */
  private walInPlace = false;
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
  ) {}

  /** The open database, (re)opened as the files now are; throws a typed ReadError (as `{ readError }`). */
  get(): Database.Database {
    let st;
    try {
      st = statSync(this.path);
    } catch (e) {
      this.close();
      throw { readError: { kind: 'io', offset: 0, message: `${this.path}: ${message(e)}` } };
    }
    const identity = fileIdentity(st);
    if (this.identity !== null && identity !== this.identity) this.close();
    if (this.db && this.copied === null) return this.db;
    if (this.db && this.copied !== null) {
      if (!existsSync(`${this.path}-wal`) && this.copied === `${st.size}:${st.mtimeMs}`) return this.db;
      this.close();
    }
    let header: Buffer;
    try {
      header = readHeader(this.path);
    } catch (e) {
      throw { readError: { kind: 'io', offset: 0, message: `${this.path}: ${message(e)}` } };
    }
    const problem = headerProblem(header, st.size);
    if (problem) throw { readError: problem };
    const Ctor = load();
    const opts = {
      readonly: true,
      fileMustExist: true,
      timeout: BUSY_TIMEOUT_MS,
      ...(nativeBinding ? { nativeBinding } : {}),
    };
    try {
      // Read and write versions 2: the database is in WAL mode.
      if (header[18] === 2 && header[19] === 2 && !existsSync(`${this.path}-wal`)) {
        if (st.size > this.maxCopyBytes)
          throw { readError: tooLargeToCopy(this.path, st.size, this.maxCopyBytes) };
        this.copyPath = privateCopy(this.path);
        this.db = new Ctor(this.copyPath, opts);
        this.copied = `${st.size}:${st.mtimeMs}`;
      } else {
        this.db = new Ctor(this.path, opts);
        this.copied = null;
        this.walInPlace = header[18] === 2 && header[19] === 2;
      }
      this.identity = identity;
      return this.db;
    } catch (e) {
      this.close();
      throw { readError: readErrorOf(e) };
    }
  }

  /** Whether the open database is the file itself in WAL mode (not a private copy, not a rollback journal). */
  get isWalInPlace(): boolean {
    return this.db !== null && this.walInPlace;
  }

  close(): void {
    try {
      this.db?.close();
    } catch {
      // closing a read-only connection cannot lose anything
    }
    this.db = null;
    this.copied = null;
    this.walInPlace = false;
    if (this.copyPath !== null) rmSync(this.copyPath, { force: true });
    this.copyPath = null;
  }
}

function tooLargeToCopy(path: string, size: number, max: number): ReadError {
  const mib = (n: number): string => `${Math.round(n / 2 ** 20)} MiB`;
  return {
    kind: 'io',
    offset: 0,
    message:
      `${path} is in WAL mode with no writer running and is ${mib(size)}: rlwatch reads such a database from a ` +
      `private copy of at most ${mib(max)}, because opening it in place would make SQLite write -wal and -shm ` +
      `files beside it. Open it while its writer runs, or take it out of WAL mode yourself ` +
      `(sqlite3 "${path}" "PRAGMA journal_mode=DELETE").`,
  };
}

/** This process's folder of private database copies (made on first use; removed at exit). */
let copiesDir: string | null = null;
let copySeq = 0;
const COPIES_PREFIX = 'rlwatch-db-copies-';
/** Bytes this process has copied out of databases to read them (whole copies and schema prefixes). */
let bytesCopied = 0;

/** Bytes this process has copied out of databases to read them: what opening a folder cost beyond reading. */
export function databaseBytesCopied(): number {
  return bytesCopied;
}

/** A new path in this process's copies folder (the folder made, and stale ones of dead processes removed, first). */
function copyPathFor(): string {
  if (copiesDir === null) {
    removeStaleCopies();
    copiesDir = mkdtempSync(join(tmpdir(), `${COPIES_PREFIX}${process.pid}-`));
    const dir = copiesDir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(copiesDir, `${++copySeq}.db`);
}

/** Header bytes 18-19 of a copy set to the rollback journal: it has no WAL to read, all of it is in the file, so SQLite
 * reading it read-only makes no file at all. */
function toRollbackJournal(copy: string): void {
  const fd = openSync(copy, 'r+');
  try {
    writeSync(fd, Buffer.from([1, 1]), 0, 2, 18);
  } finally {
    closeSync(fd);
  }
}

/**
 * A private copy of the database at `path` in this process's temp folder, switched to the rollback journal.
 */
function privateCopy(path: string): string {
  const copy = copyPathFor();
  copyFileSync(path, copy, constants.COPYFILE_FICLONE);
  bytesCopied += statSync(copy).size;
  toRollbackJournal(copy);
  return copy;
}

/** The first bytes of a WAL database with no writer copied to read its schema: SQLite keeps the schema in the first
 * pages of most databases (page 1 and those made with the first tables), so telling what a database is rarely needs
 * the whole file copied. A multiple of every page size. */
const SCHEMA_PREFIX_BYTES = 4 * 1024 * 1024;

/**
 * Runs `fn`, which asks only about the schema (tables and their columns), on the database at `path`, copying as little
 * as it can: a WAL database with no writer and over SCHEMA_PREFIX_BYTES is first read from a copy of its first
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
        rmSync(prefix, { force: true });
      } catch {
        // closing a read-only connection cannot lose anything; a copy not removed goes with the folder at exit
      }
    }
  }
  return withDb(path, (db) => fn(db));
}

/** A copy of the first SCHEMA_PREFIX_BYTES of a larger WAL database with no writer, or null (any other database). */
function schemaPrefixCopy(path: string): string | null {
  let fd: number | null = null;
  let copy: string | null = null;
  try {
    if (statSync(path).size <= SCHEMA_PREFIX_BYTES || existsSync(`${path}-wal`)) return null;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(SCHEMA_PREFIX_BYTES);
    const n = readSync(fd, head, 0, SCHEMA_PREFIX_BYTES, 0);
    if (n < 100 || !isSqliteHeader(head) || head[18] !== 2 || head[19] !== 2) return null;
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
    bytesCopied += n;
    toRollbackJournal(copy);
    return copy;
  } catch {
    try {
      if (copy !== null) rmSync(copy, { force: true });
    } catch {
      // left to the removal of the copies folder at exit
    }
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Removes the copy folders of rlwatch processes that are gone (one killed before its exit handler ran). */
function removeStaleCopies(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(COPIES_PREFIX)) continue;
    const pid = Number(name.slice(COPIES_PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The ReadError a `DbConnection.get()` threw, or the typed form of an SQLite failure. */
export function readErrorOf(e: unknown): ReadError {
  if (e !== null && typeof e === 'object' && 'readError' in e)
    return (e as { readError: ReadError }).readError;
  return sqliteReadError(e);
}

/** The file's first 100 bytes (fewer when it is shorter). */
function readHeader(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(100);
    return buf.subarray(0, readSync(fd, buf, 0, 100, 0));
  } finally {
    closeSync(fd);
  }
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
 * sweep polls each second), so a database read from a private copy is copied once, not on every poll. */
const LINGER_MS = 5_000;
const lingering = new WeakMap<DbConnection, NodeJS.Timeout>();

/**
 * Ends a use of `conn` (from `acquireDb`): it is released LINGER_MS later unless used again meanwhile. One open in
 * place on a WAL database is released at once: any open connection holds the database's shared lock, so a writer
 * closing meanwhile cannot checkpoint and remove its `-wal` and `-shm`, and they would stay in the run folder after
 * the trainer exits (the next open costs a millisecond, and readers skip polls that find the files unchanged).
 */
export function linger(conn: DbConnection): void {
  const old = lingering.get(conn);
  if (conn.isWalInPlace) {
    if (old) {
      clearTimeout(old);
      lingering.delete(conn);
      releaseDb(conn); // the hold the timer kept
    }
    releaseDb(conn);
    return;
  }
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
