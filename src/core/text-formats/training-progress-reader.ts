// Reader for training_progress.json resume metadata: progress, ETA, snapshots and session history.

import type { SourceFormatName } from '../../shared/formats';
import { ArrayTail, JsonDocumentReader } from './json-document';
import { progressInfo, RateTracker, scalarFields } from './progress';
import { emitObject, isPlainObject, RowSink, STEP_KEYS, WALL_KEYS, wallSeconds } from '../readers/rows';
import { jsonNumber } from '../readers/values';

/** Arrays of per-session/per-chunk objects that form a history. */
const HISTORY_KEYS = ['history', 'sessions', 'chunks'];

/**
 * Each new content of the file is one snapshot: its numeric top-level fields become one point
 * each (so `requests_done` followed over time is a series), at the file's own step counter when
 * it has one. A `history` array of objects becomes `history/<field>` series, one point per entry.
 */
export class TrainingProgressReader extends JsonDocumentReader {
  readonly format: SourceFormatName = 'training_progress';
  private readonly history = new ArrayTail();
  private readonly historySink = new RowSink(() => this.series);
  private readonly snapshotSink = new RowSink(() => this.series);
  private readonly rate = new RateTracker();
  private lastSnapshot = '';

  protected apply(doc: unknown, mtime: number): string | null {
    if (!isPlainObject(doc)) return 'training_progress: the document is not an object';
    const key = HISTORY_KEYS.find((k) => Array.isArray(doc[k]));
    const entries = key === undefined ? [] : (doc[key] as unknown[]);
    let fresh = this.history.fresh(entries);
    if (fresh === null) {
      // The history got shorter: a new run rewrote the file. Start over.
      this.reset();
      this.historySink.reset();
      this.snapshotSink.reset();
      this.lastSnapshot = '';
      fresh = this.history.fresh(entries) ?? [];
    }
    const fields = scalarFields(doc);
    this.progress = progressInfo(fields, this.rate, mtime);
    let n = 0;

    const signature = JSON.stringify(fields);
    if (signature !== this.lastSnapshot) {
      this.lastSnapshot = signature;
      const values: Array<[string, number]> = [];
      for (const [k, v] of Object.entries(fields)) {
        const x = jsonNumber(v);
        if (x !== undefined) values.push([k, x]);
      }
      if (values.length > 0) {
        let step: number | undefined;
        for (const k of STEP_KEYS) if (step === undefined) step = jsonNumber(fields[k]);
        let wall: number | undefined;
        for (const k of WALL_KEYS) if (wall === undefined) wall = wallSeconds(fields[k]);
        this.snapshotSink.emit(step, wall, values);
        n++;
      }
    }

    for (const entry of fresh) {
      if (!isPlainObject(entry)) continue;
      emitObject(this.historySink, entry, undefined, 'history/');
      n++;
    }
    this.countRecords(n);
    return null;
  }
}
