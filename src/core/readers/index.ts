// Entry points for the non-TensorBoard readers: one-shot `readSource` and incremental `createReader`.
//
// Every reader implements IncrementalReader (reader.ts): `readMore({final?})` reads what is new
// and returns `{records, errors}` for that call; `result()` gives the accumulated
// SourceReadResult (series, record count, errors, progress, config, summary). `readSource` is
// one reader run once with `final: true`. Readers never throw; problems are typed ReadErrors.

import { WandbReader } from '../wandb/wandb-reader';
import { CsvReader } from './csv-reader';
import { JsonHistoryReader } from './json-history-reader';
import { JsonlReader } from './jsonl-reader';
import type { IncrementalReader, ReaderOptions } from './reader';
import { TrainerStateReader } from './trainer-state-reader';
import { TrainingProgressReader } from './training-progress-reader';
import type { SourceFormat, SourceReadResult } from './types';

export type { IncrementalReader, ReadBatch, ReadMoreOptions, ReaderOptions } from './reader';
export type { FileIO, FileInfo } from './file-io';
export { classifyFile, formatByName } from './sniff';

/** Formats read here; `tfevents` has its own reader in src/core/tfevents. */
export type TextFormat = Exclude<SourceFormat, 'tfevents'>;

export function createReader(
  path: string,
  format: TextFormat,
  options: ReaderOptions = {},
): IncrementalReader {
  switch (format) {
    case 'csv':
      return new CsvReader(path, options);
    case 'jsonl':
      return new JsonlReader(path, options);
    case 'json':
      return new JsonHistoryReader(path, options);
    case 'trainer_state':
      return new TrainerStateReader(path, options);
    case 'training_progress':
      return new TrainingProgressReader(path, options);
    case 'wandb':
      return new WandbReader(path, options);
  }
}

/** Reads a whole source as it is now, treating the writer as done. */
export async function readSource(
  path: string,
  format: TextFormat,
  options: ReaderOptions = {},
): Promise<SourceReadResult> {
  const reader = createReader(path, format, options);
  await reader.readMore({ final: true });
  return reader.result();
}
