// An event file as an IncrementalReader: file IO off the event loop, parsing cut into byte slices with a pause between them.

import type { SourceFormatName } from '../../shared/formats';
import {
  yieldToLoop,
  type IncrementalReader,
  type ReadBatch,
  type ReaderOptions,
  type ReadMoreOptions,
} from '../readers/reader';
import type { SeriesSet } from '../series/series-set';
import { EventFileReader } from './event-file-reader';
import type { TfEventsReadResult } from './event-stream';

/** Bytes parsed per synchronous slice (one 1 MiB read chunk: ~2-4 ms at reader speed) before the reader pauses. */
export const TFEVENTS_SLICE_BYTES = 1 << 20;

export class TfeventsReader implements IncrementalReader {
  readonly format: SourceFormatName = 'tfevents';
  private readonly reader: EventFileReader;
  private readonly pause: () => Promise<void>;
  private readonly sliceBytes: number;
  /** The last read was final: a partial last record is reported as `truncated`. */
  private final = false;

  constructor(
    readonly path: string,
    options: ReaderOptions = {},
  ) {
    this.reader = new EventFileReader(path, {
      shortLived: options.shortLived === true,
      ...(options.onlyScalars ? { onlyScalars: options.onlyScalars } : {}),
    });
    this.pause = options.pause ?? yieldToLoop;
    this.sliceBytes = options.sliceBytes ?? TFEVENTS_SLICE_BYTES;
  }

  get series(): SeriesSet {
    return this.reader.scalars;
  }

  get bytesRead(): number {
    return this.reader.bytesRead;
  }

  /** Reads what was appended, slice by slice with a pause between (a small append at once, with
   * `syncTailBytes`); never throws (IO failures are `io` errors). */
  async readMore(options: ReadMoreOptions = {}): Promise<ReadBatch> {
    const errorsBefore = this.reader.result(false).errors.length;
    const tail = options.syncTailBytes ? this.reader.readTailSync(options.syncTailBytes) : null;
    const { records } =
      tail ?? (await this.reader.readMoreAsync({ maxBytes: this.sliceBytes, pause: this.pause }));
    this.final = options.final === true;
    const errors = this.result().errors;
    return { records, errors: errors.slice(Math.min(errorsBefore, errors.length)) };
  }

  result(): TfEventsReadResult {
    return this.reader.result(this.final);
  }
}
