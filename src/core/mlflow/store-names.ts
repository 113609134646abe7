// An MLflow file-store run's and experiment's names, as discovery keys the run (`mlruns/EXP_NAME/RUN_NAME`).

import { join } from 'node:path';
import { isReadError } from '../readers/file-cursor';
import { readSideFile } from '../readers/side-file';
import { decodeUtf8 } from '../readers/values';
import { parseExperimentMeta, parseRunMeta, runNameOf } from './run-meta';

/** meta.yaml is a few hundred bytes; a tag at most 8000 characters. */
const MAX_BYTES = 1 << 20;

export interface FileStoreRunName {
  runId: string;
  /** The `mlflow.runName` tag, else meta.yaml's run_name; null when neither is set. */
  name: string | null;
  /** Seconds since the epoch; null when meta.yaml has none. */
  startTime: number | null;
  /** lifecycle_stage `deleted`: the run is in MLflow's bin, not shown. */
  deleted: boolean;
}

/** A run folder's name, id, start and lifecycle; null when its meta.yaml cannot be read or parsed. Both files are read
 * as the run reader reads them (`readSideFile`): a tag linked out of the run folder is no name. */
export async function readRunName(runDir: string): Promise<FileStoreRunName | null> {
  const got = await readSideFile(join(runDir, 'meta.yaml'), runDir, MAX_BYTES);
  if (isReadError(got)) return null;
  const parsed = parseRunMeta(decodeUtf8(got.bytes));
  if (!parsed.ok) return null;
  const tag = await readSideFile(join(runDir, 'tags', 'mlflow.runName'), runDir, MAX_BYTES);
  const m = parsed.meta;
  const name = runNameOf(isReadError(tag) ? undefined : decodeUtf8(tag.bytes), m);
  return {
    runId: m.runId,
    name: name === m.runId ? null : name,
    startTime: m.startTime,
    deleted: m.lifecycleStage === 'deleted',
  };
}

/** An experiment folder's name and lifecycle (`parseExperimentMeta`); null when it has no experiment's meta.yaml. */
export async function readExperimentMeta(
  experimentDir: string,
): Promise<{ name: string | null; deleted: boolean } | null> {
  const got = await readSideFile(join(experimentDir, 'meta.yaml'), experimentDir, MAX_BYTES);
  return isReadError(got) ? null : parseExperimentMeta(decodeUtf8(got.bytes));
}
