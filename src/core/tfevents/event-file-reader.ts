// Follows one event file on disk: reads only the bytes appended since the last call; starts over when
// the file shrinks or is replaced. IO failures become typed `io` errors, never exceptions.

import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileIdentity } from '../readers/file-io';
import type { ReadError } from '../readers/types';
import type { SeriesSet } from '../series/series-set';
import { EventStream } from './event-stream';
import type { StreamState, TfEventsReadOptions, TfEventsReadResult } from './event-stream';

export interface EventFileReaderOptions extends TfEventsReadOptions {
  /** Bytes per read call (default 1 MiB, from a buffer shared by all readers). */
  chunkBytes?: number;
}

export interface ReadMoreResult {
  /** Bytes read from the file by this call. */
  bytes: number;
  /** Events decoded by this call. */
  records: number;
  /** The file shrank or was replaced, so everything was re-read from the start into new series sets. */
  reset: boolean;
  state: StreamState;
  /** The IO failure of this call, if any (the series read before stay). */
  error: ReadError | null;
  /** The call stopped at its byte budget (`maxBytes`) with more of the file possibly left: call again. */
  more: boolean;
}

export interface ReadMoreOptions {
  /** Stop after about this many bytes (whole chunks), so a caller can yield to its event loop. */
  maxBytes?: number;
  /** readMoreAsync only: instead of stopping at `maxBytes`, await this and read on (the file stays open). */
  pause?: () => Promise<void>;
}

interface CallState {
  budget: number;
  bytes: number;
  more: boolean;
  reset: boolean;
  recordsBefore: number;
}

const DEFAULT_CHUNK = 1 << 20;
/** After a jump over a skipped part (an image…), reads are this long, doubling back to the chunk while none follows:
 * the next record is often another image, whose first bytes are all that is read of it. */
const PROBE_BYTES = 16 << 10;
// Synchronous reads: the stream copies any partial record, so one buffer serves every reader.
let sharedBuffer: Uint8Array | null = null;
// Asynchronous reads can overlap across readers: each takes a buffer from a small pool for the call.
const pool: Uint8Array[] = [];
const POOL_MAX = 8;
/** New bytes up to this are read into two buffers of this size rather than the pool's 1 MiB ones. */
const SMALL_READ = 64 * 1024;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class EventFileReader {
  /** How many times the file was found shrunk or replaced and re-read. */
  resets = 0;
  private stream: EventStream;
  private offset = 0;
  private identity: string | null = null;
  private ioError: ReadError | null = null;
  private readonly buffer: Uint8Array | null;
  private buffer2: Uint8Array | null = null;
  /** Bytes the next read asks for (at most the buffer): PROBE_BYTES after a jump, doubling back. */
  private readLength = Number.POSITIVE_INFINITY;
  /** Bytes read from the file (a jumped-over part is not). */
  bytesFetched = 0;

  constructor(
    readonly path: string,
    private readonly opts: EventFileReaderOptions = {},
  ) {
    this.stream = new EventStream(opts);
    this.buffer = opts.chunkBytes ? new Uint8Array(Math.max(1, opts.chunkBytes)) : null;
  }

  /** Scalar series; a new object after a reset. */
  get scalars(): SeriesSet {
    return this.stream.scalars;
  }

  get histograms(): SeriesSet {
    return this.stream.histograms;
  }

  /** Bytes of the file consumed so far. */
  get bytesRead(): number {
    return this.offset;
  }

  get state(): StreamState {
    return this.stream.state;
  }

  /** Reads what was appended since the last call (at most about `maxBytes` of it); cost is proportional
   * to the new bytes. */
  readMore(options: ReadMoreOptions = {}): ReadMoreResult {
    const call = this.begin(options);
    let fd = -1;
    try {
      fd = openSync(this.path, 'r');
      call.reset = this.follow(fstatSync(fd));
      this.readAllSync(fd, this.buffer ?? (sharedBuffer ??= new Uint8Array(DEFAULT_CHUNK)), call);
      this.ioError = null;
    } catch (e) {
      this.ioError = { kind: 'io', offset: this.offset, message: message(e) };
    } finally {
      if (fd >= 0) {
        try {
          closeSync(fd);
        } catch {
          // Closing a read-only descriptor cannot lose data; nothing to report.
        }
      }
    }
    return this.end(call);
  }

  /**
   * An append of at most `maxBytes` to a file already read, read with synchronous calls: open, fstat, read and
   * close of bytes the page cache holds cost microseconds, where each threadpool round trip of
   * `readMoreAsync` costs a wake-up (a millisecond and more on a busy machine). null, having read and changed
   * nothing, when the file is new to this reader, another file, shorter, grew by more, or fails: the caller
   * reads it with `readMoreAsync`, which reports what it meets.
   */
  readTailSync(maxBytes: number): ReadMoreResult | null {
    if (this.offset === 0 || this.identity === null) return null;
    let fd = -1;
    const call = this.begin({});
    try {
      fd = openSync(this.path, 'r');
      const st = fstatSync(fd);
      if (fileIdentity(st) !== this.identity || st.size < this.offset || st.size - this.offset > maxBytes)
        return null;
      this.readAllSync(fd, this.buffer ?? (sharedBuffer ??= new Uint8Array(DEFAULT_CHUNK)), call);
      this.ioError = null;
      return this.end(call);
    } catch (e) {
      // Failed before reading anything: the asynchronous read meets (and reports) it again.
      if (call.bytes === 0) return null;
      this.ioError = { kind: 'io', offset: this.offset, message: message(e) };
      return this.end(call);
    } finally {
      if (fd >= 0) {
        try {
          closeSync(fd);
        } catch {
          // Closing a read-only descriptor cannot lose data; nothing to report.
        }
      }
    }
  }

  /** `readMore` with the file IO on libuv's threadpool: a cold or slow disk never stalls the event loop;
   * only parsing (a few ms per MiB) runs on it. The next chunk is read while this one is parsed. With
   * `pause`, the call reads to the end and awaits `pause()` after each `maxBytes`, the file kept open.
   * Calls on one reader must not overlap. */
  async readMoreAsync(options: ReadMoreOptions = {}): Promise<ReadMoreResult> {
    const call = this.begin(options);
    let bufs: Uint8Array[] = [];
    let fh: Awaited<ReturnType<typeof open>> | null = null;
    // A read issued ahead: awaited before the file is closed, whatever happens.
    let ahead: Promise<{ bytesRead: number }> | null = null;
    try {
      fh = await open(this.path, 'r');
      const st = await fh.stat();
      call.reset = this.follow(st);
      let which = 0;
      let aheadAt = this.offset;
      // Nothing new (a sweep's or a repeated event's check): no buffers, no read.
      if (this.stream.state !== 'stopped' && st.size > this.offset) {
        bufs = this.asyncBuffers(st.size - this.offset);
        ahead = fh.read(bufs[0]!, 0, this.readSize(bufs[0]!), this.offset);
      }
      while (ahead) {
        const n = (await ahead).bytesRead;
        ahead = null;
        const buf = bufs[which]!;
        which ^= 1;
        aheadAt = this.offset + n;
        if (n > 0) ahead = fh.read(bufs[which]!, 0, this.readSize(bufs[which]!), aheadAt);
        let go = this.consume(buf, n, call);
        const skip = this.stream.skip;
        if (skip) {
          const suffix = new Uint8Array(skip.length);
          const got = (await fh.read(suffix, 0, skip.length, skip.at)).bytesRead;
          go = this.resume(suffix.subarray(0, got), call) || go;
        }
        if (ahead && aheadAt !== this.offset) {
          // A jump: the read ahead was for bytes no longer wanted.
          await ahead.catch(() => null);
          ahead = fh.read(bufs[which]!, 0, this.readSize(bufs[which]!), this.offset);
        }
        if (go && this.stream.state !== 'stopped') continue;
        if (!call.more || !options.pause || this.stream.state === 'stopped') break;
        call.more = false;
        call.budget += options.maxBytes ?? 0;
        await options.pause();
      }
      this.ioError = null;
    } catch (e) {
      this.ioError = { kind: 'io', offset: this.offset, message: message(e) };
    } finally {
      await ahead?.catch(() => null);
      await fh?.close().catch(() => {
        // Closing a read-only descriptor cannot lose data; nothing to report.
      });
      for (const buf of bufs)
        if (
          buf.length === DEFAULT_CHUNK &&
          buf !== this.buffer &&
          buf !== this.buffer2 &&
          pool.length < POOL_MAX
        )
          pool.push(buf);
    }
    return this.end(call);
  }

  /** Two buffers for an asynchronous call (one parsed while the other is filled): the reader's own size if it
   * has one; for `expected` new bytes well under a chunk, two small ones (an append of a few KiB does not take
   * 2 MiB: fifty at once emptied the pool and allocated 100 MiB); else from the pool. */
  private asyncBuffers(expected: number): [Uint8Array, Uint8Array] {
    if (this.buffer) return [this.buffer, (this.buffer2 ??= new Uint8Array(this.buffer.length))];
    if (expected <= SMALL_READ) return [new Uint8Array(SMALL_READ), new Uint8Array(SMALL_READ)];
    return [pool.pop() ?? new Uint8Array(DEFAULT_CHUNK), pool.pop() ?? new Uint8Array(DEFAULT_CHUNK)];
  }

  private begin(options: ReadMoreOptions): CallState {
    const budget = options.maxBytes ?? Number.POSITIVE_INFINITY;
    return { budget, bytes: 0, more: false, reset: false, recordsBefore: this.stream.records };
  }

  /** Reads to the end of the file (or the call's budget) with synchronous calls, jumping where the stream asks. */
  private readAllSync(fd: number, buf: Uint8Array, call: CallState): void {
    while (this.stream.state !== 'stopped') {
      let go = this.consume(buf, readSync(fd, buf, 0, this.readSize(buf), this.offset), call);
      const skip = this.stream.skip;
      if (skip) {
        const suffix = new Uint8Array(skip.length);
        const got = readSync(fd, suffix, 0, skip.length, skip.at);
        go = this.resume(suffix.subarray(0, got), call) || go;
      }
      if (!go) return;
    }
  }

  /** How much of `buf` the next read fills. */
  private readSize(buf: Uint8Array): number {
    return Math.min(buf.length, this.readLength);
  }

  /** Feeds `n` bytes just read into the stream; false when the call should stop (end of file, or budget). */
  private consume(buf: Uint8Array, n: number, call: CallState): boolean {
    if (n === 0) return false;
    this.offset += n;
    this.bytesFetched += n;
    call.bytes += n;
    this.stream.push(buf.subarray(0, n));
    // Reads grow back to the whole buffer while no jump follows.
    if (this.readLength < buf.length) this.readLength *= 2;
    if (call.bytes < call.budget) return true;
    call.more = true;
    return false;
  }

  /** Hands the stream the bytes of its skip request; after a jump, reading goes on at the record's end with a short
   * read. Returns whether it jumped (the call goes on, even past its budget: the jump read next to nothing). */
  private resume(suffix: Uint8Array, call: CallState): boolean {
    this.bytesFetched += suffix.length;
    if (!this.stream.resumeSkip(suffix)) return false;
    this.offset = this.stream.bytes;
    this.readLength = PROBE_BYTES;
    if (call.bytes < call.budget) return true;
    call.more = true;
    return false;
  }

  private end(call: CallState): ReadMoreResult {
    const { bytes, reset } = call;
    const more = call.more && this.stream.state !== 'stopped';
    const records = reset ? this.stream.records : this.stream.records - call.recordsBefore;
    return { bytes, records, reset, state: this.stream.state, error: this.ioError, more };
  }

  /** Starts over when the file shrank or is another file now; returns whether it did. */
  private follow(st: Stats): boolean {
    let reset = false;
    const identity = fileIdentity(st);
    if ((this.identity !== null && identity !== this.identity) || st.size < this.offset) {
      this.stream = new EventStream(this.opts);
      this.offset = 0;
      this.resets++;
      reset = true;
    }
    this.identity = identity;
    // Knowing the file's size lets every series be sized once instead of grown by doubling.
    if (this.offset === 0) this.stream.sizeHint(st.size);
    return reset;
  }

  /** The result so far; `final` reports a partial last record as `truncated`. */
  result(final = false): TfEventsReadResult {
    const r = this.stream.result(final);
    if (this.ioError) r.errors.push(this.ioError);
    return r;
  }
}

/** Reads a whole event file once (a partial last record is reported as `truncated`). */
export function readEventFile(path: string, opts: EventFileReaderOptions = {}): TfEventsReadResult {
  const reader = new EventFileReader(path, opts);
  reader.readMore();
  return reader.result(true);
}
