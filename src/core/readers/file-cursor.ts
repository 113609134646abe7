// Reads the bytes appended to a file since the last call, noticing when the file was replaced.

import { errorCode, nodeFileIO, type FileIO } from './file-io';
import type { ReadError } from './types';

export interface AppendedBytes {
  bytes: Uint8Array;
  /** Absolute file offset of bytes[0]. */
  start: number;
  /** The file shrank, is a different file, or was rewritten in place (its start or the bytes before the
   * offset read last changed): everything before was discarded and these bytes start at 0. */
  reset: boolean;
  /** Modification time of the file (seconds since the epoch) when read. */
  mtime: number;
  /** True when these bytes reach the current end of the file. */
  atEnd: boolean;
}

/** Bytes per read; bounds the memory one poll can take however much was appended, and the parse work
 * done between two awaits (readers loop over chunks, so a big file yields to the event loop). */
const DEFAULT_CHUNK = 1 << 20;

/** The file's first bytes and the bytes just before the offset are kept and compared whenever the file changed: a
 * writer that rewrites its file in place (SB3's CSV writer widens the header and rewrites every row when a new key
 * appears, growing the file, same inode) is read again from the start, as a re-read would read it. */
const HEAD_WITNESS = 4096;
const TAIL_WITNESS = 64;
const EMPTY = new Uint8Array(0);

export class FileCursor {
  private offset = 0;
  private identity: string | null = null;
  /** Bytes [0, head.length) and [offset − tail.length, offset) as read. */
  private head: Uint8Array = EMPTY;
  private tail: Uint8Array = EMPTY;
  /** Size and mtime at the last stat: the witnesses are checked only when one changed. */
  private seen = '';

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
      const seen = `${st.size}:${st.mtime}`;
      if (
        (this.identity !== null && st.identity !== this.identity) ||
        st.size < this.offset ||
        (this.offset > 0 && seen !== this.seen && (await this.rewritten()))
      ) {
        reset = this.identity !== null;
        this.offset = 0;
        this.head = EMPTY;
        this.tail = EMPTY;
      }
      this.identity = st.identity;
      this.seen = seen;
      const want = Math.max(0, Math.min(this.chunk, st.size - this.offset));
      const bytes = want === 0 ? EMPTY : await this.io.read(this.path, this.offset, want);
      const start = this.offset;
      this.offset += bytes.length;
      this.witness(bytes, start);
      return { bytes, start, reset, mtime: st.mtime, atEnd: bytes.length < want || this.offset >= st.size };
    } catch (e) {
      return ioError(e);
    }
  }

  /** Whether the bytes kept as witnesses differ from the file's now (a rewrite in place). */
  private async rewritten(): Promise<boolean> {
    const tailAt = this.offset - this.tail.length;
    // The tail lies inside the head while the file is short: one read checks both.
    if (tailAt < this.head.length) {
      const now = await this.io.read(this.path, 0, this.offset);
      return (
        !sameBytes(now.subarray(0, this.head.length), this.head) ||
        !sameBytes(now.subarray(tailAt), this.tail)
      );
    }
    if (!sameBytes(await this.io.read(this.path, 0, this.head.length), this.head)) return true;
    return !sameBytes(await this.io.read(this.path, tailAt, this.tail.length), this.tail);
  }

  /** Keeps the file's first bytes and the last ones before the offset, from `bytes` read at `start`. */
  private witness(bytes: Uint8Array, start: number): void {
    if (bytes.length === 0) return;
    if (start < HEAD_WITNESS && this.head.length === start) {
      const add = bytes.subarray(0, HEAD_WITNESS - start);
      const head = new Uint8Array(start + add.length);
      head.set(this.head);
      head.set(add, start);
      this.head = head;
    }
    if (bytes.length >= TAIL_WITNESS) this.tail = bytes.slice(bytes.length - TAIL_WITNESS);
    else {
      const keep = Math.min(this.tail.length, TAIL_WITNESS - bytes.length);
      const tail = new Uint8Array(keep + bytes.length);
      tail.set(this.tail.subarray(this.tail.length - keep));
      tail.set(bytes, keep);
      this.tail = tail;
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
