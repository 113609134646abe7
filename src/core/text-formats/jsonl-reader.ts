// Incremental JSONL metrics reader (metrics.jsonl): one JSON object per line, appended.

import type { SourceFormatName } from '../../shared/formats';
import { LineRecordReader } from '../readers/appended-reader';
import { lines, type Framed } from '../readers/line-framer';
import type { ReaderOptions } from '../readers/reader';
import { emitObject, isPlainObject, unwrapEnvelope } from '../readers/rows';
import { decodeUtf8, parseJsonLenient } from '../readers/values';

export class JsonlReader extends LineRecordReader {
  readonly format: SourceFormatName = 'jsonl';

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options, false);
  }

  protected consume(framed: Framed, _mtime: number, isTail: boolean): void {
    for (const line of lines(framed)) {
      const text = decodeUtf8(line.bytes).trim();
      if (text === '') continue;
      const parsed = parseJsonLenient(text);
      if (!parsed.ok) {
        // An unterminated last line of a finished file is a cut-off write, not garbage.
        const kind = isTail && parsed.atEnd ? 'truncated' : 'decode';
        this.error(kind, line.offset, `JSONL: ${parsed.message} of the line`);
        continue;
      }
      if (!isPlainObject(parsed.value)) {
        this.error('decode', line.offset, 'JSONL: line is not a JSON object');
        continue;
      }
      emitObject(this.sink, unwrapEnvelope(parsed.value));
      this.countRecords(1);
    }
  }
}
