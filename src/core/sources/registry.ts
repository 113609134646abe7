// The one format registry: which IncrementalReader reads each source format, live (LiveSource) or once (inspect).

import type { SourceFormatName } from '../../shared/formats';
import { mlflowDbRuns, mlflowDbSchema } from '../mlflow/mlflow-db';
import { createMlflowReader } from '../mlflow/mlflow-reader';
import type { IncrementalReader, ReaderOptions } from '../readers/reader';
import type { ProgressInfo, ReadError, SourceReadResult } from '../readers/types';
import type { SeriesSet } from '../series/series-set';
import { CsvReader } from '../text-formats/csv-reader';
import { JsonHistoryReader } from '../text-formats/json-history-reader';
import { JsonlReader } from '../text-formats/jsonl-reader';
import { TrainerStateReader } from '../text-formats/trainer-state-reader';
import { TrainingProgressReader } from '../text-formats/training-progress-reader';
import { readPool } from '../tfevents/read-pool';
import { TfeventsReader } from '../tfevents/tfevents-reader';
import { isLasting, readErrorOf, withDb, type DbRun } from '../sqlite-db/open-db';
import { TrackioReader } from '../trackio/trackio-reader';
import { trackioRuns, trackioSchema } from '../trackio/trackio-db';
import { WandbReader } from '../wandb/wandb-reader';
import { CompletionsReader } from '../samples/completions';
import type { SampleSource } from '../../shared/samples';
import type { LiveSource, SourceOptions } from './live-source';
import type { TextSource } from '../../shared/text-items';
import type { HistogramSource } from '../../shared/histogram-items';

/** Formats read by one reader class; MLflow's sources are two kinds of file or a run of its database
 * (createMlflowReader), trackio's a run of its database. */
const READERS: Record<
  Exclude<SourceFormatName, 'mlflow' | 'trackio'>,
  new (path: string, options: ReaderOptions) => IncrementalReader
> = {
  tfevents: TfeventsReader,
  csv: CsvReader,
  jsonl: JsonlReader,
  json: JsonHistoryReader,
  trainer_state: TrainerStateReader,
  training_progress: TrainingProgressReader,
  wandb: WandbReader,
  completions: CompletionsReader,
};

/** Which run of a database holding many a source reads (trackio, MLflow SQLite): its id there. */
export interface MemberOption {
  member?: string;
}

/** A fresh incremental reader of `path` (of run `member` of a database); call `readMore()` whenever the file may
 * have changed. */
export function createReader(
  path: string,
  format: SourceFormatName,
  options: ReaderOptions & MemberOption = {},
): IncrementalReader {
  const { member, ...rest } = options;
  if (format === 'trackio') return new TrackioReader(path, { ...rest, member: member ?? '' });
  if (format === 'mlflow') return createMlflowReader(path, options);
  return new READERS[format](path, rest);
}

/** The runs a database source holds (trackio, MLflow SQLite); [] when it cannot be read or holds none. Throws
 * nothing. */
export function databaseRuns(path: string, format: SourceFormatName): DbRun[] {
  return listDatabaseRuns(path, format).runs;
}

/** The runs a database source holds, and why it could not be read (then no runs; a writer's commit under way is no
 * error, the next look tries again). Throws nothing. */
export function listDatabaseRuns(
  path: string,
  format: SourceFormatName,
): { runs: DbRun[]; error: ReadError | null } {
  try {
    const runs = withDb(path, (db, identity) => {
      if (format === 'trackio') {
        const s = trackioSchema(db);
        return s ? trackioRuns(db, s, { path, identity }) : [];
      }
      const s = mlflowDbSchema(db);
      return s ? mlflowDbRuns(db, s) : [];
    });
    return { runs, error: null };
  } catch (e) {
    return { runs: [], error: isLasting(e) ? readErrorOf(e) : null };
  }
}

export interface ReadSourceOptions extends ReaderOptions, MemberOption {
  /** A large event file is read on the read pool's worker threads (for callers reading several files at once). */
  workers?: boolean;
}

/** Reads a whole source of any format as it is now, treating the writer as done. */
export async function readSource(
  path: string,
  format: SourceFormatName,
  options: ReadSourceOptions = {},
): Promise<SourceReadResult> {
  if (format === 'tfevents' && options.workers) {
    const read = await readPool().readIfLarge(
      path,
      options.onlyScalars ? { onlyScalars: options.onlyScalars } : {},
    );
    if (read) return read;
  }
  const reader = createReader(path, format, { ...options, shortLived: true });
  await reader.readMore({ final: true });
  return reader.result();
}

/** A source of any format as a LiveSource, for the workspace. */
export function createSource(path: string, format: SourceFormatName, opts: SourceOptions = {}): LiveSource {
  return readerSource(createReader(path, format, opts));
}

/** A format's incremental reader as a LiveSource. */
function readerSource(reader: IncrementalReader): LiveSource {
  let progress: ProgressInfo | null = null;
  let config: Record<string, unknown> | null = null;
  let texts: TextSource | null = null;
  let samples: SampleSource | null = null;
  let histogramSteps: HistogramSource | null = null;
  let records = 0;
  let errors: ReadError[] = [];
  const moveTo = reader.moveTo?.bind(reader);
  return {
    get path(): string {
      return reader.path;
    },
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
    get texts() {
      return texts;
    },
    get samples() {
      return samples;
    },
    get histogramSteps() {
      return histogramSteps;
    },
    get bytesRead() {
      return reader.bytesRead;
    },
    readMore: async (options) => {
      await reader.readMore(options);
      const r = reader.result();
      records = r.records;
      errors = r.errors;
      progress = r.progress ?? null;
      config = r.config ?? null;
      texts = r.texts ?? null;
      samples = r.samples ?? null;
      histogramSteps = r.histogramSteps ?? null;
    },
    ...(moveTo ? { moveTo } : {}),
    close: () => {},
  };
}
