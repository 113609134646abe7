// Follows a folder with chokidar: structure changes (files/folders added or removed) and appends to files.

import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

export interface FolderWatcherHandlers {
  usePolling: boolean;
  /** A folder appeared: runs may have appeared with it. */
  onStructureChange(): void;
  /** A file appeared (new, or replaced by a rename) or grew. */
  onFileChange(path: string): void;
  onError(message: string): void;
}

export class FolderWatcher {
  private readonly fsw: FSWatcher;
  private readonly readyPromise: Promise<void>;

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
    this.fsw.on('change', (path) => h.onFileChange(path));
    this.fsw.on('error', (err) =>
      h.onError(`watching ${root}: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.readyPromise = new Promise((res) => this.fsw.once('ready', () => res()));
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  close(): Promise<void> {
    return this.fsw.close();
  }
}
