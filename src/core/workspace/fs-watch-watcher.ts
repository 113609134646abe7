// Follows the folders discovery walked with plain fs.watch (a local Linux disk): a write reads the named file, a name that
// came or went is one lstat; no folder is listed again per event. Polls (chokidar) what the inotify limits leave over.

import { lstatSync, readdirSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { errorCode } from '../readers/file-io';
import { yieldToLoop } from '../readers/reader';
import { DEFAULT_MAX_OTHER_FOLDERS, DEFAULT_MAX_WATCHED_FOLDERS, FolderBudget } from './folder-budget';
import { FolderWatcher, type FolderWatcherHandlers, type FolderWatching } from './folder-watcher';

/** fs.watch cannot take another folder: the inotify watch limit (ENOSPC: fs.inotify.max_user_watches), or no inotify
 * instance or file descriptor left (EMFILE, ENFILE). */
export type WatchLimitCode = 'ENOSPC' | 'EMFILE' | 'ENFILE';
const LIMIT_CODES: ReadonlySet<string> = new Set<WatchLimitCode>(['ENOSPC', 'EMFILE', 'ENFILE']);

/** The inotify limits were hit: `folder` and every folder after it are polled (chokidar) instead. */
export interface WatchFallback {
  code: WatchLimitCode;
  folder: string;
}

export interface FsWatchHandlers extends Omit<FolderWatcherHandlers, 'usePolling'> {
  /** Once, at the first folder fs.watch could not take. */
  onFallback(fallback: WatchFallback): void;
  /** fs.watch itself (tests make it throw). */
  watch?: typeof watch;
}

/** Folders attached between yields to the event loop (each an fs.watch and one listing for linked files). */
const ATTACH_SLICE = 64;

interface Followed {
  watcher: FSWatcher;
  /** The folder's linked files, each followed by a watch of its own (its folder's watch does not see its writes). */
  links: Map<string, FSWatcher>;
}

/** lstat (or stat, following a link) of one path; undefined when nothing (readable) is there. */
function statOf(path: string, follow: boolean): Stats | undefined {
  try {
    return (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Watches exactly the folders it is given (discovery's list), each at depth 0, with one fs.watch per folder and one
 * per linked file. A `change` report names the file written: a source of its own reads it and nothing is looked at on
 * the disk (chokidar listed the folder and lstat'ed each entry, then stat'ed the file, at every write); a `rename`
 * report names what came or went: that one name is lstat'ed. What fs.watch misses, the workspace's sweep still reads.
 */
export class FsWatchFolderWatcher implements FolderWatching {
  private readonly budget: FolderBudget;
  private readonly followed = new Map<string, Followed>();
  /** Admitted folders waiting to be attached, in order. */
  private queue: string[] = [];
  /** Whether `attachQueued` is draining the queue (it takes what is pushed meanwhile), and its promise. */
  private attaching = false;
  private attached: Promise<void> = Promise.resolve();
  /** The folders handed to the polling fallback (fs.watch could not take them). */
  private readonly polled = new Set<string>();
  private fallback: FolderWatcher | null = null;
  private limit: WatchLimitCode | null = null;
  private closed = false;
  private readonly fsWatch: typeof watch;

  constructor(
    root: string,
    private readonly h: FsWatchHandlers,
  ) {
    this.fsWatch = h.watch ?? watch;
    this.budget = new FolderBudget(
      h.maxFolders ?? DEFAULT_MAX_WATCHED_FOLDERS,
      h.maxOtherFolders ?? DEFAULT_MAX_OTHER_FOLDERS,
      (watched, skipped) => h.onBudgetHit(watched, skipped),
    );
    this.watchFolders([root], []);
  }

  /** Resolves once every folder given so far is followed. */
  ready(): Promise<void> {
    return this.attached;
  }

  watchFolders(runTree: readonly string[], others: readonly string[]): void {
    const added = this.budget.admit(runTree, others);
    if (added.length === 0) return;
    this.queue.push(...added);
    if (!this.attaching) this.attached = this.attachQueued();
  }

  watchedCount(): number {
    return this.budget.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.queue = [];
    for (const folder of [...this.followed.keys()]) this.unfollow(folder);
    await this.fallback?.close();
    this.fallback = null;
  }

  /** Attaches the queued folders, ATTACH_SLICE between yields (1000 run folders: one turn would be long). */
  private async attachQueued(): Promise<void> {
    this.attaching = true;
    try {
      let n = 0;
      while (this.queue.length > 0 && !this.closed) {
        const folder = this.queue.shift()!;
        if (this.budget.has(folder) && !this.followed.has(folder) && !this.polled.has(folder))
          this.attach(folder);
        if (++n % ATTACH_SLICE === 0) await yieldToLoop();
      }
    } finally {
      this.attaching = false;
    }
  }

  private attach(folder: string): void {
    if (this.limit) return this.poll(folder);
    let watcher: FSWatcher;
    try {
      watcher = this.fsWatch(folder, (event, name) => this.folderEvent(folder, event, name));
    } catch (e) {
      return this.cannotWatch(folder, e);
    }
    const followed: Followed = { watcher, links: new Map() };
    this.followed.set(folder, followed);
    watcher.on('error', (e) => {
      // A watch that failed is unusable: its folder is polled from now on.
      this.h.onError(`watching ${folder}: ${e instanceof Error ? e.message : String(e)}`);
      this.unfollow(folder);
      this.poll(folder);
    });
    // Linked files: their writes reach their target's folder, not this one.
    let names: string[] = [];
    try {
      names = readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isSymbolicLink() && !d.name.startsWith('.'))
        .map((d) => d.name);
    } catch {
      // Gone or unreadable meanwhile: its watch says what happens next.
    }
    for (const name of names) {
      const path = join(folder, name);
      if (statOf(path, true)?.isFile()) this.followLink(folder, path);
    }
  }

  /** fs.watch refused `folder`: over an inotify limit it is polled; gone, its place is freed; unreadable, skipped
   * (as chokidar's ignorePermissionErrors). */
  private cannotWatch(folder: string, e: unknown): void {
    const code = errorCode(e);
    if (LIMIT_CODES.has(code)) {
      if (!this.limit) {
        this.limit = code as WatchLimitCode;
        this.h.onFallback({ code: this.limit, folder });
      }
      return this.poll(folder);
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') this.budget.release(folder);
  }

  /** Hands `folder` to the polling watcher (chokidar, 500 ms). */
  private poll(folder: string): void {
    if (this.closed || this.polled.has(folder)) return;
    this.polled.add(folder);
    if (this.fallback) return this.fallback.watchFolders([folder], []);
    this.fallback = new FolderWatcher(folder, {
      ...this.h,
      usePolling: true,
      // Admitted under this watcher's budgets already.
      maxFolders: Number.MAX_SAFE_INTEGER,
      maxOtherFolders: Number.MAX_SAFE_INTEGER,
    });
  }

  private unfollow(folder: string): void {
    const f = this.followed.get(folder);
    if (!f) return;
    this.followed.delete(folder);
    f.watcher.close();
    for (const w of f.links.values()) w.close();
  }

  private followLink(folder: string, path: string): void {
    const f = this.followed.get(folder);
    if (!f || f.links.has(path)) return;
    let watcher: FSWatcher;
    try {
      watcher = this.fsWatch(path, (event) => {
        if (event === 'change') return this.written(path);
        // The target was deleted or renamed: this watch is spent; what is at the path now is looked at afresh.
        this.unfollowLink(folder, path);
        this.renamed(folder, path);
      });
    } catch (e) {
      if (!LIMIT_CODES.has(errorCode(e))) return;
      // Over an inotify limit: the whole folder is polled (chokidar polls its linked files too).
      this.cannotWatch(folder, e);
      this.unfollow(folder);
      return this.poll(folder);
    }
    watcher.on('error', () => this.unfollowLink(folder, path));
    f.links.set(path, watcher);
  }

  private unfollowLink(folder: string, path: string): void {
    const f = this.followed.get(folder);
    f?.links.get(path)?.close();
    f?.links.delete(path);
  }

  private folderEvent(folder: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    // No name: something changed, no saying what; rediscovery looks.
    if (name === null) return this.h.onStructureChange();
    const path = join(folder, name.toString());
    if (event === 'change') return this.written(path);
    // The folder's own entry went away (a watch reports it under the folder's name).
    if (basename(path) === basename(folder) && !statOf(folder, true)?.isDirectory()) this.folderGone(folder);
    this.renamed(folder, path);
  }

  /** Dot-files are editors' and trainers' temporaries (written, then renamed into place). */
  private ignored(path: string): boolean {
    return basename(path).startsWith('.') && !this.budget.has(path);
  }

  /** A file written: a source of its own was read by `onFileWritten`; anything else (a database, a file nobody knows
   * yet) is passed on as chokidar's `change` when it is a file. */
  private written(path: string): void {
    if (this.ignored(path) || this.budget.has(path)) return;
    if (this.h.onFileWritten?.(path) === true) return;
    if (statOf(path, true)?.isFile()) this.h.onFileChange(path, this.h.onFileWritten !== undefined);
  }

  /** A name came or went in `folder`. */
  private renamed(folder: string, path: string): void {
    if (this.ignored(path)) return;
    const st = statOf(path, false);
    if (this.budget.has(path)) {
      // A watched folder's name moved: the folder that was followed there is gone; one back at the name (re-created
      // or moved in) is another folder, which rediscovery watches again.
      this.folderGone(path);
      if (st) this.h.onStructureChange();
      return;
    }
    if (!st) {
      this.unfollowLink(folder, path);
      return this.h.onFileRemoved(path);
    }
    const target = st.isSymbolicLink() ? statOf(path, true) : st;
    if (!target) {
      // A dangling link: nothing to read there.
      this.unfollowLink(folder, path);
      return this.h.onFileRemoved(path);
    }
    if (target.isDirectory()) return this.h.onStructureChange();
    if (!target.isFile()) return;
    if (st.isSymbolicLink()) this.followLink(folder, path);
    this.h.onFileChange(path);
  }

  /** A watched folder (and every watched folder under it) was deleted or moved away. */
  private folderGone(folder: string): void {
    const under = folder + sep;
    for (const f of [...this.budget.folders()]) {
      if (f !== folder && !f.startsWith(under)) continue;
      this.unfollow(f);
      this.polled.delete(f);
      this.budget.release(f);
    }
    this.h.onFolderRemoved?.(folder);
  }
}
