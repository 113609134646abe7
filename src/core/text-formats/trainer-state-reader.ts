// Reader for Hugging Face / TRL trainer_state.json (any file name): log_history and step progress.

import type { SourceFormatName } from '../../shared/formats';
import { ArrayTail, JsonDocumentReader } from './json-document';
import { progressInfo, RateTracker, scalarFields } from './progress';
import { emitObject, isPlainObject, RowSink, type Axes } from '../readers/rows';

/** log_history entries are keyed by `step`; HF writes no wall time into them. */
const AXES: Axes = { step: 'step', wall: null };

/** Top-level fields that change as training goes: progress, not configuration. */
const VOLATILE = new Set([
  'global_step',
  'epoch',
  'best_metric',
  'best_model_checkpoint',
  'best_global_step',
  'total_flos',
  'num_input_tokens_seen',
]);

export class TrainerStateReader extends JsonDocumentReader {
  readonly format: SourceFormatName = 'trainer_state';
  private readonly tail = new ArrayTail();
  private readonly sink = new RowSink(() => this.series);
  private readonly rate = new RateTracker();

  protected apply(doc: unknown, mtime: number): string | null {
    if (!isPlainObject(doc) || !Array.isArray(doc['log_history']))
      return 'trainer_state: no log_history array';
    const history = doc['log_history'] as unknown[];
    let fresh = this.tail.fresh(history);
    if (fresh === null) {
      this.reset();
      this.sink.reset();
      fresh = this.tail.fresh(history) ?? [];
    }
    let n = 0;
    for (const entry of fresh) {
      if (!isPlainObject(entry)) continue;
      emitObject(this.sink, entry, AXES);
      n++;
    }
    this.countRecords(n);
    const fields = scalarFields(doc);
    this.progress = progressInfo(fields, this.rate, mtime);
    this.config = Object.fromEntries(Object.entries(fields).filter(([k]) => !VOLATILE.has(k)));
    return null;
  }
}
