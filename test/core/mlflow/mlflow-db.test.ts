// MLflow's SQLite tracking store (mlflow.db) against an independent reader (Python's sqlite3 over the same tables as
// MLflow's SqlAlchemyStore reads them): runs named by their MLflow names, deleted runs skipped, params as config.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inspectPath } from '../../../src/core/inspect';
import { mlflowRunEnd } from '../../../src/core/mlflow/run-meta';
import { databaseRuns, readSource } from '../../../src/core/sources/registry';
import { classifyFile } from '../../../src/core/sources/sniff';
import { tempDirs } from '../../helpers/temp-dirs';
import { MlflowDb } from '../../helpers/tracker-dbs';
import { fixture } from '../readers/helpers';

const tmp = tempDirs();

/** Per live run (not deleted): name (runs.name, else the mlflow.runName tag, else the id), per key
 * [step, timestamp/1000, value or nan], params as text, status. */
const REFERENCE = String.raw`
import json, math, sqlite3, sys
con = sqlite3.connect('file:' + sys.argv[1] + '?immutable=1', uri=True)
out = {}
for uuid, name, status in con.execute("SELECT run_uuid, name, status FROM runs WHERE lifecycle_stage != 'deleted'"):
    tag = con.execute("SELECT value FROM tags WHERE run_uuid = ? AND key = 'mlflow.runName'", (uuid,)).fetchone()
    metrics = {}
    for key, value, ts, step, is_nan in con.execute('SELECT key, value, timestamp, step, is_nan FROM metrics WHERE run_uuid = ? ORDER BY rowid', (uuid,)):
        v = 'nan' if is_nan else ('inf' if value == math.inf else '-inf' if value == -math.inf else value)
        metrics.setdefault(key, []).append([step, ts / 1000, v])
    params = dict(con.execute('SELECT key, value FROM params WHERE run_uuid = ?', (uuid,)).fetchall())
    out[uuid] = {'name': name or (tag[0] if tag else None) or uuid, 'metrics': metrics, 'params': params, 'status': status}
print(json.dumps(out))
`;

interface RefRun {
  name: string;
  metrics: Record<string, [number, number, number | string][]>;
  params: Record<string, string>;
  status: string;
}

const enc = (v: number): number | string =>
  Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v;

function writeStore(path: string, wal = false): void {
  const db = new MlflowDb(path, { wal });
  db.db.exec('BEGIN');
  const t0 = 1_745_000_000_000;
  db.startRun({ runUuid: 'a'.repeat(32), name: 'bright-owl-42', startMs: t0 });
  db.param('a'.repeat(32), 'learning_rate', '0.0003');
  db.param('a'.repeat(32), 'policy', '[64, 64]');
  db.tag('a'.repeat(32), 'mlflow.user', 'me');
  for (let i = 0; i < 500; i++) {
    db.metric('a'.repeat(32), 'loss', Math.cos(i) / 3, t0 + i * 17, i);
    if (i % 5 === 0)
      db.metric('a'.repeat(32), 'eval/reward', i === 100 ? Number.NaN : i * 1.5, t0 + i * 17 + 1, i);
    if (i === 7) db.metric('a'.repeat(32), 'eval/reward', Infinity, t0 + i * 17 + 2, i);
  }
  db.endRun('a'.repeat(32), 'FINISHED');
  // An MLflow < 2 run: no runs.name, its name only in the mlflow.runName tag; it failed.
  db.startRun({ runUuid: 'b'.repeat(32), startMs: t0 + 1 });
  db.tag('b'.repeat(32), 'mlflow.runName', 'legacy-run');
  db.metric('b'.repeat(32), 'loss', 1, t0 + 5, 0);
  db.endRun('b'.repeat(32), 'FAILED');
  // A deleted run and a killed one of the same name as the first.
  db.startRun({ runUuid: 'c'.repeat(32), name: 'deleted', lifecycleStage: 'deleted', startMs: t0 + 2 });
  db.metric('c'.repeat(32), 'loss', 9, t0, 0);
  db.startRun({ runUuid: 'd'.repeat(32), name: 'bright-owl-42', startMs: t0 + 3 });
  db.metric('d'.repeat(32), 'loss', 2, t0 + 9, 3);
  db.endRun('d'.repeat(32), 'KILLED');
  db.db.exec('COMMIT');
  db.close();
}

/** Each run of the database as rlwatch reads it equals Python's reading. */
async function compareWithPython(path: string): Promise<Record<string, RefRun>> {
  expect(await classifyFile(path, 'mlflow.db')).toBe('mlflow');
  const ref = JSON.parse(execFileSync('python3', ['-c', REFERENCE, path]).toString()) as Record<
    string,
    RefRun
  >;
  const runs = databaseRuns(path, 'mlflow');
  expect(runs.map((r) => r.member).sort()).toEqual(Object.keys(ref).sort());
  for (const { member, name } of runs) {
    const r = await readSource(path, 'mlflow', { member });
    expect(r.errors).toEqual([]);
    expect(name).toBe(ref[member]!.name);
    const metrics: RefRun['metrics'] = {};
    for (const [tag, s] of r.series.entries())
      metrics[tag] = Array.from({ length: s.length }, (_, i) => [s.step(i), s.wallTime(i), enc(s.value(i))]);
    expect(metrics).toEqual(ref[member]!.metrics);
    expect(r.config).toMatchObject({
      'mlflow.runId': member,
      'mlflow.runName': ref[member]!.name,
      'mlflow.status': ref[member]!.status,
    });
    for (const [k, v] of Object.entries(ref[member]!.params))
      expect(r.config![k]).toBe(/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);
  }
  return ref;
}

test('each live run of an mlflow.db reads exactly as Python reads its tables', async () => {
  for (const wal of [false, true]) {
    const path = join(tmp('rlwatch-mlflow-db-'), 'mlflow.db');
    writeStore(path, wal);
    await compareWithPython(path);
  }
});

test('a real mlflow.db (MLflow 2.x/3.x, alembic 770bee3ae1dd) reads exactly as Python reads it', async () => {
  const dir = fixture('mlflow/2023ac05242__mlops-iris');
  const ref = await compareWithPython(join(dir, 'mlflow.db'));
  expect(
    Object.values(ref)
      .map((r) => r.name)
      .sort(),
  ).toEqual(['best_model_saved', 'logistic_regression', 'random_forest']);
  const report = await inspectPath(dir);
  expect(report.runs.map((r) => r.run)).toEqual([
    'mlflow.db#best_model_saved',
    'mlflow.db#logistic_regression',
    'mlflow.db#random_forest',
  ]);
  const lr = report.runs.find((r) => r.run === 'mlflow.db#logistic_regression')!;
  expect(lr.config).toMatchObject({
    model_type: 'logistic_regression',
    C: 1,
    dual: 'False',
    'mlflow.status': 'FINISHED',
  });
  expect(lr.scalars['accuracy']).toMatchObject({ count: 1, last: 0.98 });
});

test('runs are named DB#NAME (a repeated name gets the run id); statuses map to finished and crashed', async () => {
  const dir = tmp('rlwatch-mlflow-db-inspect-');
  writeStore(join(dir, 'mlflow.db'));
  const report = await inspectPath(dir);
  expect(report.runs.map((r) => r.run)).toEqual([
    'mlflow.db#bright-owl-42',
    `mlflow.db#bright-owl-42 (${'d'.repeat(32)})`,
    'mlflow.db#legacy-run',
  ]);
  const status = (run: string) =>
    mlflowRunEnd({
      fraction: null,
      etaSeconds: null,
      fields: { status: report.runs.find((r) => r.run === run)!.progress?.['status'] },
    });
  expect(status('mlflow.db#bright-owl-42')).toBe('finished');
  expect(status('mlflow.db#legacy-run')).toBe('crashed');
  expect(status(`mlflow.db#bright-owl-42 (${'d'.repeat(32)})`)).toBe('crashed');
  expect(report.runs[0]!.config).toMatchObject({ learning_rate: 0.0003, policy: '[64, 64]' });
  expect(report.runs[0]!.scalars['loss']).toMatchObject({ count: 500, firstStep: 0, lastStep: 499 });
});
