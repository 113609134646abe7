// One event file's bytes in (any chunking), series and typed errors out: framing + decoding, no IO.

import type { ReadError, SourceReadResult } from '../readers/types';
import { SeriesSet } from '../series/series-set';
import { EventDecoder } from './event-decoder';
import { ProtoError } from './proto-cursor';
import { RecordReader, badDataCrc, recordCrcMatches } from './record-reader';
import type { RecordReaderOptions } from './record-reader';

export type TfEventsReadOptions = RecordReaderOptions;

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
}

/** Where the stream stands: at a record boundary, inside a partial record, or stopped by broken framing. */
export type StreamState = 'idle' | 'pending' | 'stopped';

/** Keeps a garbage file from growing an unbounded error list; the count goes on. */
const MAX_ERRORS = 1000;

export class EventStream {
  readonly scalars = new SeriesSet();
  readonly histograms = new SeriesSet();
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

  constructor(opts: TfEventsReadOptions = {}) {
    this.reader = new RecordReader(opts);
    this.decoder = new EventDecoder(this.scalars, this.histograms);
  }

  get state(): StreamState {
    if (this.reader.stopped) return 'stopped';
    return this.pendingBytes > 0 ? 'pending' : 'idle';
  }

  /** Feeds bytes appended to the file and decodes every complete record; returns the records decoded.
   * The chunk may be reused by the caller afterwards: a partial tail is copied. */
  push(chunk: Uint8Array): number {
    if (this.reader.stopped) return 0;
    this.bytes += chunk.length;
    this.reader.push(chunk);
    const before = this.records;
    for (;;) {
      const step = this.reader.next();
      if (step.kind === 'record') {
        try {
          this.decoder.decode(step.payload);
          this.records++;
        } catch (e) {
          if (!(e instanceof ProtoError)) throw e;
          // A record that does not decode is either corrupt (its data CRC tells) or a proto we misread.
          const corrupt = !step.crcChecked && !recordCrcMatches(step);
          this.addError(
            corrupt ? badDataCrc(step.offset) : { kind: 'decode', offset: step.offset, message: e.message },
          );
        }
      } else if (step.kind === 'need-more') {
        this.pendingOffset = step.offset;
        this.pendingBytes = step.pending;
        return this.records - before;
      } else {
        this.addError(step.error);
        if (step.kind === 'stopped') {
          this.pendingBytes = 0;
          return this.records - before;
        }
      }
    }
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
    };
  }

  private addError(error: ReadError): void {
    this.errorCount++;
    if (this.errors.length < MAX_ERRORS) this.errors.push(error);
  }
}
