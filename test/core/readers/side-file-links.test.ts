// Side files (MLflow meta.yaml, params and tags; W&B tables, config and summary) linked out of their run folder are never
// read: nothing of the target reaches a run name, a config, samples or an error; links inside the run folder are read.

import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { discoverRuns } from '../../../src/core/discovery';
import { inspectPath } from '../../../src/core/inspect';
import { readRunConfig } from '../../../src/core/readers/run-config';
import { readSideFile } from '../../../src/core/readers/side-file';
import { readSource } from '../../../src/core/sources/registry';
import { MlflowFileStore } from '../../helpers/mlflow-store';
import { writeWandbTables } from '../../helpers/samples-fixtures';
import { tempDirs } from '../../helpers/temp-dirs';
import { frameLog, rec } from '../wandb/wandb-log-writer';

const tmp = tempDirs();
const SECRET = 'root:x:0:0:SECRET-CONTENT';

/** A file outside every run folder, standing in for /etc/passwd. */
function secretFile(): string {
  const path = join(tmp('rlwatch-secret-'), 'passwd');
  writeFileSync(path, SECRET);
  return path;
}

describe('MLflow file store', () => {
  test('a tags/mlflow.runName linked out of the run names nothing: discovery, inspect and the reader ignore it', async () => {
    const secret = secretFile();
    const root = tmp('rlwatch-mlflow-link-');
    const store = new MlflowFileStore(join(root, 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'a1', runName: 'ppo', params: { lr: '0.1' } });
    run.logMetric('loss', 0.5, 1_700_000_000_000, 1);
    rmSync(join(run.dir, 'tags', 'mlflow.runName'));
    symlinkSync(secret, join(run.dir, 'tags', 'mlflow.runName'));
    symlinkSync(secret, join(run.dir, 'params', 'leak'));

    const found = await discoverRuns(root);
    expect(found.runs.map((r) => r.run)).toEqual(['mlruns/Default/ppo']);
    const report = await inspectPath(root);
    expect(JSON.stringify(report)).not.toContain('SECRET');
    const r = await readSource(join(run.dir, 'meta.yaml'), 'mlflow');
    expect(JSON.stringify(r.config)).not.toContain('SECRET');
    expect(r.config).toMatchObject({ lr: 0.1, 'mlflow.runName': 'ppo' });
    // Each refused link is said by its path; nothing of what it points at.
    expect(r.errors.map((e) => e.message).sort()).toEqual([
      `${join(run.dir, 'params', 'leak')}: a link out of its run folder: not read`,
      `${join(run.dir, 'tags', 'mlflow.runName')}: a link out of its run folder: not read`,
    ]);
  });

  test('a tag linked to a file inside its run folder is read, by discovery and the reader alike', async () => {
    const root = tmp('rlwatch-mlflow-inner-');
    const store = new MlflowFileStore(join(root, 'mlruns'));
    const run = store.experiment('0', 'Default').run({ runId: 'b2', params: { name: 'inner-name' } });
    run.logMetric('loss', 0.5, 1_700_000_000_000, 1);
    symlinkSync(join('..', 'params', 'name'), join(run.dir, 'tags', 'mlflow.runName'));
    expect((await discoverRuns(root)).runs.map((r) => r.run)).toEqual(['mlruns/Default/inner-name']);
    const r = await readSource(join(run.dir, 'meta.yaml'), 'mlflow');
    expect(r.errors).toEqual([]);
    expect(r.config).toMatchObject({ 'mlflow.runName': 'inner-name' });
  });

  test("an experiment's meta.yaml linked out of its folder names nothing", async () => {
    const outside = join(tmp('rlwatch-mlflow-exp-secret-'), 'meta.yaml');
    writeFileSync(outside, 'experiment_id: "0"\nname: SECRET-CONTENT\nlifecycle_stage: active\n');
    const root = tmp('rlwatch-mlflow-exp-');
    const store = new MlflowFileStore(join(root, 'mlruns'));
    const exp = store.experiment('0', 'Default');
    exp.run({ runId: 'c3', runName: 'ppo' }).logMetric('loss', 0.5, 1_700_000_000_000, 1);
    rmSync(join(root, 'mlruns', '0', 'meta.yaml'));
    symlinkSync(outside, join(root, 'mlruns', '0', 'meta.yaml'));
    const names = (await discoverRuns(root)).runs.map((r) => r.run);
    expect(names.join()).not.toContain('SECRET');
    expect(names).toHaveLength(1);
  });
});

describe('W&B run', () => {
  test('a table file linked out of the run is dropped (a typed error naming the table and step), never read into samples', async () => {
    const secret = join(tmp('rlwatch-wandb-secret-'), 'secret.table.json');
    writeFileSync(secret, JSON.stringify({ columns: ['a'], data: [['SECRET-CONTENT']] }));
    const fx = writeWandbTables(tmp('rlwatch-wandb-link-'), [5, 10]);
    rmSync(fx.tables.get(10)!);
    symlinkSync(secret, fx.tables.get(10)!);
    const r = await readSource(join(fx.dir, 'run-smp00001.wandb'), 'wandb');
    expect(r.samples!.count).toBe(7);
    expect(r.samples!.dropped).toBe(7);
    expect(r.samples!.table('completions', 10)).toBeNull();
    expect(r.errors).toEqual([
      {
        kind: 'io',
        offset: 0,
        message: 'W&B table completions at step 10: a link out of its run folder: not read',
      },
    ]);
  });

  test('files/config.yaml and wandb-summary.json linked out of the run are not read', async () => {
    const secretDir = tmp('rlwatch-wandb-side-secret-');
    writeFileSync(join(secretDir, 'config.yaml'), 'secret_key:\n  value: SECRET-CONTENT\n');
    writeFileSync(join(secretDir, 'summary.json'), '{"secret": "SECRET-CONTENT"}');
    const dir = join(tmp('rlwatch-wandb-side-'), 'run-20260101_000000-abc');
    mkdirSync(join(dir, 'files'), { recursive: true });
    writeFileSync(
      join(dir, 'run-abc.wandb'),
      frameLog([
        rec.run('abc', 1_767_225_600),
        rec.history([
          ['_step', '1'],
          ['loss', '0.5'],
        ]),
      ]),
    );
    symlinkSync(join(secretDir, 'config.yaml'), join(dir, 'files', 'config.yaml'));
    symlinkSync(join(secretDir, 'summary.json'), join(dir, 'files', 'wandb-summary.json'));
    const r = await readSource(join(dir, 'run-abc.wandb'), 'wandb');
    expect(r.series.get('loss')?.length).toBe(1);
    expect(JSON.stringify([r.config, r.summary, r.errors])).not.toContain('SECRET');
    expect(r.config).toMatchObject({ lr: 0.001 });
  });
});

test("a run folder's config.yaml or config.json linked out of it is no config; one linked within it is", async () => {
  const secretDir = tmp('rlwatch-config-secret-');
  writeFileSync(join(secretDir, 'kube.yaml'), 'token: SECRET-CONTENT\n');
  writeFileSync(join(secretDir, 'c.json'), '{"token": "SECRET-CONTENT"}');
  const run = tmp('rlwatch-config-link-');
  writeFileSync(join(run, 'metrics.jsonl'), '{"step": 1, "loss": 0.5}\n');
  symlinkSync(join(secretDir, 'c.json'), join(run, 'config.json'));
  symlinkSync(join(secretDir, 'kube.yaml'), join(run, 'config.yaml'));
  expect(await readRunConfig(run)).toBeNull();
  expect(JSON.stringify(await inspectPath(run))).not.toContain('SECRET');
  mkdirSync(join(run, 'saved'));
  writeFileSync(join(run, 'saved', 'config.yaml'), 'lr: 0.1\n');
  rmSync(join(run, 'config.yaml'));
  symlinkSync(join('saved', 'config.yaml'), join(run, 'config.yaml'));
  expect(await readRunConfig(run)).toEqual({ lr: 0.1 });
});

test('readSideFile refuses a path whose real path leaves the folder, and one whose folder is a prefix of a sibling', async () => {
  const parent = tmp('rlwatch-side-');
  mkdirSync(join(parent, 'run'));
  mkdirSync(join(parent, 'run2'));
  writeFileSync(join(parent, 'run2', 'x'), 'SECRET-CONTENT');
  writeFileSync(join(parent, 'run', 'own'), 'own');
  symlinkSync(join(parent, 'run2', 'x'), join(parent, 'run', 'sibling'));
  symlinkSync('own', join(parent, 'run', 'alias'));
  const run = join(parent, 'run');
  const refused = await readSideFile(join(run, 'sibling'), run, 1000);
  expect(refused).toEqual({
    kind: 'io',
    offset: 0,
    message: 'a link out of its run folder: not read',
    outside: true,
  });
  const alias = await readSideFile(join(run, 'alias'), run, 1000);
  expect('bytes' in alias && new TextDecoder().decode(alias.bytes)).toBe('own');
});
