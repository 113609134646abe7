// Follows a folder with chokidar: structure changes (files/folders added or removed), appends, deletions.

import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

export interface FolderWatcherHandlers {
  usePolling: boolean;
  /** A folder appeared: runs may have appeared with it. */
  onStructureChange(): void;
  /** A file appeared (new, or replaced by a rename) or grew. */
  onFileChange(path: string): void;
  /** A file was deleted or renamed away. */
  onFileRemoved(path: string): void;
  onError(message: string): void;
}

/** chokidar drops a file's `change` events for 50 ms after one it reported (and never reports them
 * later): one trailing read just after that window picks up appends it swallowed. */
const TRAILING_READ_MS = 55;

export class FolderWatcher {
  private readonly fsw: FSWatcher;
  private readonly readyPromise: Promise<void>;
  private readonly trailing = new Map<string, NodeJS.Timeout>();

  constructor(root: string, h: FolderWatcherHandlers) {
    // No awaitWriteFinish: a file a trainer keeps appending to would never be "finished".
    this.fsw = watch(root, {
      ignoreInitial: true,
      usePolling: h.usePolling,
      interval: 500,
      ignorePermissionErrors: true,
      followSymlinks: true,
      depth: 16,
      // Dot-files are editors' and trainers' temporaries (written, then renamed into place).
      ignored: (path: string) => path !== root && basename(path).startsWith('.'),
    });
    this.fsw.on('add', (path) => h.onFileChange(path));
    this.fsw.on('addDir', () => h.onStructureChange());
    this.fsw.on('change', (path) => {
      h.onFileChange(path);
      // Re-armed on every reported change: each report opens a new 50 ms window of swallowed events.
      clearTimeout(this.trailing.get(path));
      const timer = setTimeout(() => {
        this.trailing.delete(path);
        h.onFileChange(path);
      }, TRAILING_READ_MS);
      timer.unref();
      this.trailing.set(path, timer);
    });
    this.fsw.on('unlink', (path) => h.onFileRemoved(path));
    this.fsw.on('error', (err) =>
      h.onError(`watching ${root}: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.readyPromise = new Promise((res) => this.fsw.once('ready', () => res()));
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  close(): Promise<void> {
    for (const timer of this.trailing.values()) clearTimeout(timer);
    this.trailing.clear();
    return this.fsw.close();
  }
}
