// Incremental reader of the LevelDB-log framing of .wandb files: header, 32 KiB blocks, CRC'd chunks.
//
// Layout (wandb sdk/internal/datastore.py): a 7-byte file header (":W&B", magic 0xBEE1 LE,
// version 0), then chunks of `crc32 u32le | length u16le | type u8 | data`, where the CRC is zlib's
// CRC-32 (IEEE, not LevelDB's CRC-32C) of the type byte followed by the data. A chunk never
// crosses a 32 KiB block boundary (blocks counted from file offset 0, header included); fewer than
// 7 bytes left in a block are zero padding. Records span chunks as FULL or FIRST MIDDLE* LAST.

import { crc32 } from 'node:zlib';
import type { ReadError } from '../readers/types';

export const BLOCK = 32768;
const CHUNK_HEADER = 7;
const FILE_HEADER = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;
/** A record larger than this is dropped rather than assembled (protects memory). */
const MAX_RECORD = 64 << 20;

export type LogEvent =
  | { kind: 'record'; offset: number; data: Uint8Array }
  | { kind: 'error'; error: ReadError };

const TYPE_CRC = [0, 1, 2, 3, 4].map((t) => crc32(Uint8Array.of(t)));
const EMPTY = new Uint8Array(0);

export class LevelDbLogReader {
  private buf: Uint8Array = EMPTY;
  /** Absolute file offset of buf[0]. */
  private bufStart = 0;
  /** Absolute offset of the next unread byte (may lie beyond the buffer after a skip). */
  private pos = 0;
  private dead = false;
  private parts: Uint8Array[] = [];
  private partsBytes = 0;
  private recordStart = -1;

  /** Feeds bytes appended at absolute offset `start`; returns the records and errors completed. */
  push(bytes: Uint8Array, start: number): LogEvent[] {
    const out: LogEvent[] = [];
    if (this.dead) return out;
    this.append(bytes, start);
    while (!this.dead && this.step(out));
    this.compact();
    return out;
  }

  /** Bytes fed that belong to complete records (block padding included): less than fed while a chunk
   * or a record spanning chunks is cut off at the end. */
  consumedBytes(): number {
    const fed = this.bufStart + this.buf.length;
    if (this.finish() === null) return Math.max(fed, this.pos);
    return this.recordStart >= 0 ? this.recordStart : this.pos;
  }

  /** At the end of a finished file: a chunk or record cut off by EOF is `truncated`. */
  finish(): ReadError | null {
    if (this.dead) return null;
    const have = this.bufStart + this.buf.length - this.pos;
    if (this.pos < FILE_HEADER && this.bufStart + this.buf.length < FILE_HEADER) {
      return { kind: 'truncated', offset: 0, message: 'file shorter than the 7-byte W&B header' };
    }
    if (have > 0 && !this.onlyPadding())
      return { kind: 'truncated', offset: this.pos, message: `chunk cut off by end of file (${have} bytes)` };
    if (this.recordStart >= 0)
      return {
        kind: 'truncated',
        offset: this.recordStart,
        message: 'record spanning chunks cut off by end of file',
      };
    return null;
  }

  private append(bytes: Uint8Array, start: number): void {
    const end = this.bufStart + this.buf.length;
    // Bytes before `end` were already seen (a caller re-feeding); keep only the new ones.
    const skip = Math.max(0, end - start);
    if (skip >= bytes.length) return;
    const fresh = bytes.subarray(skip);
    if (this.buf.length === 0) {
      this.buf = fresh;
      this.bufStart = start + skip;
    } else {
      const joined = new Uint8Array(this.buf.length + fresh.length);
      joined.set(this.buf);
      joined.set(fresh, this.buf.length);
      this.buf = joined;
    }
  }

  private avail(n: number): boolean {
    return this.pos + n <= this.bufStart + this.buf.length;
  }

  private at(abs: number): number {
    return this.buf[abs - this.bufStart] ?? 0;
  }

  /** One framing step, adding any events to `out`; false when more bytes are needed. */
  private step(out: LogEvent[]): boolean {
    if (this.pos < FILE_HEADER) {
      if (!this.avail(FILE_HEADER)) return false;
      const magic = [0x3a, 0x57, 0x26, 0x42, 0xe1, 0xbe].every((b, i) => this.at(i) === b);
      if (!magic) return this.die(out, 0, 'not a W&B file: bad header magic');
      if (this.at(6) !== 0) return this.die(out, 6, `unsupported W&B log version ${this.at(6)}`);
      this.pos = FILE_HEADER;
      return true;
    }
    const left = BLOCK - (this.pos % BLOCK);
    if (left < CHUNK_HEADER) {
      if (!this.avail(left)) return false;
      this.pos += left;
      return true;
    }
    if (!this.avail(CHUNK_HEADER)) return false;
    const p = this.pos;
    const crc = (this.at(p) | (this.at(p + 1) << 8) | (this.at(p + 2) << 16) | (this.at(p + 3) << 24)) >>> 0;
    const len = this.at(p + 4) | (this.at(p + 5) << 8);
    const type = this.at(p + 6);
    if (CHUNK_HEADER + len > left)
      return this.skipBlock(out, 'decode', p, `chunk of ${len} bytes crosses the block boundary`);
    if (!this.avail(CHUNK_HEADER + len)) return false;
    const s = p + CHUNK_HEADER - this.bufStart;
    const data = this.buf.subarray(s, s + len);
    const typeCrc = TYPE_CRC[type] ?? crc32(Uint8Array.of(type));
    if (crc32(data, typeCrc) !== crc) return this.skipBlock(out, 'bad-data-crc', p, 'chunk CRC mismatch');
    this.pos = p + CHUNK_HEADER + len;
    switch (type) {
      case FULL:
        this.dropPartial(out, p);
        out.push({ kind: 'record', offset: p, data });
        return true;
      case FIRST:
        this.dropPartial(out, p);
        this.recordStart = p;
        this.addPart(data);
        return true;
      case MIDDLE:
      case LAST: {
        if (this.recordStart < 0)
          return this.error(out, 'decode', p, `chunk type ${type} without a FIRST chunk`);
        const first = this.recordStart;
        if (!this.addPart(data))
          return this.error(out, 'too-large', first, `record over ${MAX_RECORD} bytes dropped`);
        if (type === LAST) {
          out.push({ kind: 'record', offset: first, data: concat(this.parts, this.partsBytes) });
          this.clearParts();
        }
        return true;
      }
      default:
        return this.error(out, 'decode', p, `unknown chunk type ${type}`);
    }
  }

  private addPart(data: Uint8Array): boolean {
    if (this.partsBytes + data.length > MAX_RECORD) {
      this.clearParts();
      return false;
    }
    // Copy: the buffer is compacted after each push, parts must outlive it.
    this.parts.push(data.slice());
    this.partsBytes += data.length;
    return true;
  }

  /** A FULL or FIRST chunk while a record is being assembled: that record is lost. */
  private dropPartial(out: LogEvent[], p: number): void {
    if (this.recordStart < 0) return;
    this.error(out, 'decode', this.recordStart, `record spanning chunks interrupted at ${p}`);
    this.clearParts();
  }

  private clearParts(): void {
    this.parts = [];
    this.partsBytes = 0;
    this.recordStart = -1;
  }

  private error(out: LogEvent[], kind: ReadError['kind'], offset: number, message: string): true {
    out.push({ kind: 'error', error: { kind, offset, message } });
    return true;
  }

  /** LevelDB recovery: drop the partial record and resume at the next block. */
  private skipBlock(out: LogEvent[], kind: ReadError['kind'], offset: number, message: string): true {
    this.clearParts();
    this.pos = (Math.floor(offset / BLOCK) + 1) * BLOCK;
    return this.error(out, kind, offset, message);
  }

  private die(out: LogEvent[], offset: number, message: string): false {
    this.dead = true;
    this.error(out, 'decode', offset, message);
    return false;
  }

  private onlyPadding(): boolean {
    // Fewer than 7 zero bytes at a block end are padding, not a cut-off chunk.
    const left = BLOCK - (this.pos % BLOCK);
    const have = this.bufStart + this.buf.length - this.pos;
    return left < CHUNK_HEADER && have < left;
  }

  private compact(): void {
    const drop = Math.min(this.buf.length, Math.max(0, this.pos - this.bufStart));
    if (drop === 0) return;
    this.buf = drop === this.buf.length ? EMPTY : this.buf.slice(drop);
    this.bufStart += drop;
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
