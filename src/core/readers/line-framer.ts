// Cuts appended bytes at the last complete record boundary, holding a half-written tail for later.

import type { ReadError } from './types';

export interface Framed {
  /** Complete records, ending with a newline (or the flushed tail at the end of the file). */
  bytes: Uint8Array;
  /** Absolute file offset of bytes[0]. */
  start: number;
}

const NL = 10;
const QUOTE = 34;
const COMMA = 44;
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
const EMPTY = new Uint8Array(0);

/**
 * Record boundaries are newlines; with `quoteAware` (CSV) a newline inside a double-quoted field
 * is not a boundary. The CSV state is carried across pushes so each byte is scanned once: the
 * cost of a poll is O(new bytes), not O(file).
 */
export class LineFramer {
  private pending: Uint8Array = EMPTY;
  private pendingStart = 0;
  private scanned = 0;
  private csvState = FIELD_START;
  /** After an overlong record: drop bytes until the next newline. */
  private skipping = false;

  constructor(
    private readonly quoteAware: boolean,
    private readonly maxRecordBytes = 16 << 20,
  ) {}

  /** Appends bytes at absolute offset `start`; returns the complete records now available. */
  push(bytes: Uint8Array, start: number, onError: (e: ReadError) => void): Framed | null {
    if (this.pending.length === 0) {
      this.pending = bytes;
      this.pendingStart = start;
      this.scanned = 0;
    } else {
      const joined = new Uint8Array(this.pending.length + bytes.length);
      joined.set(this.pending);
      joined.set(bytes, this.pending.length);
      this.pending = joined;
    }
    if (this.skipping) {
      const nl = this.pending.indexOf(NL);
      if (nl < 0) return this.drop(this.pending.length);
      this.skipping = false;
      this.drop(nl + 1);
    }
    const boundary = this.scan();
    if (boundary <= 0) {
      if (this.pending.length > this.maxRecordBytes) {
        onError({
          kind: 'too-large',
          offset: this.pendingStart,
          message: `record longer than ${this.maxRecordBytes} bytes skipped`,
        });
        this.skipping = true;
        this.csvState = FIELD_START;
        this.drop(this.pending.length);
      }
      return null;
    }
    const out: Framed = { bytes: this.pending.subarray(0, boundary), start: this.pendingStart };
    // Copy the tail so the (possibly large) consumed chunk can be collected.
    this.pending = this.pending.slice(boundary);
    this.pendingStart += boundary;
    this.scanned -= boundary;
    return out;
  }

  /**
   * Offset of a held-back record stuck in an open quote, once rows followed it (two newlines inside
   * the quote): an unterminated quote, not a quoted field still being written. Null otherwise.
   */
  openQuoteAt(): number | null {
    if (!this.quoteAware || this.csvState !== QUOTED) return null;
    const first = this.pending.indexOf(NL);
    return first >= 0 && this.pending.indexOf(NL, first + 1) >= 0 ? this.pendingStart : null;
  }

  /** At the end of a finished file: the unterminated last record, if any. */
  flush(): Framed | null {
    if (this.skipping || this.pending.length === 0) return null;
    const out: Framed = { bytes: this.pending, start: this.pendingStart };
    this.drop(this.pending.length);
    return out;
  }

  reset(): void {
    this.pending = EMPTY;
    this.pendingStart = 0;
    this.scanned = 0;
    this.csvState = FIELD_START;
    this.skipping = false;
  }

  /** Scans unscanned bytes; returns the end of the last complete record in `pending` (0 if none). */
  private scan(): number {
    const buf = this.pending;
    if (!this.quoteAware) {
      // The scanned part holds no newline (we always cut at the last one), so look only at new bytes.
      const from = this.scanned;
      this.scanned = buf.length;
      const nl = buf.subarray(from).lastIndexOf(NL);
      return nl >= 0 ? from + nl + 1 : 0;
    }
    // RFC 4180 states: only a quote opening a field starts quoted text, so a stray quote inside
    // an unquoted field (which csv-parse's relax_quotes accepts) cannot stall the tail forever.
    let boundary = 0;
    let st = this.csvState;
    for (let i = this.scanned; i < buf.length; i++) {
      const c = buf[i];
      if (st === QUOTED) {
        if (c === QUOTE) st = QUOTE_IN_QUOTED;
      } else if (st === QUOTE_IN_QUOTED && c === QUOTE) {
        st = QUOTED;
      } else if (c === COMMA) {
        st = FIELD_START;
      } else if (c === NL) {
        st = FIELD_START;
        boundary = i + 1;
      } else if (st === FIELD_START && c === QUOTE) {
        st = QUOTED;
      } else {
        st = UNQUOTED;
      }
    }
    this.csvState = st;
    this.scanned = buf.length;
    return boundary;
  }

  private drop(n: number): null {
    this.pending = n >= this.pending.length ? EMPTY : this.pending.slice(n);
    this.pendingStart += n;
    this.scanned = Math.max(0, this.scanned - n);
    return null;
  }
}

/** Splits framed bytes into lines with their absolute offsets (without the newline or a CR). */
export function* lines(framed: Framed): Generator<{ bytes: Uint8Array; offset: number }> {
  const b = framed.bytes;
  let s = 0;
  while (s < b.length) {
    let e = b.indexOf(NL, s);
    if (e < 0) e = b.length;
    let end = e;
    while (end > s && b[end - 1] === 13) end--;
    yield { bytes: b.subarray(s, end), offset: framed.start + s };
    s = e + 1;
  }
}
