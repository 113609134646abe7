// A tracker database's writes: a throttled rediscovery of the folder, only when the database lists a run not read yet.

import type { SourceFormatName } from '../../shared/formats';
import { databaseRuns } from '../sources/registry';

/** A database's writes (new rows, maybe new runs) rediscover the folder at most this often. */
const DATABASE_REDISCOVER_MS = 2000;

export interface DatabaseWalksHost {
  /** The run members of database `db` the workspace reads now. */
  readMembers(db: string): ReadonlySet<string | undefined>;
  rediscover(): void;
}

export class DatabaseWalks {
  /** When a database's write last asked for a rediscovery, and the one waiting. */
  private walkAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The databases written since the last check, with the format their runs are read as (null: none yet). */
  private readonly written = new Map<string, SourceFormatName | null>();

  constructor(private readonly host: DatabaseWalksHost) {}

  /**
   * A database was written (`format` null: one with no run yet): its new runs show after a rediscovery, at most every
   * DATABASE_REDISCOVER_MS, and only when it lists a run the workspace does not read (its listing reads only the rows
   * added since the last one): a run writing all day never walks the folder again.
   */
  databaseWritten(db: string, format: SourceFormatName | null): void {
    this.written.set(db, format);
    if (this.timer) return;
    const wait = Math.max(0, this.walkAt + DATABASE_REDISCOVER_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.walkAt = Date.now();
      const written = [...this.written];
      this.written.clear();
      // A run listed that is not read yet (by member, not count: deleted MLflow runs are not listed, but their runs
      // stay read, so counts could match while a new run waits).
      const grew = ([path, f]: [string, SourceFormatName | null]): boolean => {
        if (f === null) return true;
        const read = this.host.readMembers(path);
        return databaseRuns(path, f).some((r) => !read.has(r.member));
      };
      if (written.some(grew)) this.host.rediscover();
    }, wait);
    this.timer.unref();
  }

  /** Drops the writes noted and the walk waiting (the folder closed). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.written.clear();
  }
}
