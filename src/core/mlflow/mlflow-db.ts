// MLflow's SQLite tracking store (mlflow.db): recognising it, its runs, and one run read live by rowid.

import type Database from 'better-sqlite3';
import type { SourceFormatName } from '../../shared/formats';
import { DbRunReader, schemaError } from '../sqlite-db/db-run-reader';
import { tableColumns, type DbRun } from '../sqlite-db/open-db';
import { mlflowRunState, type RunMeta } from './run-meta';

/**
 * The columns rlwatch reads, as MLflow's SQLAlchemy models (`mlflow/store/tracking/dbmodels/models.py`, mlflow
 * commit 001cc178) define them: `runs (run_uuid, name, status, start_time, end_time, lifecycle_stage,
 * experiment_id)`, `metrics (key, value, timestamp, step, is_nan, run_uuid)`, `params (key, value, run_uuid)`,
 * `tags (key, value, run_uuid)`. `runs.name` (MLflow ≥ 2.0) and `metrics.is_nan` may be missing in older databases.
 */
export interface MlflowDbSchema {
  runName: boolean;
  isNan: boolean;
  params: boolean;
  tags: boolean;
}

export function mlflowDbSchema(db: Database.Database): MlflowDbSchema | null {
  const t = tableColumns(db);
  const runs = t.get('runs');
  const metrics = t.get('metrics');
  if (!runs || !['run_uuid', 'status', 'lifecycle_stage'].every((c) => runs.has(c))) return null;
  if (!metrics || !['key', 'value', 'timestamp', 'step', 'run_uuid'].every((c) => metrics.has(c)))
    return null;
  const kv = (name: string): boolean => ['key', 'value', 'run_uuid'].every((c) => t.get(name)?.has(c));
  return { runName: runs.has('name'), isNan: metrics.has('is_nan'), params: kv('params'), tags: kv('tags') };
}

/** The runs not deleted, oldest first, each named by `runs.name`, else its `mlflow.runName` tag, else its id. */
export function mlflowDbRuns(db: Database.Database, s: MlflowDbSchema): DbRun[] {
  const name = s.runName ? 'r.name' : 'NULL';
  const tag = s.tags
    ? `(SELECT value FROM tags t WHERE t.run_uuid = r.run_uuid AND t.key = 'mlflow.runName')`
    : 'NULL';
  return db
    .prepare<[], { member: string; name: string | null }>(
      `SELECT r.run_uuid AS member, COALESCE(NULLIF(${name}, ''), NULLIF(${tag}, '')) AS name FROM runs r
       WHERE r.lifecycle_stage IS NOT 'deleted' ORDER BY r.start_time, r.run_uuid`,
    )
    .all()
    .map((r) => ({ member: String(r.member), name: r.name ?? String(r.member) }));
}

interface RunRow {
  name: string | null;
  status: string | null;
  start_time: number | null;
  end_time: number | null;
  lifecycle_stage: string | null;
  experiment_id: number | string | null;
}

interface MetricRow {
  rid: number;
  key: string;
  value: number | null;
  timestamp: number | null;
  step: number | null;
  is_nan: number | null;
}

/**
 * One run of an mlflow.db. Tag: the metric key; step; wall time: the timestamp in seconds (MLflow stores ms);
 * value NaN where `is_nan` (or a NULL value). Config and progress as the file store's (`mlflowRunState`), from the
 * run's row, params and tags, re-read each poll (a few indexed rows). Metrics are asked past the last rowid seen.
 */
export class MlflowDbReader extends DbRunReader {
  readonly format: SourceFormatName = 'mlflow';
  private schema: MlflowDbSchema | null = null;
  private lastRow = 0;
  private stateKey = '';

  protected restart(): void {
    this.schema = null;
    this.lastRow = 0;
    this.stateKey = '';
    this.config = null;
    this.progress = null;
  }

  protected async poll(db: Database.Database): Promise<void> {
    this.schema ??= mlflowDbSchema(db);
    const s = this.schema;
    if (!s) throw schemaError('not an MLflow tracking database: no runs and metrics tables of its columns');
    const metrics = db.prepare<[number, string, number], MetricRow>(
      `SELECT rowid AS rid, key, value, timestamp, step, ${s.isNan ? 'is_nan' : '0'} AS is_nan FROM metrics
       WHERE rowid > ? AND run_uuid = ? ORDER BY rowid LIMIT ?`,
    );
    await this.drain(
      metrics,
      () => this.lastRow,
      (r) => {
        this.lastRow = r.rid;
        const value = r.is_nan || r.value === null ? Number.NaN : r.value;
        const wall = r.timestamp === null ? Number.NaN : r.timestamp / 1000;
        this.series.add(r.key, r.step ?? 0, wall, value);
        this.countRecords(1);
      },
    );
    this.readState(db, s);
  }

  private readState(db: Database.Database, s: MlflowDbSchema): void {
    const run = db
      .prepare<[string], RunRow>(
        `SELECT ${s.runName ? 'name' : 'NULL AS name'}, status, start_time, end_time, lifecycle_stage, experiment_id
         FROM runs WHERE run_uuid = ?`,
      )
      .get(this.member);
    const pairs = (table: string): Map<string, string> =>
      new Map(
        db
          .prepare<[string], { key: string; value: string | null }>(
            `SELECT key, value FROM ${table} WHERE run_uuid = ? ORDER BY key`,
          )
          .all(this.member)
          .map((r) => [r.key, r.value ?? '']),
      );
    const params = s.params ? pairs('params') : new Map<string, string>();
    const tags = s.tags ? pairs('tags') : new Map<string, string>();
    const key = JSON.stringify([run, [...params], [...tags]]);
    if (key === this.stateKey) return;
    this.stateKey = key;
    const meta: RunMeta | null = run
      ? {
          runId: this.member,
          runName: run.name || null,
          experimentId: run.experiment_id === null ? null : String(run.experiment_id),
          status: run.status,
          startTime: run.start_time === null ? null : run.start_time / 1000,
          endTime: run.end_time === null ? null : run.end_time / 1000,
          lifecycleStage: run.lifecycle_stage,
        }
      : null;
    const state = mlflowRunState(params, tags, meta);
    this.config = state.config;
    this.progress = state.progress;
  }
}
