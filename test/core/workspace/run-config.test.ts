// A run's effective config: config.json beside its metrics, and the config a W&B run records (its
// .wandb config records and files/config.yaml), so thresholds like target_kl apply to W&B runs too.

import { appendFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { resolveThresholds } from '../../../src/core/health';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'wandb');

let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

/** A copy of a W&B fixture run whose files/config.yaml also sets target_kl. */
function wandbRunWithTargetKl(): string {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-config-'));
  const run = join(root, 'run-20230420_073822-clnzftry');
  cpSync(join(fixtures, '480284856__RLHF_Training', 'run-20230420_073822-clnzftry'), run, {
    recursive: true,
  });
  appendFileSync(join(run, 'files', 'config.yaml'), '\ntarget_kl:\n  desc: null\n  value: 0.05\n');
  return root;
}

describe('Workspace.configOf', () => {
  test("a W&B run's config.yaml values are its config, and their thresholds apply", async () => {
    const root = wandbRunWithTargetKl();
    ws = createWorkspace({ watch: false });
    await ws.open(root);
    const [run] = ws.listRuns();
    expect(run?.sources.map((s) => s.format)).toEqual(['wandb']);
    const config = ws.configOf(run!.run);
    expect(config).toMatchObject({ target_kl: 0.05, _wandb: { cli_version: '0.14.2' } });
    expect(resolveThresholds(null, config).values.target_kl).toBe(0.05);
  });

  test("a W&B run's recorded config (no config.yaml) is its config", async () => {
    ws = createWorkspace({ watch: false });
    await ws.open(join(fixtures, 'wandb__wandb', 'leet-single-tiny'));
    const [run] = ws.listRuns();
    expect(ws.configOf(run!.run)).toEqual({
      batch_size: 32,
      epochs: 5,
      lr: 0.001,
      optimizer: 'adam',
      seed: 1234,
    });
  });

  test('config.json beside the metrics is read, and wins over W&B values of the same key', async () => {
    const root = wandbRunWithTargetKl();
    writeFileSync(
      join(root, 'run-20230420_073822-clnzftry', 'config.json'),
      JSON.stringify({ target_kl: 0.2 }),
    );
    const plain = join(root, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'metrics.csv'), 'step,kl\n0,0.1\n');
    writeFileSync(join(plain, 'config.json'), JSON.stringify({ target_kl: 0.03, lr: 1e-5 }));
    ws = createWorkspace({ watch: false });
    await ws.open(root);
    expect(ws.configOf('plain')).toEqual({ target_kl: 0.03, lr: 1e-5 });
    const wandb = ws.listRuns().find((r) => r.run !== 'plain')!;
    expect(ws.configOf(wandb.run)).toMatchObject({ target_kl: 0.2, _wandb: { cli_version: '0.14.2' } });
    expect(ws.configOf('no-such-run')).toBeNull();
  });

  test('a config.yaml alias bomb is one warning notice naming the run folder; the run and the others read on', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-config-bomb-'));
    for (const run of ['bomb', 'plain']) {
      mkdirSync(join(root, run));
      writeFileSync(join(root, run, 'metrics.csv'), 'step,kl\n0,0.1\n1,0.2\n');
    }
    writeFileSync(
      join(root, 'bomb', 'config.yaml'),
      `a: &a [${Array(20_000).fill('0').join(',')}]\nb: [${Array(999).fill('*a').join(',')}]\n`,
    );
    writeFileSync(join(root, 'plain', 'config.yaml'), 'target_kl: 0.03\n');
    ws = createWorkspace({ watch: false });
    const notices: string[] = [];
    ws.on('app.notice', (n) => notices.push(n.message));
    await ws.open(root);
    expect(ws.listRuns().map((r) => r.run)).toEqual(['bomb', 'plain']);
    expect(ws.configOf('bomb')).toBeNull();
    expect(ws.configOf('plain')).toEqual({ target_kl: 0.03 });
    const about = notices.filter((m) => m.includes('config.yaml'));
    expect(about).toHaveLength(1);
    expect(about[0]!.startsWith(`${join(root, 'bomb')}: config.yaml: too many aliased nodes`)).toBe(true);
  });
});
