// One event file's bytes in (any chunking), series and typed errors out: framing + decoding, no IO.

import type { ReadError, SourceReadResult } from '../readers/types';
import { SeriesSet } from '../series/series-set';
import { EventDecoder } from './event-decoder';
import { ProtoError } from '../readers/proto-cursor';
import { maskedCrc32c } from './crc32c';
import { RecordReader, STEP_NEED_MORE, STEP_RECORD, STEP_STOPPED, badDataCrc } from './record-reader';
import type { RecordReaderOptions } from './record-reader';
import { configFromTexts } from './text-config';
import { TextStore } from './text-store';
import { HistogramStore } from '../readers/histogram-store';
import { findEventHole, stitchEvent, type EventHole } from './event-hole';

export interface TfEventsReadOptions extends RecordReaderOptions {
  /** The series of this whole read are short-lived (summarised by inspect, handed over by a read worker): a
   * size-hint reservation that overshot by at most 1/16 is kept, not copied to trim it (live series trim past
   * 1/128, so a loaded file holds 16 B per point). */
  shortLived?: boolean;
  /** Keeps only these tags' values (an exact read-back of a few tags of a file too large to hold whole): every other
   * tag's scalars, histograms and texts are skipped as they decode. */
  onlyScalars?: readonly string[];
}

/** A tfevents source: scalars in `series` (the inspect contract's scalar tags), histograms apart. */
export interface TfEventsReadResult extends SourceReadResult {
  format: 'tfevents';
  /** Histogram tags as `TAG/count`, `TAG/min`, `TAG/max`, `TAG/mean` series. */
  histograms: SeriesSet;
  fileVersion: string | null;
  /** Bytes consumed, including a pending partial record. */
  bytes: number;
  /** Well-formed values that could not be stored as numbers (string tensors, non-scalar `scalars`). */
  skippedValues: number;
  /** The `text` plugin's values (bounded). */
  texts: TextStore;
  /** The histogram plugin's and legacy `histo` values with their buckets (bounded). */
  histogramSteps: HistogramStore;
  /** What the texts and hparams say of the run's config (HF Trainer's args and model config…); null when nothing. */
  config: Record<string, unknown> | null;
}

/** Where the stream stands: at a record boundary, inside a partial record, or stopped by broken framing. */
export type StreamState = 'idle' | 'pending' | 'stopped';

/** sizeHint estimates points per byte from at least this many decoded bytes (smaller sources need no hint). */
const RESERVE_AFTER_BYTES = 256 * 1024;

/** Records at least this long are looked into, from their first bytes, for a part the decoder skips (an image…),
 * which the file reader then jumps over instead of reading (#36). */
export const HOLE_MIN_BYTES = 64 * 1024;

/** Bytes of the file the stream needs before it goes on: the rest of an event after the part it skips. */
export interface SkipRequest {
  /** File offset and length of the bytes to read and hand to `resumeSkip` (the event's rest and its data CRC). */
  at: number;
  length: number;
}

/** Keeps a garbage file from growing an unbounded error list; the count goes on. */
const MAX_ERRORS = 1000;

export class EventStream {
  readonly scalars = new SeriesSet();
  readonly histograms = new SeriesSet();
  readonly texts = new TextStore();
  readonly histos = new HistogramStore();
  /** Events decoded so far (the file_version event included). */
  records = 0;
  /** Bytes pushed so far. */
  bytes = 0;
  errorCount = 0;
  private readonly errors: ReadError[] = [];
  private readonly reader: RecordReader;
  private readonly decoder: EventDecoder;
  private pendingOffset = 0;
  private pendingBytes = 0;
  /** The expected total size (sizeHint), until used; -1 once series were reserved, 0 for none. */
  private expectedBytes = 0;

  /** Trim a reserved series whose capacity exceeds its length by more than length >> trimShift. */
  private readonly trimShift: number;
  /**
   * After a push: a large event's skipped part (an image, audio, a graph, another plugin's tensor) reaches past the
   * bytes pushed, so the caller may read just the event's bytes after it (`at`, `length`) and call `resumeSkip`
   * instead of pushing on; pushing on reads the record whole as before. Never with data CRCs checked (the CRC
   * covers the bytes jumped over).
   */
  skip: SkipRequest | null = null;
  /** Bytes of the file jumped over by `resumeSkip` (never pushed). */
  bytesSkipped = 0;
  private readonly jumps: boolean;
  private hole: EventHole | null = null;
  /** The payload offset of a record whose skip failed (a short read, a decode error): read whole. */
  private cancelledAt = -1;
  private stitched: Uint8Array = new Uint8Array(256);

  constructor(opts: TfEventsReadOptions = {}) {
    this.trimShift = opts.shortLived ? 4 : 7;
    this.jumps = opts.checkDataCrc !== true;
    this.reader = new RecordReader(opts);
    this.decoder = new EventDecoder(
      this.scalars,
      this.histograms,
      this.texts,
      this.histos,
      opts.onlyScalars ?? null,
    );
  }

  // The config derived from the texts, kept until a text or the hparams change.
  private configCache: {
    version: number;
    hparams: Record<string, unknown> | null;
    config: Record<string, unknown> | null;
  } | null = null;

  /** The config the file's text summaries and hparams carry (cached: result() is called after every read). */
  private config(): Record<string, unknown> | null {
    const version = this.texts.version;
    const hparams = this.decoder.hparams;
    const cached = this.configCache;
    if (cached && cached.version === version && cached.hparams === hparams) return cached.config;
    const config = configFromTexts(this.texts, hparams);
    this.configCache = { version, hparams, config };
    return config;
  }

  get state(): StreamState {
    if (this.reader.stopped) return 'stopped';
    return this.pendingBytes > 0 ? 'pending' : 'idle';
  }

  /**
   * Tells a fresh stream the source's expected total size (e.g. the file size before a full read).
   * Once the first pushed bytes are decoded, every series is reserved for the points that size
   * implies, so a full read does not regrow and copy its columns; when the size is reached, series
   * the estimate overshot by more than doubling would have are trimmed. Ignored after the first push.
   */
  sizeHint(totalBytes: number): void {
    if (this.bytes === 0 && totalBytes > RESERVE_AFTER_BYTES) this.expectedBytes = totalBytes;
  }

  /** Feeds bytes appended to the file and decodes every complete record; returns the records decoded.
   * The chunk may be reused by the caller afterwards: a partial tail is copied. */
  push(chunk: Uint8Array): number {
    if (this.reader.stopped) return 0;
    this.skip = null;
    this.hole = null;
    this.bytes += chunk.length;
    this.reader.push(chunk);
    const before = this.records;
    const reader = this.reader;
    const decoder = this.decoder;
    for (;;) {
      const code = reader.step();
      if (code === STEP_RECORD) {
        try {
          decoder.decodeRange(reader.recBuf, reader.recStart, reader.recEnd);
          this.records++;
        } catch (e) {
          if (!(e instanceof ProtoError)) throw e;
          // A record that does not decode is either corrupt (its data CRC tells) or a proto we misread.
          const corrupt =
            !reader.recCrcChecked &&
            maskedCrc32c(reader.recBuf, reader.recStart, reader.recEnd) !== reader.recCrc;
          this.addError(
            corrupt
              ? badDataCrc(reader.recOffset)
              : { kind: 'decode', offset: reader.recOffset, message: e.message },
          );
        }
      } else if (code === STEP_NEED_MORE) {
        this.pendingOffset = reader.recordBoundary;
        this.pendingBytes = reader.pendingBytes;
        if (this.expectedBytes !== 0) this.reserve();
        if (this.jumps) this.planSkip();
        return this.records - before;
      } else {
        this.addError(reader.recError!);
        if (code === STEP_STOPPED) {
          this.pendingBytes = 0;
          return this.records - before;
        }
      }
    }
  }

  /** Sets `skip` when the record being assembled is large and its part the decoder skips reaches past its bytes so far. */
  private planSkip(): void {
    const part = this.reader.partialPayload();
    if (part === null || part.total < HOLE_MIN_BYTES || part.at === this.cancelledAt) return;
    const hole = findEventHole(part.buf, 0, part.have, part.total, this.decoder.tensorSkippable);
    if (hole === null) return;
    this.hole = hole;
    // With the record's data CRC: the record's last bytes being there says it is whole on disk (a writer may be
    // half-way through it), so the jump never lands past the end of the file.
    this.skip = { at: part.at + hole.end, length: part.total - hole.end + 4 };
  }

  /**
   * The bytes `skip` asked for (fewer: the file ends before them): the event is decoded without its skipped part and
   * the stream goes on at the record's end (true; the caller's next push starts at `bytes`). false when it cannot
   * (too few bytes, the stitched event does not decode): the caller pushes on from where it was, reading the record
   * whole, which reports what is wrong with it as before.
   */
  resumeSkip(suffix: Uint8Array): boolean {
    const hole = this.hole;
    const want = this.skip?.length ?? -1;
    this.skip = null;
    this.hole = null;
    const part = this.reader.partialPayload();
    if (hole === null || part === null) return false;
    if (suffix.length < want) {
      this.cancelledAt = part.at;
      return false;
    }
    const { bytes, length } = stitchEvent(part.buf, 0, hole, suffix.subarray(0, want - 4), this.stitched);
    this.stitched = bytes;
    try {
      this.decoder.decodeRange(bytes, 0, length);
    } catch (e) {
      if (!(e instanceof ProtoError)) throw e;
      this.cancelledAt = part.at;
      return false;
    }
    this.records++;
    const end = this.reader.jumpPastPartial();
    this.bytesSkipped += end - this.bytes;
    this.bytes = end;
    this.pendingBytes = 0;
    return true;
  }

  /** The result so far. `final` reports a partial last record as `truncated` (a one-shot read of a
   * file that is not growing any more); a live file's partial record is just waited for. */
  result(final = true): TfEventsReadResult {
    const errors = this.errors.slice();
    if (final && this.state === 'pending') {
      errors.push({
        kind: 'truncated',
        offset: this.pendingOffset,
        message: `file ends inside a record (${this.pendingBytes} bytes of it present)`,
      });
    }
    return {
      format: 'tfevents',
      records: this.records,
      series: this.scalars,
      histograms: this.histograms,
      errors,
      fileVersion: this.decoder.fileVersion,
      bytes: this.bytes,
      skippedValues: this.decoder.skippedValues,
      texts: this.texts,
      histogramSteps: this.histos,
      config: this.config(),
    };
  }

  /** Acts on sizeHint: reserves series from the points per byte so far, then trims overshoots. */
  private reserve(): void {
    const decoded = this.reader.recordBoundary;
    if (this.expectedBytes > 0) {
      if (decoded < RESERVE_AFTER_BYTES && this.bytes < this.expectedBytes) return;
      const scale = (this.expectedBytes / Math.max(decoded, 1)) * 1.02;
      this.expectedBytes = decoded < this.expectedBytes ? -this.expectedBytes : 0;
      if (scale <= 1.02) {
        // Read whole at once (grown by doubling): trimmed and settled as below.
        if (this.expectedBytes === 0) this.trimAndSettle();
        return;
      }
      for (const [, s] of this.scalars.entries()) s.reserve(s.length * scale + 64);
      for (const [, s] of this.histograms.entries()) s.reserve(s.length * scale + 64);
    } else if (this.bytes >= -this.expectedBytes) {
      this.expectedBytes = 0;
      this.trimAndSettle();
    }
  }

  /** The file's bulk is read. The reservation (or the doubling) overshoots: trim it, so a loaded file holds 16 B per
   * point; and settle every series, so a live run's appends grow it by an eighth, not doubling (2,500 live series
   * doubling at once held ~40 MB of empty capacity in `serve`, #36 target 2). */
  private trimAndSettle(): void {
    const shift = this.trimShift;
    for (const set of [this.scalars, this.histograms])
      for (const [, s] of set.entries()) {
        if (s.capacity > s.length + (s.length >> shift) + 64) s.compact();
        s.settle();
      }
  }

  private addError(error: ReadError): void {
    this.errorCount++;
    if (this.errors.length < MAX_ERRORS) this.errors.push(error);
  }
}
