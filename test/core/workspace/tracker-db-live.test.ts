// Live tracker databases: a trackio writer (WAL) and an MLflow writer (rollback journal) appending rows while the
// workspace follows them through the watcher alone (no sweep): every point once, in order, new runs of the database
// appear, run keys are the same after reopening, MLflow statuses end runs. Prints the insert-to-delta latency.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { createWorkspace, discover } from '../../../src/core/workspace/create';
import type { Discover } from '../../../src/core/workspace/ports';
import { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import { tempDirs } from '../../helpers/temp-dirs';
import { MlflowDb, TrackioDb } from '../../helpers/tracker-dbs';
import { waitFor } from '../../helpers/wait-for';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deltas as they arrive, with when (performance.now) each step of a run's tag arrived. */
function follow(w: Workspace): { deltas: SeriesDelta[]; arrived: Map<string, number> } {
  const deltas: SeriesDelta[] = [];
  const arrived = new Map<string, number>();
  w.on('series.appended', (d) => {
    deltas.push(d);
    const t = performance.now();
    for (const s of d.steps) arrived.set(`${d.run}|${d.tag}|${s}`, t);
  });
  return { deltas, arrived };
}

function latencies(sent: Map<string, number>, arrived: Map<string, number>): string {
  const ms = [...sent].map(([k, t]) => arrived.get(k)! - t).sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(1);
  return `n=${ms.length} median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms`;
}

test('a trackio run written live (WAL) shows every point once; a new run of the database appears; keys are stable', async () => {
  const root = tmp('rlwatch-trackio-live-');
  const db = new TrackioDb(join(root, 'project.db'));
  const a = { id: 'id-a', name: 'ppo' };
  const t0 = 1_745_000_000_000_000;
  db.config(a, { target_kl: 0.02 });
  db.log(a, 0, { loss: 1 }, t0);
  // Folder walks counted: a database's writes walk the folder again only when it holds a new run.
  let walks = 0;
  const counted: Discover = (r) => {
    walks++;
    return discover(r);
  };
  ws = new Workspace({ discover: counted, createSource, sweepMs: 600_000 });
  const { deltas, arrived } = follow(ws);
  await ws.open(root);
  const walksOpen = walks;
  const name = 'project.db#ppo';
  expect(ws.listRuns().map((r) => r.run)).toEqual([name]);
  expect(ws.configOf(name)).toMatchObject({ target_kl: 0.02 });
  const steps = (run: string, tag: string): number[] =>
    deltas.filter((d) => d.run === run && d.tag === tag).flatMap((d) => [...d.steps]);
  await waitFor(() => steps(name, 'loss').length === 1, 'the first point');

  const sent = new Map<string, number>();
  for (let step = 1; step <= 60; step++) {
    db.log(a, step, { loss: 1 / (step + 1), reward: step }, t0 + step * 250_000);
    sent.set(`${name}|loss|${step}`, performance.now());
    if (step % 10 === 0) db.system(a, { 'gpu/0/util': step }, t0 + step * 250_000);
    await sleep(step % 4 === 0 ? 5 : 40);
  }
  await waitFor(() => steps(name, 'loss').length === 61, 'all 61 loss points');
  expect(steps(name, 'loss')).toEqual(Array.from({ length: 61 }, (_, i) => i));
  expect(steps(name, 'reward')).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  await waitFor(() => steps(name, 'system/gpu/0/util').length === 6, 'the system samples');
  console.log(`trackio (WAL) insert → series.appended: ${latencies(sent, arrived)}`);
  await sleep(2100); // past the 2 s between two looks at a written database's runs
  expect(walks).toBe(walksOpen);

  // A second run logged into the same database while it is open.
  const b = { id: 'id-b', name: 'grpo' };
  for (let step = 0; step < 5; step++) {
    db.log(b, step, { loss: -step }, t0 + step);
    await sleep(30);
  }
  await waitFor(() => steps('project.db#grpo', 'loss').length === 5, "the new run's points");
  expect(walks).toBeGreaterThan(walksOpen);
  const info = ws.listRuns().find((r) => r.run === name)!;
  expect(info.sources).toEqual([
    { file: 'project.db', format: 'trackio', records: 67, errors: [], dead: false },
  ]);
  expect(info.lastEventAt).toBe(Math.round((t0 + 60 * 250_000) / 1000));
  expect(info.fileWrittenAt).toBeNull(); // the database is written for every run: freshness is the rows' times

  await ws.close();
  ws = createWorkspace({ watch: false });
  await ws.open(root);
  expect(ws.listRuns().map((r) => r.run)).toEqual(['project.db#grpo', name]);
  db.close();
});

test('an MLflow run written live (rollback journal) shows every point once; FINISHED and FAILED end runs', async () => {
  const root = tmp('rlwatch-mlflow-db-live-');
  const db = new MlflowDb(join(root, 'mlflow.db'));
  const id = 'f'.repeat(32);
  db.startRun({ runUuid: id, name: 'live-ppo' });
  db.param(id, 'target_kl', '0.02');
  const t0 = 1_745_000_000_000;
  db.metric(id, 'loss', 1, t0, 0);
  ws = createWorkspace({ sweepMs: 600_000 });
  const { deltas, arrived } = follow(ws);
  await ws.open(root);
  const name = 'mlflow.db#live-ppo';
  expect(ws.listRuns().map((r) => r.run)).toEqual([name]);
  expect(ws.configOf(name)).toMatchObject({
    target_kl: 0.02,
    'mlflow.runName': 'live-ppo',
    'mlflow.runId': id,
  });
  const steps = (run: string, tag: string): number[] =>
    deltas.filter((d) => d.run === run && d.tag === tag).flatMap((d) => [...d.steps]);
  await waitFor(() => steps(name, 'loss').length === 1, 'the first point');

  const sent = new Map<string, number>();
  for (let step = 1; step <= 40; step++) {
    db.metric(id, 'loss', 1 / (step + 1), t0 + step * 250, step);
    sent.set(`${name}|loss|${step}`, performance.now());
    await sleep(step % 4 === 0 ? 5 : 40);
  }
  await waitFor(() => steps(name, 'loss').length === 41, 'all 41 loss points');
  expect(steps(name, 'loss')).toEqual(Array.from({ length: 41 }, (_, i) => i));
  console.log(`MLflow (rollback journal) insert → series.appended: ${latencies(sent, arrived)}`);
  expect(ws.listRuns()[0]!.ended).toBeNull();

  db.endRun(id, 'FINISHED');
  db.metric(id, 'loss', 0, t0 + 41 * 250, 41); // MLflow's last write is its status; a point makes the file event
  await waitFor(() => ws!.listRuns()[0]!.ended === 'finished', 'the run to end');

  const failed = 'e'.repeat(32);
  db.startRun({ runUuid: failed, name: 'crashes' });
  db.metric(failed, 'loss', 3, t0, 0);
  await waitFor(() => steps('mlflow.db#crashes', 'loss').length === 1, 'the new run');
  db.endRun(failed, 'FAILED');
  db.metric(failed, 'loss', 4, t0 + 1, 1);
  await waitFor(
    () => ws!.listRuns().find((r) => r.run === 'mlflow.db#crashes')?.ended === 'crashed',
    'the failed run to show crashed',
  );
  // A run deleted in MLflow is listed no more but stays read: a new run beside it still appears (the database
  // lists as many runs as are read, yet one of them is new).
  db.db.prepare("UPDATE runs SET lifecycle_stage = 'deleted' WHERE run_uuid = ?").run(failed);
  const after = 'd'.repeat(32);
  db.startRun({ runUuid: after, name: 'after-delete' });
  db.metric(after, 'loss', 5, t0, 0);
  await waitFor(
    () => steps('mlflow.db#after-delete', 'loss').length === 1,
    'the run started after a deletion',
  );
  db.close();
});

/** trackio's own write path in Python: a WAL connection kept open, one INSERT and commit per log call. */
const PY_WRITER = String.raw`
import json, sqlite3, sys, time
from datetime import datetime, timezone
con = sqlite3.connect(sys.argv[1])
con.execute('PRAGMA journal_mode = WAL')
con.execute('PRAGMA synchronous = NORMAL')
for step in range(1, 81):
    con.execute('INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES (?, ?, ?, ?, ?)',
                ('py', datetime.now(timezone.utc).isoformat(), 'py-run', step, json.dumps({'loss': 1 / step})))
    con.commit()
    print(step, time.time() * 1000, flush=True)
    time.sleep(0.005 if step % 4 == 0 else 0.04)
`;

test('a trackio run written by another process (Python sqlite3, WAL) shows every point once', async () => {
  const root = tmp('rlwatch-trackio-py-live-');
  const path = join(root, 'project.db');
  const db = new TrackioDb(path);
  db.log({ id: 'py', name: 'py-run' }, 0, { loss: 2 }, 1_745_000_000_000_000);
  db.close();
  ws = createWorkspace({ sweepMs: 600_000 });
  const arrivedAt = new Map<number, number>();
  const name = 'project.db#py-run';
  ws.on('series.appended', (d) => {
    if (d.run !== name || d.tag !== 'loss') return;
    for (const s of d.steps) arrivedAt.set(s, Date.now());
  });
  await ws.open(root);
  await waitFor(() => arrivedAt.size === 1, 'the first point');
  const py = spawn('python3', ['-c', PY_WRITER, path]);
  const committed = new Map<number, number>();
  let out = '';
  py.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const [step, ms] = out.slice(0, nl).split(' ').map(Number);
      committed.set(step!, ms!);
      out = out.slice(nl + 1);
    }
  });
  const exited = new Promise((res) => py.once('exit', res));
  await waitFor(() => arrivedAt.size === 81, 'all 81 points');
  await exited;
  expect([...arrivedAt.keys()]).toEqual(Array.from({ length: 81 }, (_, i) => i));
  const ms = [...committed].map(([step, t]) => arrivedAt.get(step)! - t).sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(0);
  console.log(
    `trackio (Python writer, WAL) commit → series.appended: n=${ms.length} median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms`,
  );
});
