// The read-only promise for tracker databases: following and inspecting trackio and MLflow databases (WAL or rollback
// journal, no writer running) changes no byte, mode or time of any file, and makes no -wal, -shm or -journal file.

import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { inspectPath } from '../../../src/core/inspect';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { tempDirs } from '../../helpers/temp-dirs';
import { MlflowDb, TrackioDb } from '../../helpers/tracker-dbs';
import { fixture } from '../readers/helpers';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every file's content hash, size, permission bits, modification and change times. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      const hash = st.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'dir';
      out[relative(root, path)] = `${hash} ${st.size} ${st.mode} ${st.mtimeMs} ${st.ctimeMs}`;
    }
  };
  walk(root);
  return out;
}

test('following and inspecting tracker databases leaves the folder byte, mode and time exact', async () => {
  const root = tmp('rlwatch-db-read-only-');
  for (const [folder, wal] of [
    ['trackio-wal', true],
    ['trackio-delete', false],
  ] as const) {
    mkdirSync(join(root, folder));
    const db = new TrackioDb(join(root, folder, 'project.db'), { wal });
    const run = { id: 'r1', name: 'ppo' };
    db.config(run, { lr: 0.1 });
    for (let i = 0; i < 20; i++) db.log(run, i, { loss: 1 / (i + 1) }, 1.7e15 + i * 1e6);
    db.system(run, { 'cpu/percent': 3 }, 1.7e15);
    db.close();
  }
  mkdirSync(join(root, 'mlflow'));
  const m = new MlflowDb(join(root, 'mlflow', 'mlflow.db'));
  m.startRun({ runUuid: 'a'.repeat(32), name: 'owl' });
  m.metric('a'.repeat(32), 'loss', 1, 1.7e12, 0);
  m.close();
  mkdirSync(join(root, 'real'));
  copyFileSync(fixture('mlflow/2023ac05242__mlops-iris/mlflow.db'), join(root, 'real', 'mlflow.db'));
  const before = snapshot(root);
  expect(Object.keys(before).filter((f) => /\.db-(wal|shm|journal)$/.test(f))).toEqual([]);

  ws = createWorkspace({ sweepMs: 50 });
  await ws.open(root);
  expect(ws.listRuns().map((r) => r.run)).toEqual([
    'mlflow/mlflow.db#owl',
    'real/mlflow.db#best_model_saved',
    'real/mlflow.db#logistic_regression',
    'real/mlflow.db#random_forest',
    'trackio-delete/project.db#ppo',
    'trackio-wal/project.db#ppo',
  ]);
  expect(ws.listRuns().every((r) => r.points > 0 && r.sources.every((s) => s.errors.length === 0))).toBe(
    true,
  );
  await sleep(400); // several sweeps: every source polled again
  await ws.close();
  ws = null;
  const report = await inspectPath(root);
  expect(report.runs).toHaveLength(6);
  expect(snapshot(root)).toEqual(before);
});
