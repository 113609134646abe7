// Resumable TFRecord framing: bytes in any chunking, complete record payloads out, a partial tail kept.

import type { ReadError } from '../readers/types';
import { maskedCrc32c } from './crc32c';

/** Lengths above this stop the file as `too-large` (TensorBoard's largest real records are images). */
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;

export interface RecordReaderOptions {
  /** Check every payload's CRC (off by default, as in TensorBoard's data server). */
  checkDataCrc?: boolean;
  maxRecordBytes?: number;
}

/** One step of the reader. `payload` is a view valid until the next `push` (no copy where possible). */
export type RecordStep =
  | { kind: 'record'; payload: Uint8Array; offset: number; crc: number; crcChecked: boolean }
  /** No complete record buffered; `pending` bytes of a partial record are held for the next push. */
  | { kind: 'need-more'; offset: number; pending: number }
  /** A record whose data CRC failed: skipped, reading continues. */
  | { kind: 'skipped'; error: ReadError }
  /** The framing itself is broken (bad length CRC, absurd length): nothing after it can be trusted. */
  | { kind: 'stopped'; error: ReadError };

/** What `advance()` found (the allocation-free form of `next()`; details are in the reader's `rec*` fields). */
export const STEP_RECORD = 0;
export const STEP_NEED_MORE = 1;
export const STEP_SKIPPED = 2;
export const STEP_STOPPED = 3;
export type StepCode = 0 | 1 | 2 | 3;

const HEADER = 12;
const FOOTER = 4;
const EMPTY = new Uint8Array(0);

function u32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

/** True when a record's stored data CRC matches its payload (for checking after a decode failure). */
export function recordCrcMatches(step: { payload: Uint8Array; crc: number }): boolean {
  return maskedCrc32c(step.payload) === step.crc;
}

export class RecordReader {
  private readonly checkDataCrc: boolean;
  private readonly maxRecordBytes: number;
  // The chunk being parsed and pushed chunks not reached yet.
  private cur: Uint8Array = EMPTY;
  private pos = 0;
  private queue: Uint8Array[] = [];
  private queueAt = 0;
  // A record split across chunks: its header, then its body (payload + data CRC), copied as bytes arrive.
  private readonly header = new Uint8Array(HEADER);
  private headerFill = 0;
  private payloadLength = 0;
  private body: Uint8Array = EMPTY;
  private bodyFill = 0;
  /** File offset of the first byte of `cur[pos]`, and of the record being assembled. */
  private consumed = 0;
  private recordStart = 0;
  private stoppedWith: ReadError | null = null;
  /** After `advance()` returned STEP_RECORD: the payload is recBuf[recStart, recEnd), valid until the
   * next push; its file offset, stored data CRC and whether that CRC was checked. */
  recBuf: Uint8Array = EMPTY;
  recStart = 0;
  recEnd = 0;
  recOffset = 0;
  recCrc = 0;
  recCrcChecked = false;
  /** After STEP_SKIPPED or STEP_STOPPED: the error. */
  recError: ReadError | null = null;

  constructor(opts: RecordReaderOptions = {}) {
    this.checkDataCrc = opts.checkDataCrc ?? false;
    this.maxRecordBytes = Math.min(opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES, 0xffffffff);
  }

  /** Appends bytes that follow everything pushed before. The reader keeps a reference, not a copy. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.pos >= this.cur.length) {
      this.cur = chunk;
      this.pos = 0;
    } else {
      this.queue.push(chunk);
    }
  }

  /** The fatal framing error, once the file has stopped. */
  get stopped(): ReadError | null {
    return this.stoppedWith;
  }

  /** Bytes of a partial record currently held (0 at a record boundary). */
  get pendingBytes(): number {
    return this.headerFill < HEADER ? this.headerFill : HEADER + this.bodyFill;
  }

  /** Bytes allocated for assembling a split record; bounded by the bytes actually pushed. */
  get bufferedBytes(): number {
    return HEADER + this.body.length;
  }

  /** The record being assembled, once its header is known: its payload's first `have` bytes at buf[0…], its length
   * and the file offset of its first payload byte. null at a record boundary or inside a header. */
  partialPayload(): { buf: Uint8Array; have: number; total: number; at: number } | null {
    if (this.headerFill < HEADER || this.stoppedWith) return null;
    const have = Math.min(this.bodyFill, this.payloadLength);
    return { buf: this.body, have, total: this.payloadLength, at: this.recordStart + HEADER };
  }

  /** Drops the record being assembled as if it had been read whole: framing goes on at the file offset after it
   * (returned), where the caller's next bytes must start. */
  jumpPastPartial(): number {
    const end = this.recordStart + HEADER + this.payloadLength + FOOTER;
    this.consumed = end;
    this.recordStart = end;
    this.headerFill = 0;
    this.bodyFill = 0;
    this.body = EMPTY;
    this.cur = EMPTY;
    this.pos = 0;
    this.queue = [];
    this.queueAt = 0;
    return end;
  }

  /** File offset just after the last complete record (where a resumed read would restart framing). */
  get recordBoundary(): number {
    return this.recordStart;
  }

  next(): RecordStep {
    switch (this.step()) {
      case STEP_RECORD:
        return {
          kind: 'record',
          payload: this.recBuf.subarray(this.recStart, this.recEnd),
          offset: this.recOffset,
          crc: this.recCrc,
          crcChecked: this.recCrcChecked,
        };
      case STEP_NEED_MORE:
        return { kind: 'need-more', offset: this.recordStart, pending: this.pendingBytes };
      case STEP_SKIPPED:
        return { kind: 'skipped', error: this.recError! };
      default:
        return { kind: 'stopped', error: this.recError! };
    }
  }

  /** `next()` without allocating: returns what it found and leaves the details in the `rec*` fields. */
  step(): StepCode {
    if (this.stoppedWith) {
      this.recError = this.stoppedWith;
      return STEP_STOPPED;
    }
    for (;;) {
      if (this.headerFill < HEADER) {
        const cur = this.cur;
        const pos = this.pos;
        if (this.headerFill === 0 && cur.length - pos >= HEADER) {
          // Fast path: the whole header is in this chunk.
          if (!this.checkHeader(cur, pos)) return STEP_STOPPED;
          this.advance(HEADER);
          const need = this.payloadLength + FOOTER;
          if (cur.length - this.pos >= need) return this.wholeRecord(cur, this.pos);
          this.headerFill = HEADER;
        } else {
          const n = Math.min(HEADER - this.headerFill, cur.length - pos);
          this.header.set(cur.subarray(pos, pos + n), this.headerFill);
          this.headerFill += n;
          this.advance(n);
          if (this.headerFill < HEADER) {
            if (!this.nextChunk()) return STEP_NEED_MORE;
            continue;
          }
          if (!this.checkHeader(this.header, 0)) return STEP_STOPPED;
        }
      }
      // The header is known; assemble the body.
      const need = this.payloadLength + FOOTER;
      const cur = this.cur;
      const avail = cur.length - this.pos;
      if (this.bodyFill === 0 && avail >= need) return this.wholeRecord(cur, this.pos);
      const n = Math.min(need - this.bodyFill, avail);
      if (n > 0) {
        this.reserveBody(this.bodyFill + n, need);
        this.body.set(cur.subarray(this.pos, this.pos + n), this.bodyFill);
        this.bodyFill += n;
        this.advance(n);
      }
      if (this.bodyFill < need) {
        if (!this.nextChunk()) return STEP_NEED_MORE;
        continue;
      }
      const body = this.body;
      // A fresh buffer per split record, so the returned payload stays valid like a chunk view.
      this.body = EMPTY;
      this.bodyFill = 0;
      this.headerFill = 0;
      return this.finish(body, 0, this.payloadLength);
    }
  }

  private advance(n: number): void {
    this.pos += n;
    this.consumed += n;
  }

  private nextChunk(): boolean {
    if (this.queueAt >= this.queue.length) {
      if (this.queue.length > 0) {
        this.queue = [];
        this.queueAt = 0;
      }
      this.cur = EMPTY;
      this.pos = 0;
      return false;
    }
    this.cur = this.queue[this.queueAt++]!;
    this.pos = 0;
    return true;
  }

  /** Validates the length CRC and the length; sets `payloadLength`, or stops the file and returns false. */
  private checkHeader(b: Uint8Array, p: number): boolean {
    if (maskedCrc32c(b, p, p + 8) !== u32(b, p + 8)) {
      return this.stop('bad-length-crc', 'record length CRC mismatch; the rest of the file is unreadable');
    }
    const lo = u32(b, p);
    const hi = u32(b, p + 4);
    if (hi !== 0 || lo > this.maxRecordBytes) {
      const len = hi * 4294967296 + lo;
      return this.stop('too-large', `record length ${len} exceeds the ${this.maxRecordBytes}-byte limit`);
    }
    this.payloadLength = lo;
    return true;
  }

  private stop(kind: 'bad-length-crc' | 'too-large', message: string): false {
    this.stoppedWith = { kind, offset: this.recordStart, message };
    this.cur = EMPTY;
    this.pos = 0;
    this.queue = [];
    this.queueAt = 0;
    this.body = EMPTY;
    this.recError = this.stoppedWith;
    return false;
  }

  /** Grows the assembly buffer geometrically, never past what has arrived: a huge claimed length
   * in a short or garbage file costs no more memory than the file's own bytes. */
  private reserveBody(size: number, need: number): void {
    if (size <= this.body.length) return;
    const next = new Uint8Array(Math.min(need, Math.max(size, this.body.length * 2, 256)));
    next.set(this.body.subarray(0, this.bodyFill));
    this.body = next;
  }

  private wholeRecord(cur: Uint8Array, start: number): StepCode {
    this.advance(this.payloadLength + FOOTER);
    this.headerFill = 0;
    return this.finish(cur, start, start + this.payloadLength);
  }

  /** Publishes the record buf[start, end) (its data CRC follows it), checking the CRC if asked. */
  private finish(buf: Uint8Array, start: number, end: number): StepCode {
    const offset = this.recordStart;
    this.recordStart = this.consumed;
    const crc = u32(buf, end);
    if (this.checkDataCrc && maskedCrc32c(buf, start, end) !== crc) {
      this.recError = badDataCrc(offset);
      return STEP_SKIPPED;
    }
    this.recBuf = buf;
    this.recStart = start;
    this.recEnd = end;
    this.recOffset = offset;
    this.recCrc = crc;
    this.recCrcChecked = this.checkDataCrc;
    return STEP_RECORD;
  }
}

export function badDataCrc(offset: number): ReadError {
  return { kind: 'bad-data-crc', offset, message: 'record data CRC mismatch; record skipped' };
}
