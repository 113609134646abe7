// Writes an MLflow 2.x file store (mlruns/EXP_ID/RUN_ID/...) the way MLflow's FileStore does, for the reader's tests.

import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Python's `str(float)`, which MLflow's FileStore writes into metric lines (`"%s %s %s\n" % (timestamp,
 * value, step)`): shortest round-trip digits, `nan`/`inf`/`-inf`, `1.0` for whole numbers, and scientific
 * notation with a two-digit exponent outside 1e-4 ≤ |x| < 1e16 (`1e-05`, `1.5e+16`).
 */
export function pyFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  const [mant, exp] = v.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (v !== 0 && (e < -4 || e >= 16))
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  if (Number.isInteger(v)) return `${Object.is(v, -0) ? '-0' : v.toFixed(0)}.0`;
  return String(v);
}

export interface RunOptions {
  runId: string;
  /** meta.yaml's run_name and the `mlflow.runName` tag, as `mlflow.start_run(run_name=…)` writes both. */
  runName?: string;
  startMs?: number;
  params?: Record<string, string>;
  tags?: Record<string, string>;
}

/** One run folder: `meta.yaml`, `metrics/KEY`, `params/KEY`, `tags/KEY`, `artifacts/`. Keys with '/' nest. */
export class MlflowRunWriter {
  readonly dir: string;
  private meta: Record<string, string | number | null>;

  constructor(experimentDir: string, experimentId: string, o: RunOptions) {
    this.dir = join(experimentDir, o.runId);
    for (const sub of ['metrics', 'params', 'tags', 'artifacts'])
      mkdirSync(join(this.dir, sub), { recursive: true });
    this.meta = {
      artifact_uri: `file://${join(this.dir, 'artifacts')}`,
      end_time: null,
      entry_point_name: "''",
      experiment_id: `'${experimentId}'`,
      lifecycle_stage: 'active',
      run_id: o.runId,
      run_name: o.runName ?? "''",
      run_uuid: o.runId,
      source_name: "''",
      source_type: 4,
      source_version: "''",
      start_time: o.startMs ?? 1_700_000_000_000,
      status: 1,
      tags: '[]',
      user_id: 'tester',
    };
    this.writeMeta();
    if (o.runName !== undefined) this.setTag('mlflow.runName', o.runName);
    for (const [k, v] of Object.entries(o.tags ?? {})) this.setTag(k, v);
    for (const [k, v] of Object.entries(o.params ?? {})) this.logParam(k, v);
  }

  /** FileStore._log_run_metric: appends one line to metrics/KEY. */
  logMetric(key: string, value: number, timestampMs: number, step: number): void {
    this.appendLine(key, `${timestampMs} ${pyFloat(value)} ${step}\n`);
  }

  /** Any text appended to metrics/KEY (a malformed line, a cut-off write). */
  appendLine(key: string, text: string): void {
    const path = join(this.dir, 'metrics', key);
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, text);
  }

  /** FileStore._log_run_param: the value's text, no newline. */
  logParam(key: string, value: string): void {
    this.writeValue('params', key, value);
  }

  setTag(key: string, value: string): void {
    this.writeValue('tags', key, value);
  }

  /** FileStore.update_run_info: meta.yaml rewritten with the status (RunStatus: FINISHED=3, FAILED=4) and end time. */
  end(status: 3 | 4 | 5, endMs: number): void {
    this.meta['status'] = status;
    this.meta['end_time'] = endMs;
    this.writeMeta();
  }

  /** FileStore.delete_run: meta.yaml rewritten with lifecycle_stage `deleted` (the folder stays until `mlflow gc`). */
  delete(): void {
    this.meta['lifecycle_stage'] = 'deleted';
    this.writeMeta();
  }

  private writeValue(folder: string, key: string, value: string): void {
    const path = join(this.dir, folder, key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value);
  }

  /** yaml.safe_dump's layout: sorted keys, `key: value` lines. */
  private writeMeta(): void {
    const lines = Object.keys(this.meta)
      .sort()
      .map((k) => `${k}: ${this.meta[k] ?? 'null'}\n`);
    writeFileSync(join(this.dir, 'meta.yaml'), lines.join(''));
  }
}

/** An `mlruns/` folder: experiments (meta.yaml with name and artifact location) holding runs. */
export class MlflowFileStore {
  constructor(readonly root: string) {
    mkdirSync(root, { recursive: true });
  }

  experiment(id: string, name: string): { dir: string; run(o: RunOptions): MlflowRunWriter; delete(): void } {
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true });
    const meta = (stage: string): string =>
      [
        `artifact_location: file://${dir}`,
        'creation_time: 1700000000000',
        `experiment_id: '${id}'`,
        'last_update_time: 1700000000000',
        `lifecycle_stage: ${stage}`,
        `name: ${name}`,
        '',
      ].join('\n');
    writeFileSync(join(dir, 'meta.yaml'), meta('active'));
    return {
      dir,
      run: (o) => new MlflowRunWriter(dir, id, o),
      // FileStore.delete_experiment: meta.yaml marked deleted, the folder moved to `.trash/ID` (its runs unmarked).
      delete: () => {
        writeFileSync(join(dir, 'meta.yaml'), meta('deleted'));
        mkdirSync(join(this.root, '.trash'), { recursive: true });
        renameSync(dir, join(this.root, '.trash', id));
      },
    };
  }
}
