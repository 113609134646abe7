// A source file's identity, size and write time as the workspace compares them (stat, async or sync), and whether a path is gone.

import { statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { errorCode, fileIdentity } from '../readers/file-io';

export interface FileInfo {
  identity: string;
  size: number;
  mtimeMs: number;
  /** Whether the filesystem keeps birth times: without them a reused inode gives a new file the
   * old one's identity, and the delete event and the file's first bytes must tell instead. */
  birthTime: boolean;
}

export async function fileInfo(path: string): Promise<FileInfo | null> {
  try {
    return toFileInfo(await stat(path));
  } catch {
    return null;
  }
}

/** `fileInfo` with a synchronous stat: for a file just read from a local disk (its inode is cached). */
export function fileInfoSync(path: string): FileInfo | null {
  try {
    return toFileInfo(statSync(path));
  } catch {
    return null;
  }
}

/** What a synchronous stat says of the file's contents as one string (device, inode, size, mtime and ctime): two
 * equal stamps mean nothing was written (appended, truncated, rewritten in place) nor the file replaced between
 * them. null when the stat fails. */
export function fileStampSync(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return null;
  }
}

function toFileInfo(st: Stats): FileInfo {
  return {
    identity: fileIdentity(st),
    size: st.size,
    mtimeMs: st.mtimeMs,
    birthTime: st.birthtimeMs !== 0,
  };
}

/** Whether nothing is at `path` any more (rather than something unreadable there). */
export async function isGone(path: string): Promise<boolean> {
  try {
    await stat(path);
    return false;
  } catch (e) {
    const code = errorCode(e);
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}
