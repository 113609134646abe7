// The MLflow file-store reader: metric lines exactly (values, steps, ms timestamps), NaN, typed malformed lines,
// nested keys, params and tags as config, and discovery of mlruns/ (one run per MLflow run folder).

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverRuns, foldersToWatch } from '../../../src/core/discovery';
import { paramValue } from '../../../src/core/mlflow/run-meta';
import { parseMetricLine } from '../../../src/core/mlflow/metric-reader';
import { createReader, readSource } from '../../../src/core/sources/registry';
import type { SeriesSet } from '../../../src/core/series/series-set';
import { MlflowFileStore, pyFloat } from '../../helpers/mlflow-store';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

function points(set: SeriesSet, tag: string): [number, number, number][] {
  const s = set.get(tag);
  return Array.from({ length: s.length }, (_, i) => [s.step(i), s.wallTime(i), s.value(i)]);
}

describe('MLflow metric files', () => {
  it('reads each line as (step, timestamp ms → s, value) exactly, NaN and ±inf included', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'a1', runName: 'ppo' });
    const values = [
      0.1,
      -2.5e-7,
      1e16,
      3,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      0.30000000000000004,
    ];
    values.forEach((v, i) => run.logMetric('loss', v, 1_700_000_000_123 + i * 1001, i * 10));
    const r = await readSource(join(run.dir, 'metrics', 'loss'), 'mlflow');
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(values.length);
    expect(r.series.tags()).toEqual(['loss']);
    expect(points(r.series, 'loss')).toEqual(
      values.map((v, i) => [i * 10, (1_700_000_000_123 + i * 1001) / 1000, v]),
    );
  });

  it('names a nested metric by its key (metrics/train/loss is train/loss)', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('1', 'rl').run({ runId: 'b2' });
    run.logMetric('train/policy/kl', 0.01, 1_700_000_000_000, 7);
    const r = await readSource(join(run.dir, 'metrics', 'train', 'policy', 'kl'), 'mlflow');
    expect(points(r.series, 'train/policy/kl')).toEqual([[7, 1_700_000_000, 0.01]]);
  });

  it('types a malformed line as a decode error at its offset and reads the lines after it', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'c3' });
    run.logMetric('reward', 1.5, 1_700_000_000_000, 0);
    const bad = '1700000000500 not-a-number 1\n';
    run.appendLine('reward', bad);
    run.appendLine('reward', '1700000000600 2.5\n'); // MLflow < 1.0 lines have no step: step 0
    run.logMetric('reward', 3.5, 1_700_000_001_000, 2);
    const r = await readSource(join(run.dir, 'metrics', 'reward'), 'mlflow');
    const firstLine = `1700000000000 ${pyFloat(1.5)} 0\n`;
    expect(r.errors).toEqual([
      {
        kind: 'decode',
        offset: firstLine.length,
        message: 'MLflow metric reward: the value is not a number',
      },
    ]);
    expect(points(r.series, 'reward')).toEqual([
      [0, 1_700_000_000, 1.5],
      [0, 1_700_000_000.6, 2.5],
      [2, 1_700_000_001, 3.5],
    ]);
  });

  it('gives byte offsets past non-ASCII text (a garbled line) exactly', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'c4' });
    run.appendLine('kl', 'naïve 0.5 1\n');
    run.appendLine('kl', '1700000000000 ∞ 2\n');
    run.logMetric('kl', 0.25, 1_700_000_000_000, 3);
    const r = await readSource(join(run.dir, 'metrics', 'kl'), 'mlflow');
    expect(r.errors).toEqual([
      { kind: 'decode', offset: 0, message: 'MLflow metric kl: the timestamp is not an integer' },
      {
        kind: 'decode',
        offset: Buffer.byteLength('naïve 0.5 1\n'),
        message: 'MLflow metric kl: the value is not a number',
      },
    ]);
    expect(points(r.series, 'kl')).toEqual([[3, 1_700_000_000, 0.25]]);
  });

  it('holds a half-written line until it is complete, and calls it truncated when the writer is done', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'd4' });
    const path = join(run.dir, 'metrics', 'kl');
    run.logMetric('kl', 0.5, 1_700_000_000_000, 0);
    run.appendLine('kl', '1700000001000 0.2');
    const reader = createReader(path, 'mlflow');
    await reader.readMore();
    expect(reader.result().errors).toEqual([]);
    expect(points(reader.series, 'kl')).toEqual([[0, 1_700_000_000, 0.5]]);
    run.appendLine('kl', '5 1\n');
    await reader.readMore();
    expect(points(reader.series, 'kl')).toEqual([
      [0, 1_700_000_000, 0.5],
      [1, 1_700_000_001, 0.25],
    ]);
    appendFileSync(path, '1700000002000 0.');
    await reader.readMore({ final: true });
    expect(reader.result().errors.map((e) => e.kind)).toEqual([]);
    // "0." parses (Python's float("0.") is 0.0) but has no step: a 2-field line, step 0.
    expect(points(reader.series, 'kl')).toHaveLength(3);
    const cut = createReader(path, 'mlflow');
    appendFileSync(path, '\n1700000003000 0.1 x');
    await cut.readMore({ final: true });
    expect(cut.result().errors).toEqual([
      expect.objectContaining({ kind: 'truncated', message: 'MLflow metric kl: the step is not an integer' }),
    ]);
  });

  it('parses lines as MLflow does (2 or 3 space-separated fields, Python int/float)', () => {
    expect(parseMetricLine('1 nan 2')).toEqual({ timestampMs: 1, value: Number.NaN, step: 2 });
    expect(parseMetricLine('1 -Infinity 2')).toEqual({ timestampMs: 1, value: -Infinity, step: 2 });
    expect(parseMetricLine('1 1e-05 -3')).toEqual({ timestampMs: 1, value: 1e-5, step: -3 });
    expect(parseMetricLine('1 2 3 4')).toEqual({ error: '4 fields, not "timestamp value step"' });
    expect(parseMetricLine('1  2 3')).toHaveProperty('error');
    expect(parseMetricLine('1.5 2 3')).toEqual({ error: 'the timestamp is not an integer' });
  });

  it('writes values as Python str(float) does', () => {
    expect([1, 0, 1e-5, 0.0001, 1.5e16, 1e15, 0.1, Number.NaN, -Infinity].map(pyFloat)).toEqual([
      '1.0',
      '0.0',
      '1e-05',
      '0.0001',
      '1.5e+16',
      '1000000000000000.0',
      '0.1',
      'nan',
      '-inf',
    ]);
  });
});

describe('MLflow run meta, params and tags', () => {
  it('makes params the config (numbers where the text is a plain decimal) with the MLflow run name, id and status', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('3', 'ppo').run({
      runId: 'e5f6',
      runName: 'clever-fox-12',
      params: {
        target_kl: '0.02',
        lr: '1e-05',
        batch: '64',
        seed: '007',
        policy: 'MlpPolicy',
        net: '[64, 64]',
        huge: '18446744073709551616',
        'optim/beta1': '0.9',
      },
      tags: { team: 'rl' },
    });
    const r = await readSource(join(run.dir, 'meta.yaml'), 'mlflow');
    expect(r.errors).toEqual([]);
    expect(r.series.size).toBe(0);
    expect(r.config).toEqual({
      target_kl: 0.02,
      lr: 1e-5,
      batch: 64,
      seed: '007',
      policy: 'MlpPolicy',
      net: '[64, 64]',
      huge: '18446744073709551616',
      'optim/beta1': 0.9,
      'mlflow.runName': 'clever-fox-12',
      'mlflow.runId': 'e5f6',
      'mlflow.experimentId': '3',
      'mlflow.status': 'RUNNING',
      'mlflow.tags': { 'mlflow.runName': 'clever-fox-12', team: 'rl' },
    });
    expect(r.progress).toMatchObject({
      fraction: null,
      fields: { status: 'RUNNING', start_time: 1_700_000_000 },
    });
  });

  it('follows the run: a renamed run, a new param, the end status', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'f7' });
    const reader = createReader(join(run.dir, 'meta.yaml'), 'mlflow');
    await reader.readMore();
    // No name anywhere: the run id.
    expect(reader.result().config?.['mlflow.runName']).toBe('f7');
    run.setTag('mlflow.runName', 'renamed');
    run.logParam('gamma', '0.99');
    run.end(3, 1_700_000_100_000);
    await reader.readMore();
    const r = reader.result();
    expect(r.config).toMatchObject({ gamma: 0.99, 'mlflow.runName': 'renamed', 'mlflow.status': 'FINISHED' });
    expect(r.progress).toMatchObject({
      fraction: 1,
      fields: { status: 'FINISHED', end_time: 1_700_000_100 },
    });
  });

  it('types a broken meta.yaml as a decode error and keeps the last good one', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'g8', runName: 'kept' });
    const reader = createReader(join(run.dir, 'meta.yaml'), 'mlflow');
    await reader.readMore();
    writeFileSync(join(run.dir, 'meta.yaml'), 'run_uuid: [g8\nexperiment_id: 0\n');
    await reader.readMore();
    const r = reader.result();
    expect(r.errors).toEqual([expect.objectContaining({ kind: 'decode', offset: 0 })]);
    expect(r.errors[0]!.message).toMatch(/^meta\.yaml: /);
    expect(r.config).toMatchObject({
      'mlflow.runName': 'kept',
      'mlflow.runId': 'g8',
      'mlflow.status': 'RUNNING',
    });
  });

  it('keeps a param text unless it is a plain decimal literal', () => {
    expect(
      ['0', '-1', '2.50', '1E3', '9007199254740993', '1.', '.5', ' 1', 'nan', 'inf', 'True', ''].map(
        paramValue,
      ),
    ).toEqual([0, -1, 2.5, 1000, '9007199254740993', '1.', '.5', ' 1', 'nan', 'inf', 'True', '']);
  });
});

describe('discovering mlruns/', () => {
  it('makes each MLflow run folder one run with its meta.yaml and every metric file, nested or oddly named', async () => {
    const root = tmp('rlwatch-mlflow-');
    const store = new MlflowFileStore(join(root, 'mlruns'));
    const a = store.experiment('0', 'Default').run({ runId: 'r1', runName: 'a', params: { 'p.csv': '1' } });
    a.logMetric('loss', 1, 1_700_000_000_000, 0);
    a.logMetric('train/kl', 1, 1_700_000_000_000, 0);
    a.logMetric('progress.csv', 1, 1_700_000_000_000, 0);
    const b = store.experiment('7', 'other').run({ runId: 'r2', runName: 'b' });
    const d = await discoverRuns(root);
    expect(d.errors).toEqual([]);
    expect(d.runs.map((r) => [r.run, r.sources.map((s) => `${s.name}:${s.format}`)])).toEqual([
      [
        'mlruns/Default/a',
        ['meta.yaml:mlflow', 'metrics/loss:mlflow', 'metrics/progress.csv:mlflow', 'metrics/train/kl:mlflow'],
      ],
      ['mlruns/other/b', ['meta.yaml:mlflow']],
    ]);
    // params/ and tags/ are the meta.yaml reader's: never walked (nor watched); metrics/ folders are the run's.
    expect(d.dirs.some((x) => x.endsWith('params') || x.endsWith('tags'))).toBe(false);
    const watch = foldersToWatch(root, d);
    expect(watch.runTree).toEqual(
      expect.arrayContaining([a.dir, join(a.dir, 'metrics'), join(a.dir, 'metrics', 'train'), b.dir]),
    );
    // b has logged nothing yet: its empty metrics/ is watched too, where its first metric file will appear.
    expect(watch.runTree).toContain(join(b.dir, 'metrics'));
    expect(watch.others).not.toContain(join(a.dir, 'metrics'));
    expect(watch.others).toContain(join(a.dir, 'artifacts'));
  });

  it('keys runs by name within the tree: an opened experiment, odd names, a folder run of the same path, kept keys', async () => {
    const root = tmp('rlwatch-mlflow-');
    const store = new MlflowFileStore(join(root, 'mlruns'));
    // A Databricks-style experiment name: its '/' at the ends dropped, never `//`.
    const exp = store.experiment('4', '/Users/me//ppo/');
    exp.run({ runId: 'r1', runName: 'a' });
    exp.run({ runId: 'r2', runName: '../../escape' }); // a way up: its id instead
    exp.run({ runId: 'r3', runName: '//' }); // nothing left: its id
    exp.run({ runId: 'r4', runName: 'eval/seed-1' });
    // A plain run folder whose path is a run's key: it keeps its path, the MLflow run is `NAME (ID)`.
    const other = store.experiment('5', 'x');
    other.run({ runId: 'r5', runName: 'csv' });
    mkdirSync(join(root, 'mlruns', 'x', 'csv'), { recursive: true });
    writeFileSync(join(root, 'mlruns', 'x', 'csv', 'progress.csv'), 'step,loss\n0,1\n');
    const runs = async (opened: string, keep?: Map<string, string>) =>
      (await discoverRuns(opened, keep ? { keep } : {})).runs.map((r) => [r.run, basename(r.dir)]);
    expect(await runs(root)).toEqual([
      ['mlruns/Users/me/ppo/a', 'r1'],
      ['mlruns/Users/me/ppo/eval/seed-1', 'r4'],
      ['mlruns/Users/me/ppo/r2', 'r2'],
      ['mlruns/Users/me/ppo/r3', 'r3'],
      ['mlruns/x/csv', 'csv'],
      ['mlruns/x/csv (r5)', 'r5'],
    ]);
    // The experiment folder opened: the runs by their names alone.
    expect((await runs(exp.dir)).map(([run]) => run)).toEqual(['a', 'eval/seed-1', 'r2', 'r3']);
    // Keys given before (the workspace's, by folder) are kept; the others are named around them.
    const keep = new Map([[join(exp.dir, 'r4'), 'a']]);
    expect((await runs(exp.dir, keep)).map(([run]) => run)).toEqual(['a', 'a (r1)', 'r2', 'r3']);
  });

  it('opens a single run folder as its own run', async () => {
    const store = new MlflowFileStore(join(tmp('rlwatch-mlflow-'), 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: '0a1b2c', runName: 'solo' });
    run.logMetric('reward', 1, 1_700_000_000_000, 0);
    const d = await discoverRuns(run.dir);
    expect(d.runs.map((r) => [r.run, r.sources.map((s) => s.name)])).toEqual([
      ['0a1b2c', ['meta.yaml', 'metrics/reward']],
    ]);
  });
});
