// Follows the folders discovery walked with chokidar, each once and none deeper: structure changes, appends, deletions.

import { basename, join } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { DEFAULT_MAX_OTHER_FOLDERS, DEFAULT_MAX_WATCHED_FOLDERS, FolderBudget } from './folder-budget';

export interface FolderWatcherHandlers {
  usePolling: boolean;
  /** Most folders watched at once (default DEFAULT_MAX_WATCHED_FOLDERS). */
  maxFolders?: number;
  /** Most of them outside the run tree (default DEFAULT_MAX_OTHER_FOLDERS). */
  maxOtherFolders?: number;
  /** A folder appeared: runs may have appeared with it. */
  onStructureChange(): void;
  /** A file appeared (new, or replaced by a rename) or grew. `reported`: each write to it since its last change was
   * already given to `onFileWritten` (a source known by its path was read then). */
  onFileChange(path: string, reported?: boolean): void;
  /** fs.watch says a file in a watched folder was written: every report, at once (a source is read; a file
   * nobody knows is left to `onFileChange`, which chokidar reports after its own stat, throttled). True when a
   * source of its own took it (nothing more to do: the fs.watch watcher then checks nothing on the disk). */
  onFileWritten?(path: string): boolean;
  /** A file was deleted or renamed away. */
  onFileRemoved(path: string): void;
  /** A watched folder was deleted or renamed away (the fs.watch watcher: its files' removals are not each reported). */
  onFolderRemoved?(path: string): void;
  onError(message: string): void;
  /** The folder budget was hit: `skipped` folders found by discovery are not watched. */
  onBudgetHit(watched: number, skipped: number): void;
}

/** What the workspace needs of a watcher, whichever follows the folders. */
export interface FolderWatching {
  /** The first folders are followed (chokidar: its first scan is done). */
  ready(): Promise<void>;
  /** Starts watching the folders not watched yet, within the budgets: `runTree` first, then `others`. */
  watchFolders(runTree: readonly string[], others: readonly string[]): void;
  /** How many folders are watched (each one inotify watch, or one poller). */
  watchedCount(): number;
  close(): Promise<void>;
}

/** chokidar drops a file's `change` events for 50 ms after one it reported (and never reports them
 * later): one trailing read just after that window picks up appends it swallowed. */
const TRAILING_READ_MS = 55;

export { DEFAULT_MAX_OTHER_FOLDERS } from './folder-budget';

/**
 * Watches exactly the folders it is given (discovery's list: real folders once, symlink loops
 * already cut), each at depth 0, so chokidar never walks a tree itself: a link back to an ancestor
 * or out to /usr cannot make it recurse. A new sub-folder shows as a structure change; the caller
 * rediscovers and passes the new list.
 */
export class FolderWatcher implements FolderWatching {
  private readonly fsw: FSWatcher;
  private readonly readyPromise: Promise<void>;
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  /** Files fs.watch reported written (to `onFileWritten`) since chokidar's last `change` for them. */
  private readonly reported = new Set<string>();
  private readonly budget: FolderBudget;

  /** Starts with `root` (then `watchFolders` with what discovery found). */
  constructor(
    root: string,
    private readonly h: FolderWatcherHandlers,
  ) {
    this.budget = new FolderBudget(
      h.maxFolders ?? DEFAULT_MAX_WATCHED_FOLDERS,
      h.maxOtherFolders ?? DEFAULT_MAX_OTHER_FOLDERS,
      (watched, skipped) => h.onBudgetHit(watched, skipped),
    );
    const first = this.budget.admit([root], []);
    // No awaitWriteFinish: a file a trainer keeps appending to would never be "finished".
    this.fsw = watch(first, {
      ignoreInitial: true,
      usePolling: h.usePolling,
      interval: 500,
      ignorePermissionErrors: true,
      // Followed only for the folders given (discovery already resolved them); depth 0 means never deeper.
      followSymlinks: true,
      depth: 0,
      // Dot-files are editors' and trainers' temporaries (written, then renamed into place).
      ignored: (path: string) => !this.budget.has(path) && basename(path).startsWith('.'),
    });
    this.fsw.on('add', (path) => h.onFileChange(path));
    this.fsw.on('addDir', (path) => {
      if (!this.budget.has(path)) h.onStructureChange();
    });
    this.fsw.on('change', (path) => {
      // fs.watch reported the write (a file written in a watched folder, not through a link): it was read then, and
      // each later write is reported too; a swallowed `change` needs no trailing read.
      const reported = this.reported.delete(path);
      h.onFileChange(path, reported);
      if (reported) return;
      // Re-armed on every reported change: each report opens a new 50 ms window of swallowed events.
      clearTimeout(this.trailing.get(path));
      const timer = setTimeout(() => {
        this.trailing.delete(path);
        h.onFileChange(path);
      }, TRAILING_READ_MS);
      timer.unref();
      this.trailing.set(path, timer);
    });
    // chokidar reports a `change` after a stat and drops those within 50 ms of the last: an append every 40 ms
    // waited for the trailing read every other time (p50 13 ms to its watch line). Its raw events are each of
    // fs.watch's reports on a watched folder, at once (polling has none with a folder: its 500 ms polls report).
    if (h.onFileWritten) {
      const written = h.onFileWritten;
      this.fsw.on('raw', (event, name, details) => {
        const folder = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
        if (event !== 'change' || typeof name !== 'string' || typeof folder !== 'string') return;
        if (!this.budget.has(folder) || basename(name).startsWith('.')) return;
        const path = join(folder, name);
        this.reported.add(path);
        written(path);
      });
    }
    this.fsw.on('unlink', (path) => {
      this.reported.delete(path);
      h.onFileRemoved(path);
    });
    // A watched folder removed: chokidar drops it; if it comes back, rediscovery watches it again.
    this.fsw.on('unlinkDir', (path) => {
      this.budget.release(path);
    });
    this.fsw.on('error', (err) =>
      h.onError(`watching folders: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.readyPromise = new Promise((res) => this.fsw.once('ready', () => res()));
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Starts watching the folders not watched yet, within the budgets: `runTree` first (the opened
   * folder, run folders and the folders between), then `others`. */
  watchFolders(runTree: readonly string[], others: readonly string[]): void {
    const added = this.budget.admit(runTree, others);
    if (added.length > 0) this.fsw.add(added);
  }

  /** How many folders are watched (each one inotify watch, or one poller). */
  watchedCount(): number {
    return this.budget.size;
  }

  close(): Promise<void> {
    for (const timer of this.trailing.values()) clearTimeout(timer);
    this.trailing.clear();
    this.reported.clear();
    return this.fsw.close();
  }
}
