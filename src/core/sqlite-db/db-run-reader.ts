// The base of a reader of one tracker run inside a database holding many (trackio, MLflow): polls by rowid, typed errors.

import type Database from 'better-sqlite3';
import { ReaderBase, yieldToLoop, type ReaderOptions } from '../readers/reader';
import { acquireDb, filesStamp, isBusy, linger, readErrorOf } from './open-db';

/** Rows fetched per query: each query is its own short read, so the writer waits on at most one batch. */
export const DB_BATCH_ROWS = 4096;
/** A writer's lock met on every poll for this long is reported (a commit holds it for milliseconds). */
const LOCK_REPORT_MS = 3_000;
/** A poll that finds the files unchanged still reads every this often (a coarse modification time can hide a commit). */
const FULL_POLL_MS = 5_000;

export interface DbRunReaderOptions extends ReaderOptions {
  /** The tracker run read: its id in the database (trackio's run_id, else run_name; MLflow's run_uuid). */
  member: string;
}

/**
 * Reads one run of a tracker database as it grows: each `read` opens (or reuses) the shared read-only connection,
 * asks for rows past the last rowid seen, a batch at a time with a pause between batches, and never writes. A
 * failure is a typed ReadError (not a database, cut short, damaged, a missing table: `decode`/`truncated`/`io`);
 * a writer's lock is retried on the next poll and reported once it has lasted LOCK_REPORT_MS (at once on a final
 * read).
 */
export abstract class DbRunReader extends ReaderBase {
  readonly member: string;
  private readonly pauseFn: () => Promise<void>;
  private readonly now: () => number;
  private busySince: number | null = null;
  /** The identity of the file read from (DbConnection.identity): another file at the path starts the read over. */
  private identity: string | null = null;
  /** The database's files (`filesStamp`) at the start of the last whole poll, and when it was: unchanged, nothing was
   * committed since, so a poll of an idle run opens nothing and queries nothing (a full poll still runs every
   * FULL_POLL_MS, for file systems whose modification times are coarse). */
  private seenStamp: string | null = null;
  private polledAt = -Infinity;

  constructor(path: string, options: DbRunReaderOptions) {
    super(path, options);
    this.member = options.member;
    this.pauseFn = options.pause ?? yieldToLoop;
    this.now = options.now ?? Date.now;
  }

  /** Reads what is new (rows past the last rowid seen). Throw a `{ readError }` for a schema problem. */
  protected abstract poll(db: Database.Database, final: boolean): Promise<void>;

  /** Another database now at the path: forget the rowids and state read from the old one. */
  protected abstract restart(): void;

  protected async read(final: boolean): Promise<void> {
    const stamp = filesStamp(this.path);
    if (!final && stamp !== null && stamp === this.seenStamp && this.now() - this.polledAt < FULL_POLL_MS)
      return;
    const conn = acquireDb(this.path);
    let entered = false;
    try {
      const db = conn.get();
      conn.enter();
      entered = true;
      if (this.identity !== null && conn.identity !== this.identity) {
        // A new series set: the workspace keeps the old points as a replaced file's (RunLoader.readEntry).
        this.reset();
        this.restart();
      }
      this.identity = conn.identity;
      this.seenStamp = null;
      await this.poll(db, final);
      // What the copy read holds: a copy older than the files now (one not taken again yet) leaves the next poll to run.
      [this.seenStamp, this.polledAt] = [conn.stamp, this.now()];
      this.busySince = null;
    } catch (e) {
      if (isBusy(e) && !final) {
        this.busySince ??= this.now();
        if (this.now() - this.busySince < LOCK_REPORT_MS) return;
      }
      this.pushError(readErrorOf(e));
    } finally {
      if (entered) conn.leave();
      linger(conn);
    }
  }

  /** Between two batches: lets the event loop run. */
  protected pause(): Promise<void> {
    return this.pauseFn();
  }

  /**
   * Every row of `query` past the last one read (`after()`, asked again per batch as `onRow` moves it), in batches of
   * DB_BATCH_ROWS with a pause between: the one loop each table of a tracker's run is read with.
   */
  protected async drain<R>(
    query: Database.Statement<[number, string, number], R>,
    after: () => number,
    onRow: (row: R) => void,
  ): Promise<void> {
    for (;;) {
      const rows = query.all(after(), this.member, DB_BATCH_ROWS);
      for (const r of rows) onRow(r);
      if (rows.length < DB_BATCH_ROWS) return;
      await this.pause();
    }
  }
}

/** A schema problem as the typed error readers throw from `poll`. */
export function schemaError(message: string): { readError: { kind: 'decode'; offset: 0; message: string } } {
  return { readError: { kind: 'decode', offset: 0, message } };
}
