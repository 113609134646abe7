// Base of the readers of files appended to in place (CSV, JSONL, W&B): one readMore loop over the new bytes.

import { FileCursor, isReadError } from './file-cursor';
import { LineFramer, type Framed } from './line-framer';
import { ReaderBase, type ReaderOptions } from './reader';
import { RowSink } from './rows';

/**
 * Reads the bytes appended since the last call, chunk by chunk: `restart()` when the file was
 * replaced or shrank, `chunk()` for each slice of new bytes, `finish()` at the end of a final read
 * (the writer is done: consume or report the held-back tail), then `afterRead()`.
 */
export abstract class AppendedBytesReader extends ReaderBase {
  private readonly cursor: FileCursor;

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options);
    this.cursor = new FileCursor(path, this.io);
  }

  protected async read(final: boolean): Promise<void> {
    for (;;) {
      const got = await this.cursor.next();
      if (isReadError(got)) {
        this.pushError(got);
        break;
      }
      if (got.reset) this.restart();
      this.chunk(got.bytes, got.start, got.mtime);
      if (got.atEnd) {
        if (final) this.finish(got.mtime);
        else this.caughtUp();
        break;
      }
    }
    await this.afterRead();
  }

  /** The file was replaced or rewritten shorter: drop all state (call super.restart() first). */
  protected restart(): void {
    this.reset();
  }

  /** New bytes at absolute offset `start`, read when the file's mtime was `mtime`. */
  protected abstract chunk(bytes: Uint8Array, start: number, mtime: number): void;

  /** A final read reached the end: the writer is done. */
  protected abstract finish(mtime: number): void;

  /** A live read reached the end: the writer may add more. */
  protected caughtUp(): void {}

  /** After every read, errors or not (side files, publishing results). */
  protected async afterRead(): Promise<void> {}
}

/** An appended file of newline-ended records (CSV rows, JSONL objects), turned into rows of points. */
export abstract class LineRecordReader extends AppendedBytesReader {
  private readonly framer: LineFramer;
  protected readonly sink = new RowSink(() => this.series);
  /** Offset of the open-quote record already reported, so a stuck file is one error, not one per poll. */
  private reportedOpenQuote: number | null = null;

  /** `quoteAware`: a newline inside a double-quoted field does not end a record (CSV). */
  constructor(path: string, options: ReaderOptions, quoteAware: boolean) {
    super(path, options);
    this.framer = new LineFramer(quoteAware);
  }

  protected override restart(): void {
    super.restart();
    this.framer.reset();
    this.sink.reset();
    this.reportedOpenQuote = null;
  }

  protected chunk(bytes: Uint8Array, start: number, mtime: number): void {
    const framed = this.framer.push(bytes, start, (e) => this.pushError(e));
    if (framed) this.consume(framed, mtime, false);
  }

  protected override caughtUp(): void {
    const stuck = this.framer.openQuoteAt();
    if (stuck !== null && stuck !== this.reportedOpenQuote) {
      this.reportedOpenQuote = stuck;
      this.error(
        'decode',
        stuck,
        `unclosed quote in the record at byte ${stuck}: the rows after it are held back`,
      );
    }
  }

  protected finish(mtime: number): void {
    const tail = this.framer.flush();
    if (tail) this.consume(tail, mtime, true);
  }

  /** Complete records (or, with `isTail`, the flushed unterminated last one of a finished file). */
  protected abstract consume(framed: Framed, mtime: number, isTail: boolean): void;
}
