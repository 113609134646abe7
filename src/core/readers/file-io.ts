// The file-system access readers need, injectable so tests and fuzzing can run on in-memory files.

import type { Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';

export interface FileInfo {
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** Changes when the path names a different file (replaced, not appended to). */
  identity: string;
  isFile: boolean;
}

/** Both methods may reject (missing file, permissions); readers turn that into `io` errors. */
export interface FileIO {
  stat(path: string): Promise<FileInfo>;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** The path with every link resolved (`readSideFile` keeps side files inside their run folder); absent where
   * paths hold no links (files in memory). */
  realpath?(path: string): Promise<string>;
}

/** A Node error's `code` (ENOENT, ELOOP…), '' when it has none. */
export function errorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
}

/**
 * Which file a path names. The inode alone is not enough: ext4 gives a file deleted and re-created
 * at once the same inode, which would read as a truncation of the old one. The birth time (statx;
 * 0 where the filesystem keeps none) tells the new file apart.
 */
export function fileIdentity(st: Pick<Stats, 'dev' | 'ino' | 'birthtimeMs'>): string {
  return `${st.dev}:${st.ino}:${st.birthtimeMs}`;
}

export const nodeFileIO: FileIO = {
  async stat(path) {
    const st = await stat(path);
    return { size: st.size, mtime: st.mtimeMs / 1000, identity: fileIdentity(st), isFile: st.isFile() };
  },
  async read(path, offset, length) {
    const handle = await open(path, 'r');
    try {
      const bytes = new Uint8Array(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await handle.read(bytes, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === length ? bytes : bytes.subarray(0, got);
    } finally {
      await handle.close().catch(() => undefined);
    }
  },
  realpath: (path) => realpath(path),
};
