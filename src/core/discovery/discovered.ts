// What discovery finds: runs, their sources (a file, a database's run, a checkpoint's snapshot), and why a folder was not read.

import type { SourceFormatName } from '../../shared/formats';

export interface DiscoveredSource {
  /** Absolute path. */
  path: string;
  /** File name, the sort key; for a snapshot or an MLflow metric its path from the run folder
   * (`checkpoint-N/trainer_state.json`, `metrics/train/loss`). */
  name: string;
  format: SourceFormatName;
  /** The newest checkpoint's trainer_state.json, read for the run in the checkpoints' parent folder: at
   * most one per run, and it moves to a newer checkpoint when one appears (see `adoptSnapshots`). */
  snapshot?: true;
  /** A database holding many runs (trackio, mlflow.db): the id there of the run this source reads. */
  member?: string;
}

export interface DiscoveredRun {
  /** Path of the folder relative to the opened folder, '/'-separated; the folder itself by its name (rootRunName);
   * a database's run `DB#NAME` (`expandDatabase`); an MLflow file-store run `EXP/NAME` (`nameMlflowRuns`). */
  run: string;
  dir: string;
  sources: DiscoveredSource[];
  /** The run config names (RUN_CONFIG_ENTRIES) discovery's listing of `dir` held: its config is read without
   * listing the folder again. Absent where discovery did not list `dir` (an opened file's folder). */
  configNames?: string[];
}

export type DiscoveryErrorKind = 'io' | 'symlink-loop' | 'limit' | 'database';

export interface DiscoveryError {
  kind: DiscoveryErrorKind;
  /** Folder concerned, relative to the opened folder like run names. */
  path: string;
  message: string;
}

export interface Discovery {
  root: string;
  runs: DiscoveredRun[];
  errors: DiscoveryError[];
  /** Every folder walked, as reached (a linked folder by its link's path), each real folder once, in
   * walk order: what a watcher must follow, and nothing more (no loop, no second name). */
  dirs: string[];
}

/** Folders (or MLflow runs' meta files) read at once. */
export const WALK_BATCH = 32;
