// Incremental JSONL metrics reader (metrics.jsonl): one JSON object per line, appended.

import type { SourceFormatName } from '../../shared/formats';
import { FileCursor, isReadError } from './file-cursor';
import { LineFramer, lines, type Framed } from './line-framer';
import { ReaderBase, type ReaderOptions } from './reader';
import { emitObject, isPlainObject, RowSink } from './rows';
import { decodeUtf8, parseJsonLenient } from './values';

export class JsonlReader extends ReaderBase {
  readonly format: SourceFormatName = 'jsonl';
  private readonly cursor: FileCursor;
  private readonly framer = new LineFramer(false);
  private readonly sink = new RowSink(() => this.series);

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options);
    this.cursor = new FileCursor(path, this.io);
  }

  protected async read(final: boolean): Promise<void> {
    for (;;) {
      const got = await this.cursor.next();
      if (isReadError(got)) return this.pushError(got);
      if (got.reset) {
        this.reset();
        this.framer.reset();
        this.sink.reset();
      }
      const framed = this.framer.push(got.bytes, got.start, (e) => this.pushError(e));
      if (framed) this.consume(framed, got.mtime, false);
      if (got.atEnd) {
        const tail = final ? this.framer.flush() : null;
        if (tail) this.consume(tail, got.mtime, true);
        return;
      }
    }
  }

  private consume(framed: Framed, mtime: number, isTail: boolean): void {
    for (const line of lines(framed)) {
      const text = decodeUtf8(line.bytes).trim();
      if (text === '') continue;
      const parsed = parseJsonLenient(text);
      if (!parsed.ok) {
        // An unterminated last line of a finished file is a cut-off write, not garbage.
        const kind = isTail && parsed.atEnd ? 'truncated' : 'decode';
        this.error(kind, line.offset, `JSONL: ${parsed.message}`);
        continue;
      }
      if (!isPlainObject(parsed.value)) {
        this.error('decode', line.offset, 'JSONL: line is not a JSON object');
        continue;
      }
      emitObject(this.sink, parsed.value, mtime);
      this.countRecords(1);
    }
  }
}
