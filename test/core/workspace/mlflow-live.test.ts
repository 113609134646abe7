// A live MLflow run: metric lines appended by a writer, a new metric file, a new nested key and a new run reach
// the workspace as deltas through the watcher (the sweep is off), every point once, with the run's MLflow config.

import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import { MlflowFileStore } from '../../helpers/mlflow-store';
import { tempDirs } from '../../helpers/temp-dirs';
import { waitFor } from '../../helpers/wait-for';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('appended metric lines, a new metric, a new nested key and a new run are delivered live, each point once', async () => {
  const root = tmp('rlwatch-mlflow-live-');
  const store = new MlflowFileStore(join(root, 'mlruns'));
  const exp = store.experiment('5', 'live');
  const run = exp.run({ runId: 'feed01', runName: 'live-ppo', params: { target_kl: '0.02' } });
  const t0 = 1_700_000_000_000;
  run.logMetric('loss', 1, t0, 0);
  // No sweep: what arrives comes from the watched metrics/ folders.
  ws = createWorkspace({ sweepMs: 600_000 });
  const deltas: SeriesDelta[] = [];
  ws.on('series.appended', (d) => deltas.push(d));
  await ws.open(root);
  const name = 'mlruns/live/live-ppo';
  expect(ws.listRuns().map((r) => r.run)).toEqual([name]);
  expect(ws.configOf(name)).toMatchObject({
    target_kl: 0.02,
    'mlflow.runName': 'live-ppo',
    'mlflow.runId': 'feed01',
  });
  const steps = (tag: string): number[] =>
    deltas.filter((d) => d.run === name && d.tag === tag).flatMap((d) => [...d.steps]);
  const walls = (tag: string): number[] =>
    deltas.filter((d) => d.run === name && d.tag === tag).flatMap((d) => [...d.wallTimes]);
  await waitFor(() => steps('loss').length === 1, 'the first point');

  for (let step = 1; step <= 30; step++) {
    run.logMetric('loss', 1 / (step + 1), t0 + step * 250, step);
    if (step === 10) run.logMetric('reward', 0.5, t0 + step * 250, step); // a new metric file
    if (step >= 20) run.logMetric('eval/policy/kl', step / 1000, t0 + step * 250, step); // a new nested folder
    await sleep(step % 3 === 0 ? 5 : 25);
  }
  await waitFor(() => steps('loss').length === 31, 'all 31 loss points');
  await waitFor(() => steps('reward').length === 1, 'the new metric');
  await waitFor(() => steps('eval/policy/kl').length === 11, 'the nested metric');
  expect(steps('loss')).toEqual(Array.from({ length: 31 }, (_, i) => i));
  expect(walls('loss')).toEqual(Array.from({ length: 31 }, (_, i) => (t0 + i * 250) / 1000));
  expect(steps('eval/policy/kl')).toEqual(Array.from({ length: 11 }, (_, i) => 20 + i));
  const info = ws.listRuns()[0]!;
  expect(info.tags).toEqual(['eval/policy/kl', 'loss', 'reward']);
  expect(info.sources.map((s) => s.format)).toEqual(['mlflow', 'mlflow', 'mlflow', 'mlflow']);

  // A second run started while the folder is open: a new run, its points live too.
  const second = exp.run({ runId: 'feed02', runName: 'seed-2' });
  for (let step = 0; step < 5; step++) {
    second.logMetric('loss', step, t0 + step, step);
    await sleep(30);
  }
  const name2 = 'mlruns/live/seed-2';
  await waitFor(
    () => deltas.filter((d) => d.run === name2 && d.tag === 'loss').flatMap((d) => [...d.steps]).length === 5,
    "the second run's points",
  );
  expect(ws.configOf(name2)).toMatchObject({ 'mlflow.runName': 'seed-2' });
});

test('a run keeps its key while the folder is open (renamed, its name taken by a newer run), and after a restart is found again by name', async () => {
  const root = tmp('rlwatch-mlflow-keys-');
  const exp = new MlflowFileStore(join(root, 'mlruns')).experiment('3', 'keys');
  const t0 = 1_700_000_000_000;
  const first = exp.run({ runId: 'aa01', runName: 'ppo', startMs: t0 });
  first.logMetric('loss', 1, t0, 0);
  ws = createWorkspace({ sweepMs: 600_000 });
  const deltas: SeriesDelta[] = [];
  ws.on('series.appended', (d) => deltas.push(d));
  await ws.open(root);
  const runs = (): string[] => ws!.listRuns().map((r) => r.run);
  expect(runs()).toEqual(['mlruns/keys/ppo']);
  const steps = (run: string): number[] =>
    deltas.filter((d) => d.run === run && d.tag === 'loss').flatMap((d) => [...d.steps]);
  await waitFor(() => steps('mlruns/keys/ppo').length === 1, 'the first point');

  // Renamed in MLflow (tag and meta.yaml), and a run started earlier appears with the old name: the open run keeps
  // its key and goes on growing under it; the newcomer, though first by start time, is `NAME (ID)`.
  first.setTag('mlflow.runName', 'ppo-renamed');
  const early = exp.run({ runId: '0b02', runName: 'ppo', startMs: t0 - 1000 });
  early.logMetric('loss', 5, t0, 0);
  for (let step = 1; step <= 5; step++) {
    first.logMetric('loss', 1 / (step + 1), t0 + step, step);
    await sleep(20);
  }
  await waitFor(() => runs().length === 2, 'the second run');
  await waitFor(() => steps('mlruns/keys/ppo').length === 6, 'the renamed run growing under its key');
  expect(runs()).toEqual(['mlruns/keys/ppo', 'mlruns/keys/ppo (0b02)']);
  expect(ws.configOf('mlruns/keys/ppo')).toMatchObject({
    'mlflow.runId': 'aa01',
    'mlflow.runName': 'ppo-renamed',
  });
  await waitFor(() => steps('mlruns/keys/ppo (0b02)').length === 1, "the newcomer's point");
  expect(ws.listRuns().find((r) => r.run === 'mlruns/keys/ppo')!.sources.length).toBe(2);

  // A restart: the keys come from the store as it is now (one rule, first started first).
  await ws.close();
  ws = createWorkspace({ sweepMs: 600_000 });
  await ws.open(root);
  expect(runs()).toEqual(['mlruns/keys/ppo', 'mlruns/keys/ppo-renamed']);
  expect(ws.configOf('mlruns/keys/ppo')).toMatchObject({ 'mlflow.runId': '0b02' });
  // And again, unchanged: the same keys.
  await ws.close();
  ws = createWorkspace({ sweepMs: 600_000 });
  await ws.open(root);
  expect(runs()).toEqual(['mlruns/keys/ppo', 'mlruns/keys/ppo-renamed']);
  expect(ws.configOf('mlruns/keys/ppo-renamed')).toMatchObject({ 'mlflow.runId': 'aa01' });
});

test("a file-store run's status ends it as the SQLite store's does: FINISHED finished, FAILED crashed", async () => {
  const root = tmp('rlwatch-mlflow-status-');
  const exp = new MlflowFileStore(join(root, 'mlruns')).experiment('1', 'status');
  const ok = exp.run({ runId: 'ok01', runName: 'ok' });
  const bad = exp.run({ runId: 'bad01', runName: 'bad' });
  ok.logMetric('loss', 1, 1_700_000_000_000, 0);
  bad.logMetric('loss', 1, 1_700_000_000_000, 0);
  ws = createWorkspace({ sweepMs: 100 });
  await ws.open(root);
  const ended = (run: string) => ws!.listRuns().find((r) => r.run === run)?.ended;
  expect(ended('mlruns/status/ok')).toBeNull();
  ok.end(3, 1_700_000_100_000);
  bad.end(4, 1_700_000_100_000);
  await waitFor(() => ended('mlruns/status/ok') === 'finished', 'the finished run');
  await waitFor(() => ended('mlruns/status/bad') === 'crashed', 'the failed run');
});
