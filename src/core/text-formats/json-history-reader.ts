// Reader for JSON history files (training_metrics.json): an array of per-epoch/episode objects.

import type { SourceFormatName } from '../../shared/formats';
import { ArrayTail, JsonDocumentReader } from './json-document';
import { emitObject, isPlainObject, RowSink, unwrapEnvelope } from '../readers/rows';

export class JsonHistoryReader extends JsonDocumentReader {
  readonly format: SourceFormatName = 'json';
  private readonly tail = new ArrayTail();
  private readonly sink = new RowSink(() => this.series);

  protected apply(doc: unknown): string | null {
    if (!Array.isArray(doc)) return 'JSON history: the document is not an array';
    let fresh = this.tail.fresh(doc);
    if (fresh === null) {
      this.reset();
      this.sink.reset();
      fresh = this.tail.fresh(doc) ?? [];
    }
    let n = 0;
    for (const entry of fresh) {
      if (!isPlainObject(entry)) continue;
      emitObject(this.sink, unwrapEnvelope(entry));
      n++;
    }
    this.countRecords(n);
    return null;
  }
}
