// The reader of an MLflow source: a file-store run's meta.yaml (config, status) or one of its metric files, or a run of an mlflow.db.

import { basename } from 'node:path';
import type { IncrementalReader, ReaderOptions } from '../readers/reader';
import { MlflowDbReader } from './mlflow-db';
import { MlflowMetricReader } from './metric-reader';
import { MlflowRunReader } from './run-reader';

/**
 * An MLflow run (mlruns/EXP_ID/RUN_ID/) is one rlwatch run whose sources are its meta.yaml and every file
 * under its metrics/ folder (discovery.ts): each metric file is read by itself, as it is appended to. A run of
 * an mlflow.db (`member`: its run_uuid) is read by MlflowDbReader.
 */
export function createMlflowReader(
  path: string,
  options: ReaderOptions & { member?: string } = {},
): IncrementalReader {
  const { member, ...rest } = options;
  if (member !== undefined) return new MlflowDbReader(path, { ...rest, member });
  return basename(path) === 'meta.yaml'
    ? new MlflowRunReader(path, rest)
    : new MlflowMetricReader(path, rest);
}
