// What every reader produces: typed errors, the formats of the inspect contract, progress metadata.

import type { ReadErrorKindName, SourceFormatName } from '../../shared/formats';
import type { SampleSource } from '../../shared/samples';
import type { TextSource } from '../../shared/text-items';
import type { HistogramSource } from '../../shared/histogram-items';
import type { SeriesSet } from '../series/series-set';

/** A typed read error at a byte offset of the source (0 when the offset is not meaningful). */
export interface ReadError {
  kind: ReadErrorKindName;
  offset: number;
  message: string;
}

/** Numeric progress a run reports (training_progress.json, trainer_state.json max_steps…). */
export interface ProgressInfo {
  /** 0–1 when known. */
  fraction: number | null;
  etaSeconds: number | null;
  /** The raw fields as the file wrote them (numbers, strings, small arrays). */
  fields: Record<string, unknown>;
}

/** The result of reading one source file completely (one-shot) or up to now (incremental). */
export interface SourceReadResult {
  format: SourceFormatName;
  /** Records (events, rows, history entries) read so far. */
  records: number;
  series: SeriesSet;
  errors: ReadError[];
  progress?: ProgressInfo | null;
  config?: Record<string, unknown> | null;
  /** Final values a run reports about itself (W&B summary); absent for formats without one. */
  summary?: Record<string, unknown> | null;
  /** Text samples the source carries (TensorBoard `text` summaries); absent for formats without them. */
  texts?: TextSource | null;
  /** Sample tables the source carries (completions JSONL, W&B tables); absent for formats without them. */
  samples?: SampleSource | null;
  /** Histograms with their buckets (TensorBoard histogram summaries, W&B histogram records); absent for formats without them. */
  histogramSteps?: HistogramSource | null;
}
