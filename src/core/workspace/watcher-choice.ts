// Which watcher follows an opened folder (plain fs.watch, chokidar over fs.watch, chokidar polling), making it, and the
// notice when inotify's limits leave folders to polling.

import type { watch } from 'node:fs';
import { FolderWatcher, type FolderWatcherHandlers, type FolderWatching } from './folder-watcher';
import { FsWatchFolderWatcher, type WatchFallback } from './fs-watch-watcher';
import { fsWatchTrusted } from './mount-info';

/** Which watcher follows the opened folder: plain fs.watch, chokidar over fs.watch, or chokidar polling. */
export type WatcherKind = 'fs.watch' | 'chokidar' | 'polling';

/** Plain fs.watch where inotify sees every write by its name: a local Linux disk (macOS and Windows, network and
 * FUSE filesystems keep chokidar, which lists a folder again at each of its events); `forced`: RLWATCH_WATCHER. */
export function watcherKind(o: {
  polling: boolean;
  forced: 'auto' | 'chokidar' | undefined;
  localDisk: boolean;
  fsType: string | null;
}): WatcherKind {
  if (o.polling) return 'polling';
  const plain =
    o.forced !== 'chokidar' && process.platform === 'linux' && o.localDisk && fsWatchTrusted(o.fsType);
  return plain ? 'fs.watch' : 'chokidar';
}

/** The notice when the inotify limits leave folders to polling. */
export function watchLimitNotice(f: WatchFallback): string {
  const limit =
    f.code === 'ENOSPC'
      ? 'the inotify watch limit (fs.inotify.max_user_watches)'
      : 'the inotify instance or open-file limit (fs.inotify.max_user_instances, ulimit -n)';
  return `${f.code}: ${limit} reached at ${f.folder}: it and any folder after it are polled every 0.5 s instead; raise the limit to follow them with inotify`;
}

/** The watcher of `kind` on `root` (a fs.watch one calls `onFallback` when an inotify limit sends folders to polling). */
export function makeWatcher(
  kind: WatcherKind,
  root: string,
  handlers: Omit<FolderWatcherHandlers, 'usePolling'>,
  o: { fsWatch?: typeof watch; onFallback: (f: WatchFallback) => void },
): FolderWatching {
  return kind === 'fs.watch'
    ? new FsWatchFolderWatcher(root, {
        ...handlers,
        ...(o.fsWatch ? { watch: o.fsWatch } : {}),
        onFallback: o.onFallback,
      })
    : new FolderWatcher(root, { ...handlers, usePolling: kind === 'polling' });
}
