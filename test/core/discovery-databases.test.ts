// Discovery of tracker databases: each run of a trackio or MLflow database is a run named DB#NAME beside the folder's
// own run, in the trackio cache folder's layout; its folder is watched; a .db of other tables is nothing.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { discoverRuns, foldersToWatch } from '../../src/core/discovery';
import { tempDirs } from '../helpers/temp-dirs';
import { MlflowDb, TrackioDb } from '../helpers/tracker-dbs';
import { remoteRunKey, splitRunKey } from '../../src/shared/run-key';

const tmp = tempDirs();

test('a trackio cache folder: every project database gives its runs; other files and databases keep their rules', async () => {
  // ~/.cache/huggingface/trackio: {project}.db per project, media/ beside them.
  const root = tmp('rlwatch-trackio-cache-');
  mkdirSync(join(root, 'media', 'rl-project', 'ppo'), { recursive: true });
  writeFileSync(join(root, 'media', 'rl-project', 'ppo', 'x.png'), 'png');
  const rl = new TrackioDb(join(root, 'rl-project.db'));
  rl.log({ id: 'a', name: 'ppo' }, 0, { loss: 1 }, 1.7e15);
  rl.log({ id: 'b', name: 'grpo' }, 0, { loss: 1 }, 1.7e15);
  rl.close();
  const sft = new TrackioDb(join(root, 'sft.db'), { legacy: true });
  sft.config({ id: '', name: 'only-config' }, { lr: 1 }); // a run that has logged nothing yet
  sft.close();
  // An unrelated SQLite file and a run folder beside it.
  const other = new Database(join(root, 'cache.db'));
  other.exec('CREATE TABLE metrics (name TEXT, value REAL)');
  other.close();
  mkdirSync(join(root, 'runs', 'mlflow-exp'), { recursive: true });
  writeFileSync(join(root, 'runs', 'metrics.jsonl'), '{"step": 0, "loss": 1}\n');
  const m = new MlflowDb(join(root, 'runs', 'mlflow-exp', 'mlflow.db'));
  m.startRun({ runUuid: 'u'.repeat(32), name: 'owl' });
  m.close();

  const d = await discoverRuns(root);
  expect(d.errors).toEqual([]);
  expect(d.runs.map((r) => [r.run, r.sources.map((s) => [s.name, s.format, s.member])])).toEqual([
    ['rl-project.db#grpo', [['rl-project.db', 'trackio', 'b']]],
    ['rl-project.db#ppo', [['rl-project.db', 'trackio', 'a']]],
    ['runs', [['metrics.jsonl', 'jsonl', undefined]]],
    ['runs/mlflow-exp/mlflow.db#owl', [['mlflow.db', 'mlflow', 'u'.repeat(32)]]],
    ['sft.db#only-config', [['sft.db', 'trackio', 'only-config']]],
  ]);
  const watched = foldersToWatch(root, d).runTree;
  expect(watched).toContain(root);
  expect(watched).toContain(join(root, 'runs', 'mlflow-exp'));
});

test('trackio run ids holding `//` give local keys without `//`, distinct, that a remote key splits back to exactly', async () => {
  const root = tmp('rlwatch-trackio-slashes-');
  const db = new TrackioDb(join(root, 'p.db'));
  const ids = ['a//b', 'a/b', 'a/%2Fb', '//lead', 'x///y'];
  for (const id of ids) db.log({ id, name: '' }, 0, { loss: 1 }, 1.7e15);
  db.log({ id: 'one', name: 'same' }, 0, { loss: 1 }, 1.7e15);
  db.log({ id: 'two//2', name: 'same' }, 0, { loss: 1 }, 1.7e15);
  db.close();
  const keys = (await discoverRuns(root)).runs.map((r) => r.run);
  expect(keys).toHaveLength(ids.length + 2);
  expect(new Set(keys).size).toBe(keys.length);
  for (const key of keys) {
    expect(key).not.toContain('//');
    expect(splitRunKey(key)).toEqual({ host: null, run: key });
    expect(splitRunKey(remoteRunKey('node-1:8080', key))).toEqual({ host: 'node-1:8080', run: key });
  }
  expect(keys).toContain('p.db#a/%2Fb');
  expect(keys).toContain('p.db#a/%252Fb');
  expect(keys).toContain('p.db#same (two/%2F2)');
});
