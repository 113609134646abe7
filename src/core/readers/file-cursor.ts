// Reads the bytes appended to a file since the last call, noticing when the file was replaced.

import { errorCode, nodeFileIO, type FileIO } from './file-io';
import type { ReadError } from './types';

export interface AppendedBytes {
  bytes: Uint8Array;
  /** Absolute file offset of bytes[0]. */
  start: number;
  /** The file shrank or is a different file: everything before was discarded. */
  reset: boolean;
  /** Modification time of the file (seconds since the epoch) when read. */
  mtime: number;
  /** True when these bytes reach the current end of the file. */
  atEnd: boolean;
}

/** Bytes per read; bounds the memory one poll can take however much was appended, and the parse work
 * done between two awaits (readers loop over chunks, so a big file yields to the event loop). */
const DEFAULT_CHUNK = 1 << 20;

export class FileCursor {
  private offset = 0;
  private identity: string | null = null;

  constructor(
    readonly path: string,
    private readonly io: FileIO = nodeFileIO,
    private readonly chunk = DEFAULT_CHUNK,
  ) {}

  /** Next slice of new bytes, or a typed io error. Call until `atEnd`. */
  async next(): Promise<AppendedBytes | ReadError> {
    try {
      const st = await this.io.stat(this.path);
      if (!st.isFile) return { kind: 'io', offset: 0, message: `${this.path} is not a regular file` };
      let reset = false;
      if ((this.identity !== null && st.identity !== this.identity) || st.size < this.offset) {
        reset = this.identity !== null;
        this.offset = 0;
      }
      this.identity = st.identity;
      const want = Math.max(0, Math.min(this.chunk, st.size - this.offset));
      const bytes = want === 0 ? new Uint8Array(0) : await this.io.read(this.path, this.offset, want);
      const start = this.offset;
      this.offset += bytes.length;
      return { bytes, start, reset, mtime: st.mtime, atEnd: bytes.length < want || this.offset >= st.size };
    } catch (e) {
      return ioError(e);
    }
  }
}

export function ioError(e: unknown, offset = 0): ReadError {
  const code = errorCode(e);
  const message = e instanceof Error ? e.message : String(e);
  return { kind: 'io', offset, message: code && !message.includes(code) ? `${code}: ${message}` : message };
}

export function isReadError(x: unknown): x is ReadError {
  return typeof x === 'object' && x !== null && 'kind' in x && 'message' in x && !('bytes' in x);
}

/** Whole-file read with a size cap, for JSON documents that must be parsed at once. */
export async function readWholeFile(
  path: string,
  maxBytes: number,
  io: FileIO = nodeFileIO,
): Promise<{ bytes: Uint8Array; mtime: number; key: string } | ReadError> {
  try {
    const st = await io.stat(path);
    if (!st.isFile) return { kind: 'io', offset: 0, message: `${path} is not a regular file` };
    if (st.size > maxBytes) {
      return {
        kind: 'too-large',
        offset: 0,
        message: `${st.size} bytes exceeds the ${maxBytes}-byte limit for whole-file JSON`,
      };
    }
    const bytes = await io.read(path, 0, st.size);
    return { bytes, mtime: st.mtime, key: infoKey(st) };
  } catch (e) {
    return ioError(e);
  }
}

/** Cheap change check so an unchanged JSON document is not re-read on every poll. */
export async function fileKey(path: string, io: FileIO = nodeFileIO): Promise<string | null> {
  try {
    return infoKey(await io.stat(path));
  } catch {
    return null;
  }
}

function infoKey(st: { identity: string; size: number; mtime: number }): string {
  return `${st.identity}:${st.size}:${st.mtime}`;
}
