// One file of a run, read as it grows: the interface the workspace drives, whatever the format.

import type { SourceFormatName } from '../../shared/formats';
import type { ReaderOptions, ReadMoreOptions } from '../readers/reader';
import type { ProgressInfo, ReadError } from '../readers/types';
import type { SeriesSet } from '../series/series-set';
import type { SampleSource } from '../../shared/samples';
import type { TextSource } from '../../shared/text-items';
import type { HistogramSource } from '../../shared/histogram-items';

export interface LiveSource {
  /** Absolute path of the file (a moved document's new one). */
  readonly path: string;
  readonly format: SourceFormatName;
  /** All points read so far, appended in place. A new object after the reader started over (the file
   * was truncated or replaced): the workspace compares identities to notice. */
  readonly series: SeriesSet;
  /** Records read so far. */
  readonly records: number;
  /** Errors met so far (a live file's partial tail is not one); a new array when it changes, never mutated. */
  readonly errors: readonly ReadError[];
  readonly progress: ProgressInfo | null;
  /** The run configuration the file carries (W&B config records and files/config.yaml); else null. */
  readonly config: Record<string, unknown> | null;
  /** The text samples the file carries (TensorBoard `text` summaries); absent or null for other formats. */
  readonly texts?: TextSource | null;
  /** The sample tables the file carries (completions JSONL, W&B tables); absent or null for other formats. */
  readonly samples?: SampleSource | null;
  /** The histograms the file carries, with their buckets (TensorBoard, W&B); absent or null for other formats. */
  readonly histogramSteps?: HistogramSource | null;
  /** Bytes of the file consumed so far, when the reader knows (load progress); else null. */
  readonly bytesRead: number | null;
  /** Reads whatever was appended since the last call. Never throws: failures become `errors`. */
  readMore(options?: Pick<ReadMoreOptions, 'syncTailBytes'>): Promise<void>;
  /** Documents rewritten whole only: read on from `path`, where the same document now lives (the
   * newest checkpoint's trainer_state.json); the next read emits only the entries it adds. */
  moveTo?(path: string): void;
  close(): void;
}

/** How a live source paces a long read (the reader options that concern the workspace), and which run of a
 * database holding many it reads (`member`). */
export type SourceOptions = Pick<ReaderOptions, 'pause' | 'sliceBytes'> & { member?: string };
