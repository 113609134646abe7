// Takes consistent private copies of a tracker's SQLite database (its file and its WAL) without locks or writes beside it.

import {
  type BigIntStats,
  closeSync,
  constants,
  copyFileSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadError } from '../readers/types';

/** A WAL file's first four bytes (big- or little-endian checksums): SQLite ignores a `-wal` without them. */
const WAL_MAGIC = new Set([0x377f0682, 0x377f0683]);
/** A rollback journal's first eight bytes once its writer may have written into the database (`writeJournalHdr`,
 * `syncJournal`: zeros until the journal is synced, zeroed again by PERSIST at commit). */
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
/** Tries at a consistent copy before the caller is told the database is busy, and the pauses between them (ms). */
const SNAPSHOT_PAUSES_MS = [1, 2, 4, 8, 16];

/** The error thrown for a database that cannot be read now: `readError` is what to report; `busy` when it is its
 * writer mid-commit (or stopped mid-commit), which a later poll may not meet. */
export interface DbFailure {
  readError: ReadError;
  busy?: true;
  /** A hot journal found again unchanged after a try gave up on it: its writer was stopped mid-commit. */
  stuck?: true;
}

/** What the database's files are now, read without a lock: enough to tell whether a copy made in between is one
 * committed state. */
export interface FilesState {
  /** dev:ino:birth time of the database file. */
  identity: string;
  /** The database file's size, modification time and 100-byte header (its change counter, page count). */
  db: string;
  header: Buffer;
  size: number;
  /** The `-wal`'s header when it is a WAL's (salts and checkpoint sequence: another generation after each restart),
   * else null (none, empty or not a WAL: SQLite reads nothing of it). */
  walGen: string | null;
  /** The `-wal`'s size and modification time, or '-'. */
  wal: string;
  /** The `-journal`'s ino:size:mtime when it is hot (its writer may have written into the database), else null. */
  hotJournal: string | null;
}

function statOrNull(path: string): BigIntStats | null {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

/** Up to `n` bytes from the start of `path` (fewer when it is shorter; empty when it is missing). */
export function head(path: string, n: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

/** The journal's ino:size:mtime when it is hot, else null. */
function hotJournal(path: string): string | null {
  const j = statOrNull(`${path}-journal`);
  const hot = j !== null && j.size > 0n && head(`${path}-journal`, 8).equals(JOURNAL_MAGIC);
  return hot ? `${j.ino}:${j.size}:${j.mtimeNs}` : null;
}

/**
 * The files of the database at `path` as they are now; throws (a Node error) when the database cannot be read. Before
 * a copy the database is looked at before its journal, after a copy (`after`) the journal first: a commit that
 * overlaps the copy then shows as a hot journal or as a moved change counter.
 */
export function filesState(path: string, after = false): FilesState {
  const journalFirst = after ? hotJournal(path) : null;
  const st = statSync(path, { bigint: true });
  const fd = openSync(path, 'r');
  let header: Buffer;
  try {
    const buf = Buffer.alloc(100);
    header = buf.subarray(0, readSync(fd, buf, 0, 100, 0));
  } finally {
    closeSync(fd);
  }
  const w = statOrNull(`${path}-wal`);
  const walHead = w === null ? Buffer.alloc(0) : head(`${path}-wal`, 32);
  const walGen =
    walHead.length === 32 && WAL_MAGIC.has(walHead.readUInt32BE(0)) ? walHead.toString('hex') : null;
  const journal = after ? journalFirst : hotJournal(path);
  return {
    identity: `${st.dev}:${st.ino}:${st.birthtimeNs}`,
    db: `${st.size}:${st.mtimeNs}:${header.toString('hex')}`,
    header,
    size: Number(st.size),
    walGen,
    wal: w === null ? '-' : `${w.size}:${w.mtimeNs}`,
    hotJournal: journal,
  };
}

/** A short key of the files' state: equal keys, nothing was committed in between (`filesState`). */
export function stateKey(s: FilesState): string {
  return `${s.identity}|${s.db}|${s.wal}|${s.walGen ?? '-'}|${s.hotJournal ?? '-'}`;
}

/** A private copy of a database, as one committed state of it. */
export interface DbSnapshot {
  /** The copy's path in this process's copies folder (its `-wal` beside it when `wal`). */
  path: string;
  /** The files' state (`stateKey`) when the copy was begun: the copy holds what was committed then, or later. */
  key: string;
  identity: string;
  /** The WAL generation the copied database file belongs to (its pages not in the copied `-wal` are that
   * generation's starting state), or null: no WAL, the file alone is the database. */
  walGen: string | null;
  /** The copied `-wal`'s state, when one was copied. */
  wal: string | null;
  /** The database file's state when copied (for a copy without a WAL). */
  db: string;
  /** Bytes of the database file's copy. */
  bytes: number;
  /** Bytes copied to take it (the `-wal` alone when the file's copy was kept). */
  copied: number;
}

/** This process's folder of private database copies (made on first use; removed at exit). */
let copiesDir: string | null = null;
let copySeq = 0;
const COPIES_PREFIX = 'rlwatch-db-copies-';
/** Bytes this process has copied out of databases to read them (whole copies, WALs and schema prefixes). */
let bytesCopied = 0;

/** Bytes this process has copied out of databases to read them: what opening a folder cost beyond reading. */
export function databaseBytesCopied(): number {
  return bytesCopied;
}

/** A new path in this process's copies folder (the folder made, and stale ones of dead processes removed, first). */
export function copyPathFor(): string {
  if (copiesDir === null) {
    removeStaleCopies();
    copiesDir = mkdtempSync(join(tmpdir(), `${COPIES_PREFIX}${process.pid}-`));
    const dir = copiesDir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(copiesDir, `${++copySeq}.db`);
}

/** Removes a private copy and the files SQLite made beside it. */
export function removeCopy(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(p, { force: true });
}

/** Header bytes 18-19 of a copy set to the rollback journal: it has no WAL to read, all of it is in the file, so SQLite
 * reading it read-only makes no file at all. */
export function toRollbackJournal(copy: string): void {
  const fd = openSync(copy, 'r+');
  try {
    writeSync(fd, Buffer.from([1, 1]), 0, 2, 18);
  } finally {
    closeSync(fd);
  }
}

export function addBytesCopied(n: number): void {
  bytesCopied += n;
}

function copy(from: string, to: string): number {
  copyFileSync(from, to, constants.COPYFILE_FICLONE);
  const n = statSync(to).size;
  bytesCopied += n;
  return n;
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Hot journals met at the last try, by database: one still there unchanged is reported without waiting again. */
const stuckJournals = new Map<string, string>();

function hotJournalFailure(path: string): DbFailure {
  return {
    busy: true,
    readError: {
      kind: 'io',
      offset: 0,
      message:
        `the database has a hot journal (${path}-journal): its writer is committing, or was stopped mid-commit, so ` +
        `the file may hold half a commit; it is read again once the writer finishes or SQLite rolls the journal back ` +
        `(open it once with sqlite3)`,
    },
  };
}

/**
 * A private copy of the database at `path` that is one committed state of it, made without a lock and without
 * writing anything beside it, so its writer is never held up and its checkpoints and cleanup are never blocked.
 *
 * WAL mode: the database file changes only when a checkpoint copies frames of the current WAL generation into it, and
 * a generation's frames stay in the `-wal` until the next restart (a new header: other salts). So a copy of the file
 * made while the generation is G, and a copy of the `-wal` made after it while the generation is still G, hold every
 * page the checkpoint may have written (torn pages included) in the copied frames, whose last commit SQLite reads up to
 * (a frame half-written at the end fails its checksum): a consistent state. The file's copy stays valid for as long as
 * the generation does (`prev`), so while a writer runs only its `-wal` is copied again. Rollback journal: the file
 * changes only while its journal is hot, and every commit moves its change counter, so a copy made with no hot
 * journal before or after, and the same size, time and header after as before, is one committed state. Anything else
 * is tried again a few times, then a busy `DbFailure` (a hot journal that stays: its writer was stopped mid-commit).
 */
export function takeSnapshot(path: string, prev: DbSnapshot | null, maxBytes: number): DbSnapshot {
  let failure: DbFailure = changedWhileCopied(path);
  let hot: string | null = null;
  for (let attempt = 0; attempt <= SNAPSHOT_PAUSES_MS.length; attempt++) {
    if (attempt > 0) pause(SNAPSHOT_PAUSES_MS[attempt - 1]!);
    const s1 = filesState(path);
    if (s1.hotJournal !== null) {
      [failure, hot] = [hotJournalFailure(path), s1.hotJournal];
      // The same hot journal as at the last call that gave up: its writer is gone, no use waiting for it again.
      if (stuckJournals.get(path) === hot) throw { ...failure, stuck: true };
      continue;
    }
    const walSize = s1.walGen === null ? 0 : Number(s1.wal.split(':')[0]);
    if (s1.size + walSize > maxBytes) throw { readError: tooLargeToCopy(path, s1.size + walSize, maxBytes) };
    const reuse =
      prev !== null &&
      prev.identity === s1.identity &&
      (s1.walGen !== null ? prev.walGen === s1.walGen : prev.walGen === null && prev.db === s1.db);
    const target = reuse ? prev.path : copyPathFor();
    let bytes = reuse ? prev.bytes : 0;
    let copied = 0;
    try {
      if (!reuse) copied = bytes = copy(path, target);
      rmSync(`${target}-shm`, { force: true });
      if (s1.walGen !== null) copied += copy(`${path}-wal`, `${target}-wal`);
      else rmSync(`${target}-wal`, { force: true });
    } catch {
      if (!reuse) removeCopy(target);
      continue; // the -wal went (its writer closed) or the file was replaced: try again as the files are now
    }
    const s2 = filesState(path, true);
    const consistent =
      s2.identity === s1.identity &&
      s2.hotJournal === null &&
      s2.walGen === s1.walGen &&
      (s1.walGen !== null || s2.db === s1.db);
    if (!consistent) {
      if (!reuse) removeCopy(target);
      if (s2.hotJournal !== null) [failure, hot] = [hotJournalFailure(path), s2.hotJournal];
      continue;
    }
    stuckJournals.delete(path);
    if (s1.walGen === null && !reuse && s1.header[18] === 2 && s1.header[19] === 2) toRollbackJournal(target);
    return {
      path: target,
      key: stateKey(s1),
      identity: s1.identity,
      walGen: s1.walGen,
      wal: s1.walGen === null ? null : s1.wal,
      db: s1.db,
      bytes,
      copied,
    };
  }
  if (hot !== null) stuckJournals.set(path, hot);
  throw failure;
}

function changedWhileCopied(path: string): DbFailure {
  return {
    busy: true,
    readError: {
      kind: 'io',
      offset: 0,
      message: `${path} changed while it was copied, on every try: its writer commits faster than it can be copied`,
    },
  };
}

function tooLargeToCopy(path: string, size: number, max: number): ReadError {
  const mib = (n: number): string => `${Math.round(n / 2 ** 20)} MiB`;
  return {
    kind: 'io',
    offset: 0,
    message:
      `${path} (with its -wal) is ${mib(size)}: rlwatch reads a tracker database from a private copy of at most ` +
      `${mib(max)}, because reading it in place would make SQLite write a -shm file beside it or hold up its ` +
      `writer. Copy it elsewhere and open the copy.`,
  };
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
