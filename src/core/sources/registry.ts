// The one format registry: which reader reads each source format, live (LiveSource) or once (inspect).

import type { SourceFormatName } from '../../shared/formats';
import { CsvReader } from '../text-formats/csv-reader';
import { JsonHistoryReader } from '../text-formats/json-history-reader';
import { JsonlReader } from '../text-formats/jsonl-reader';
import type { IncrementalReader, ReaderOptions } from '../readers/reader';
import { TrainerStateReader } from '../text-formats/trainer-state-reader';
import { TrainingProgressReader } from '../text-formats/training-progress-reader';
import type { ProgressInfo, ReadError, SourceReadResult } from '../readers/types';
import type { SeriesSet } from '../series/series-set';
import { EventFileReader, readEventFile } from '../tfevents';
import { WandbReader } from '../wandb/wandb-reader';
import { yieldToLoop, type LiveSource, type SourceOptions } from './live-source';

/** Formats read by an IncrementalReader (readers/reader.ts): all but tfevents, which has its own
 * event-file reader (IO off the event loop, parsing cut into byte slices). */
export type IncrementalFormat = Exclude<SourceFormatName, 'tfevents'>;

const READERS: Record<IncrementalFormat, new (path: string, options: ReaderOptions) => IncrementalReader> = {
  csv: CsvReader,
  jsonl: JsonlReader,
  json: JsonHistoryReader,
  trainer_state: TrainerStateReader,
  training_progress: TrainingProgressReader,
  wandb: WandbReader,
};

/** Bytes parsed per synchronous slice (one 1 MiB read chunk: ~2-4 ms at reader speed) before the reader pauses. */
export const TFEVENTS_SLICE_BYTES = 1 << 20;

/** A fresh incremental reader of `path`; call `readMore()` whenever the file may have changed. */
export function createReader(
  path: string,
  format: IncrementalFormat,
  options: ReaderOptions = {},
): IncrementalReader {
  return new READERS[format](path, options);
}

/** Reads a whole source of any format as it is now, treating the writer as done. */
export async function readSource(
  path: string,
  format: SourceFormatName,
  options: ReaderOptions = {},
): Promise<SourceReadResult> {
  if (format === 'tfevents') return readEventFile(path);
  const reader = createReader(path, format, options);
  await reader.readMore({ final: true });
  return reader.result();
}

/** A source of any format as a LiveSource, for the workspace. */
export function createSource(path: string, format: SourceFormatName, opts: SourceOptions = {}): LiveSource {
  return format === 'tfevents' ? tfeventsSource(path, opts) : readerSource(createReader(path, format));
}

/** An event file as a LiveSource: file IO off the event loop, parsing proportional to the bytes appended
 * and cut into slices of TFEVENTS_SLICE_BYTES with a pause between them. */
function tfeventsSource(path: string, opts: SourceOptions): LiveSource {
  const pause = opts.pause ?? yieldToLoop;
  const maxBytes = opts.sliceBytes ?? TFEVENTS_SLICE_BYTES;
  const reader = new EventFileReader(path);
  let records = 0;
  let errors: ReadError[] = [];
  return {
    path,
    format: 'tfevents',
    get series(): SeriesSet {
      return reader.scalars;
    },
    get records() {
      return records;
    },
    get errors() {
      return errors;
    },
    progress: null,
    config: null,
    get bytesRead() {
      return reader.bytesRead;
    },
    readMore: async () => {
      while ((await reader.readMoreAsync({ maxBytes })).more) await pause();
      const r = reader.result(false);
      records = r.records;
      errors = r.errors;
    },
    close: () => {},
  };
}

/** Any other format's incremental reader as a LiveSource. */
function readerSource(reader: IncrementalReader): LiveSource {
  let progress: ProgressInfo | null = null;
  let config: Record<string, unknown> | null = null;
  let records = 0;
  let errors: ReadError[] = [];
  return {
    path: reader.path,
    format: reader.format,
    get series(): SeriesSet {
      return reader.series;
    },
    get records() {
      return records;
    },
    get errors() {
      return errors;
    },
    get progress() {
      return progress;
    },
    get config() {
      return config;
    },
    bytesRead: null,
    readMore: async () => {
      await reader.readMore();
      const r = reader.result();
      records = r.records;
      errors = r.errors;
      progress = r.progress ?? null;
      config = r.config ?? null;
    },
    close: () => {},
  };
}
