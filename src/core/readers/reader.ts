// The one small interface every incremental reader implements, and the state they share.
//
// Usage: `const r = createReader(path, format)` (core/sources/registry.ts); call `await r.readMore()` whenever the
// file may have changed (a watcher event or a poll); it reads only what is new (bytes appended for
// line and block formats; a changed whole file for JSON documents), appends points to `r.series`
// and returns how many records and which errors this call produced. A half-written tail is kept
// for the next call, never reported. `readMore({ final: true })` says the writer is done: the
// tail is consumed if it parses, else reported as `truncated`. `result()` is the state so far.
// A reader never throws: bad input becomes a typed ReadError.

import type { SourceFormatName } from '../../shared/formats';
import { SeriesSet } from '../series/series-set';
import { nodeFileIO, type FileIO } from './file-io';
import type { ProgressInfo, ReadError, SourceReadResult } from './types';

export interface ReadMoreOptions {
  /** The writer is done: consume or report the partial tail instead of waiting for it. */
  final?: boolean;
  /** An append of at most this many bytes to a file already read is read with synchronous file calls (a
   * watched append on a local disk: page-cache bytes, microseconds) instead of a threadpool round trip per
   * call. Event files honour it (the other readers read through `FileIO`, asynchronously); 0: never. */
  syncTailBytes?: number;
}

export interface ReaderOptions {
  /** File access (readers of the text and W&B formats; event files are read with node:fs); in-memory
   * in tests and fuzzing. */
  io?: FileIO;
  /** Cap for formats parsed as one JSON document (default 512 MiB). */
  maxJsonBytes?: number;
  /** Called between slices of a long read so a big file does not hold the event loop (default
   * yieldToLoop); readers that parse in slices use it. */
  pause?: () => Promise<void>;
  /** Bytes parsed between two pauses; a default per reader. */
  sliceBytes?: number;
  /** A one-shot whole read whose series are dropped soon (`readSource`: inspect, export): event files keep a
   * size-hint reservation's small overshoot instead of copying every column to trim it. */
  shortLived?: boolean;
  /** Keeps only these tags' values (TfEventsReadOptions.onlyScalars): event files honour it; the other formats read
   * every tag. */
  onlyScalars?: readonly string[];
  /** Clock (ms since the epoch) deciding when a broken document has stopped changing; tests inject it. */
  now?: () => number;
}

/** The default `pause`: lets timers, IO and requests run before the read goes on. */
export const yieldToLoop = (): Promise<void> => new Promise((res) => setImmediate(res));

export interface ReadBatch {
  records: number;
  errors: ReadError[];
}

export interface IncrementalReader {
  readonly format: SourceFormatName;
  readonly path: string;
  /** Points so far; replaced by a new set when the file is swapped out or shrinks. */
  readonly series: SeriesSet;
  /** Bytes of the file consumed so far, when the reader knows (load progress); else null. */
  readonly bytesRead: number | null;
  readMore(options?: ReadMoreOptions): Promise<ReadBatch>;
  result(): SourceReadResult;
  /** Documents rewritten whole only: the same document now lives at `path` (a newer checkpoint's
   * trainer_state.json); the next read takes it from there and emits only what it adds. */
  moveTo?(path: string): void;
}

/** Errors kept in `result()`; a source broken in the same way on every poll must not grow memory. */
const MAX_KEPT_ERRORS = 100;

/** Accumulated state and bookkeeping shared by all readers of this folder. */
export abstract class ReaderBase implements IncrementalReader {
  abstract readonly format: SourceFormatName;
  /** Text formats carry float64 numbers, so series keep double precision. */
  series = new SeriesSet('f64');
  protected records = 0;
  protected errors: ReadError[] = [];
  protected progress: ProgressInfo | null = null;
  protected config: Record<string, unknown> | null = null;
  protected summary: Record<string, unknown> | null = null;
  private batch: ReadBatch = { records: 0, errors: [] };

  protected readonly io: FileIO;
  readonly bytesRead: number | null = null;
  private filePath: string;

  constructor(path: string, options: ReaderOptions = {}) {
    this.filePath = path;
    this.io = options.io ?? nodeFileIO;
  }

  get path(): string {
    return this.filePath;
  }

  /** Reads go on from another file (see `IncrementalReader.moveTo`). */
  protected relocate(path: string): void {
    this.filePath = path;
  }

  async readMore(options: ReadMoreOptions = {}): Promise<ReadBatch> {
    this.batch = { records: 0, errors: [] };
    try {
      await this.read(options.final === true);
    } catch (e) {
      // Last line of defence: a reader bug must still surface as a typed error, not a throw.
      this.error('decode', 0, `internal reader error: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.batch;
  }

  result(): SourceReadResult {
    return {
      format: this.format,
      records: this.records,
      series: this.series,
      errors: [...this.errors],
      progress: this.progress,
      config: this.config,
      summary: this.summary,
    };
  }

  protected abstract read(final: boolean): Promise<void>;

  protected countRecords(n: number): void {
    this.records += n;
    this.batch.records += n;
  }

  protected error(kind: ReadError['kind'], offset: number, message: string): void {
    const e: ReadError = { kind, offset, message };
    this.batch.errors.push(e);
    // The same failure on every poll (an unreadable file) is kept once, not once per poll.
    const last = this.errors[this.errors.length - 1];
    if (last?.kind === kind && last.offset === offset && last.message === message) return;
    if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push(e);
  }

  protected pushError(e: ReadError): void {
    this.error(e.kind, e.offset, e.message);
  }

  /** The file was replaced or rewritten shorter: start over with empty state. */
  protected reset(): void {
    this.series = new SeriesSet('f64');
    this.records = 0;
    this.errors = [];
  }
}
