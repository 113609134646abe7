// inspect: the JSON contract's shape and its rules (file-name order, sorted runs/tags, NaN, finite sums).

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatReport } from '../../src/cli/inspect-command';
import { combineSummaries, inspectPath } from '../../src/core/inspect';
import { readPool } from '../../src/core/tfevents/read-pool';
import { EventFileWriter } from '../../src/core/tfevents/writer';

function makeFolder(): string {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-inspect-'));
  for (const run of ['b_run', 'a_run']) mkdirSync(join(root, run));
  // Two files in one run: the later file name holds the later steps and a NaN at the end.
  const first = new EventFileWriter(join(root, 'a_run'), {
    fileName: 'events.out.tfevents.100.h.1.0',
    wallTime: 100,
  });
  first.scalars(0, [{ tag: 'loss', value: 2 }], 'simple', 100);
  first.scalars(
    1,
    [
      { tag: 'loss', value: 1 },
      { tag: 'kl', value: 0.5 },
    ],
    'simple',
    101,
  );
  first.close();
  const second = new EventFileWriter(join(root, 'a_run'), {
    fileName: 'events.out.tfevents.200.h.1.0',
    wallTime: 200,
  });
  second.scalars(2, [{ tag: 'loss', value: Infinity }], 'tensor-double', 200);
  second.scalars(3, [{ tag: 'loss', value: Number.NaN }], 'tensor-double', 201);
  second.close();
  writeFileSync(join(root, 'b_run', 'metrics.csv'), 'step,reward\n0,1.5\n1,2.5\n');
  writeFileSync(
    join(root, 'b_run', 'training_progress.json'),
    JSON.stringify({ global_step: 5, max_steps: 20 }),
  );
  return root;
}

describe('inspect', () => {
  const root = makeFolder();

  test('reports runs sorted, sources in file-name order, tags concatenated across files', async () => {
    const report = await inspectPath(root);
    expect(report.root).toBe(root);
    expect(report.runs.map((r) => r.run)).toEqual(['a_run', 'b_run']);
    const a = report.runs[0]!;
    expect(a.sources.map((s) => s.file)).toEqual([
      'events.out.tfevents.100.h.1.0',
      'events.out.tfevents.200.h.1.0',
    ]);
    expect(a.sources.every((s) => s.format === 'tfevents' && s.errors.length === 0)).toBe(true);
    expect(Object.keys(a.scalars)).toEqual(['kl', 'loss']);
    expect(a.scalars.loss).toEqual({
      count: 4,
      firstStep: 0,
      lastStep: 3,
      sum: 3,
      min: 1,
      max: 2,
      last: null,
      nonFinite: 2,
    });
    expect(a.progress).toBeNull();
    const b = report.runs[1]!;
    expect(b.scalars.reward).toMatchObject({ count: 2, sum: 4, last: 2.5 });
    expect(b.progress).toMatchObject({ fraction: 0.25 });
  });

  test('a single file is one run named by its folder', async () => {
    const report = await inspectPath(join(root, 'b_run', 'metrics.csv'));
    expect(report.runs.map((r) => r.run)).toEqual(['b_run']);
    expect(report.runs[0]!.sources[0]!.format).toBe('csv');
  });

  test('matches the tensorboard-writer oracle: counts, per-tag sums and last values', async () => {
    const dir = join(import.meta.dirname, '..', 'fixtures', 'tfevents', 'tensorboard-writer');
    for (const name of ['small', 'small_perstep', 'small_tensor']) {
      const oracle = JSON.parse(readFileSync(join(dir, `${name}.expected.json`), 'utf8')) as {
        scalars: number;
        steps: number;
        tags: string[];
        float32_sum_per_tag: Record<string, number>;
        last_value_per_tag: Record<string, number>;
      };
      const report = await inspectPath(join(dir, name));
      expect(report.runs).toHaveLength(1);
      const scalars = report.runs[0]!.scalars;
      expect(Object.keys(scalars)).toEqual([...oracle.tags].sort());
      expect(Object.values(scalars).reduce((n, s) => n + s.count, 0)).toBe(oracle.scalars);
      for (const tag of oracle.tags) {
        const s = scalars[tag]!;
        expect(s.count).toBe(oracle.steps);
        expect(Math.abs(s.sum - oracle.float32_sum_per_tag[tag]!)).toBeLessThanOrEqual(
          1e-6 * Math.abs(oracle.float32_sum_per_tag[tag]!),
        );
        expect(s.last).toBe(Math.fround(oracle.last_value_per_tag[tag]!));
      }
    }
  });

  test('combining nothing gives an empty summary; the table says when nothing was found', async () => {
    expect(combineSummaries([])).toEqual({
      count: 0,
      firstStep: null,
      lastStep: null,
      sum: 0,
      min: null,
      max: null,
      last: null,
      nonFinite: 0,
    });
    const empty = mkdtempSync(join(tmpdir(), 'rlwatch-inspect-empty-'));
    expect(formatReport(await inspectPath(empty))).toMatch(/no recognised metric files/);
    expect(formatReport(await inspectPath(root))).toMatch(/loss\s+4\s+0–3/);
  });

  test("each run's effective config: config.json, and a W&B run's recorded config (text and JSON)", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'rlwatch-inspect-config-'));
    const tiny = join(import.meta.dirname, '..', 'fixtures', 'wandb', 'wandb__wandb', 'leet-single-tiny');
    cpSync(tiny, join(folder, 'wandb'), { recursive: true });
    mkdirSync(join(folder, 'plain'));
    writeFileSync(join(folder, 'plain', 'metrics.csv'), 'step,kl\n0,0.1\n');
    writeFileSync(join(folder, 'plain', 'config.json'), JSON.stringify({ target_kl: 0.03 }));
    mkdirSync(join(folder, 'bare'));
    writeFileSync(join(folder, 'bare', 'metrics.csv'), 'step,kl\n0,0.1\n');
    const report = await inspectPath(folder);
    const byName = new Map(report.runs.map((r) => [r.run, r]));
    expect(byName.get('plain')!.config).toEqual({ target_kl: 0.03 });
    expect(byName.get('bare')!.config).toBeNull();
    const wandb = report.runs.find((r) => r.sources[0]!.format === 'wandb')!;
    expect(wandb.config).toEqual({ batch_size: 32, epochs: 5, lr: 0.001, optimizer: 'adam', seed: 1234 });
    expect(Object.keys(wandb)).toEqual([
      'run',
      'sources',
      'scalars',
      'sessions',
      'points',
      'progress',
      'config',
      'writtenAt',
    ]);
    const text = formatReport(report);
    expect(text).toMatch(/config\s+target_kl=0\.03/);
    expect(text).toMatch(/config\s+batch_size=32, epochs=5, lr=0\.001, optimizer=adam, seed=1234/);
    // W&B's own bookkeeping stays out of the table (the JSON has it); a config of only that prints no line.
    const run = {
      run: 'r',
      sources: [],
      scalars: {},
      sessions: [],
      points: 0,
      progress: null,
      writtenAt: null,
    };
    const lines = (config: Record<string, unknown>): string[] =>
      formatReport({ root: '/x', runs: [{ ...run, config }], walkErrors: [] })
        .split('\n')
        .filter((l) => l.trimStart().startsWith('config'));
    expect(lines({ _wandb: { cli_version: '0.14.2' }, lr: 1e-5 })).toEqual(['  config lr=0.00001']);
    expect(lines({ _wandb: { cli_version: '0.14.2' } })).toEqual([]);
  });

  test('a missing path or an unrecognised file is an error', async () => {
    await expect(inspectPath('/nonexistent/rlwatch')).rejects.toThrow();
    const junk = join(root, 'notes.txt');
    writeFileSync(junk, 'hello');
    await expect(inspectPath(junk)).rejects.toThrow(/not a recognised/);
  });

  // Writing 300k steps and reading them back: 4 s alone, 15–23 s of the shared 30 s in CI beside the other lanes.
  test('several large event files are read ahead on the read pool and summarised as one at a time', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-inspect-pool-'));
    // Three runs, two of them over the pool's 4 MiB threshold (one with two files), one small.
    const sizes: Record<string, number[]> = { big_a: [100_000], big_b: [100_000, 100_000], small: [100] };
    for (const [run, files] of Object.entries(sizes)) {
      mkdirSync(join(root, run));
      let step = 0;
      files.forEach((steps, k) => {
        const w = new EventFileWriter(join(root, run), {
          fileName: `events.out.tfevents.${k}.h`,
          wallTime: 1e9,
        });
        for (let i = 0; i < steps; i++, step++)
          w.scalars(
            step,
            [
              { tag: 'loss', value: 1 / (step + 1) },
              { tag: `${run}/x`, value: step % 5 },
            ],
            'simple',
            1e9 + step,
          );
        w.close();
      });
    }
    const before = readPool().workerReads;
    const report = await inspectPath(root).finally(() => rmSync(root, { recursive: true, force: true }));
    expect(readPool().workerReads - before).toBe(3);
    expect(report.runs.map((r) => r.run)).toEqual(['big_a', 'big_b', 'small']);
    for (const run of report.runs) {
      const total = sizes[run.run]!.reduce((a, b) => a + b, 0);
      expect(run.sources.every((s) => s.errors.length === 0)).toBe(true);
      expect(run.scalars['loss']).toMatchObject({
        count: total,
        firstStep: 0,
        lastStep: total - 1,
        last: Math.fround(1 / total),
      });
      expect(run.scalars[`${run.run}/x`]!.sum).toBe(
        Array.from({ length: total }, (_, i) => i % 5).reduce((a, b) => a + b, 0),
      );
      expect(run.sessions).toHaveLength(1);
    }
  }, 90_000);
});
