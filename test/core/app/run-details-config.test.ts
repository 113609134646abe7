// runs.details carries a W&B run's files/config.yaml (PyYAML-wrapped strings included) through AppCore.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { openAppStore } from '../../../src/core/app/app-store';
import { fixture } from '../readers/helpers';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-details-'));
let core: AppCore | null = null;
afterAll(async () => {
  await core?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('AppCore.details() answers the config.yaml of a W&B run, every key after a wrapped string kept', async () => {
  const run = join(dir, 'runs', 'run-20230421_071625-4hjc4zce');
  cpSync(fixture('wandb/480284856__RLHF_Training/run-20230421_071625-4hjc4zce'), run, { recursive: true });
  writeFileSync(
    join(run, 'files', 'config.yaml'),
    [
      'wandb_version: 1',
      '',
      'prompt:',
      '  desc: null',
      '  value: You are a helpful assistant. Answer the question below as briefly as you',
      '    can.',
      'seed:',
      '  desc: null',
      '  value: 42',
      '',
    ].join('\n'),
  );
  core = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: true },
    store: openAppStore({ path: ':memory:' }),
  });
  await core.open(join(dir, 'runs'));
  const [info] = core.runs();
  expect(info).toBeDefined();
  const details = core.details(info!.run);
  expect(details.config).toMatchObject({
    prompt: 'You are a helpful assistant. Answer the question below as briefly as you can.',
    seed: 42,
  });
});
