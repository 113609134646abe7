// The reader of an MLflow file-store source: a run's meta.yaml (config, status) or one of its metric files.

import { basename } from 'node:path';
import type { IncrementalReader, ReaderOptions } from '../readers/reader';
import { MlflowMetricReader } from './metric-reader';
import { MlflowRunReader } from './run-reader';

/**
 * An MLflow run (mlruns/EXP_ID/RUN_ID/) is one rlwatch run whose sources are its meta.yaml and every file
 * under its metrics/ folder (discovery.ts): each metric file is read by itself, as it is appended to.
 */
export function createMlflowReader(path: string, options: ReaderOptions = {}): IncrementalReader {
  return basename(path) === 'meta.yaml'
    ? new MlflowRunReader(path, options)
    : new MlflowMetricReader(path, options);
}
