// Discovery's early runs: the runs a walk hands out before it ends are the ones the rest of it cannot change (#36).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { discoverRuns, type DiscoveredRun } from '../../src/core/discovery';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-discovery-early-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  const p = join(tmp, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

const csv = 'step,loss\n1,0.5\n2,0.4\n';
const run = (i: number): string => `run_${String(i).padStart(3, '0')}`;

/** 150 run folders of one CSV beside the kinds of run a later part of the walk changes or removes. */
function tree(): string {
  for (let i = 0; i < 150; i++) write(`tree/${run(i)}/metrics.csv`, csv);
  write('tree/run_007/config.json', '{"lr": 0.1}');
  // The opened folder's own run (its name depends on the others').
  write('tree/metrics.csv', csv);
  // A run deeper down: found later, but nothing can change it.
  write('tree/nested/deep_run/metrics.csv', csv);
  // A run whose checkpoint's snapshot it adopts, and the checkpoint folder (no run of its own).
  write('tree/with_ckpt/metrics.csv', csv);
  write(
    'tree/with_ckpt/checkpoint-10/trainer_state.json',
    '{"global_step": 10, "log_history": [{"step": 10, "loss": 1}]}',
  );
  // A run adopting a per-step sample dump folder (no run of its own).
  write('tree/dumped/metrics.csv', csv);
  write('tree/dumped/rollouts/1.jsonl', '{"input": "q", "output": "a", "score": 1, "step": 1}\n');
  return join(tmp, 'tree');
}

describe('discovery: runs handed out before the walk ends', () => {
  const root = tree();

  test('are handed out once, sorted, each as the whole walk finds it, and never one the rest of the walk changes', async () => {
    const early: DiscoveredRun[][] = [];
    const whole = await discoverRuns(root, {
      localDisk: true,
      early: { count: 151, found: (runs) => void early.push(structuredClone(runs)) },
    });
    expect(early).toHaveLength(1);
    const names = early[0]!.map((r) => r.run);
    // Every leaf run folder: the 150 beside each other, the deeper one once its level is walked.
    expect(names).toEqual(['nested/deep_run', ...Array.from({ length: 150 }, (_, i) => run(i))]);
    expect(names).toEqual([...names].sort());
    // Not the opened folder's own run, a folder holding folders (with_ckpt, dumped), a checkpoint or a dump folder.
    const byName = new Map(whole.runs.map((r) => [r.run, r]));
    expect(byName.get('with_ckpt')!.sources.map((s) => s.name)).toEqual([
      'checkpoint-10/trainer_state.json',
      'metrics.csv',
    ]);
    expect(byName.get('dumped')!.sources.map((s) => s.name)).toEqual(['metrics.csv', 'rollouts/1.jsonl']);
    expect(byName.has('tree')).toBe(true);
    // Each handed out as the walk's answer holds it (its sources, their order, its config's name).
    for (const r of early[0]!) expect(r).toEqual(byName.get(r.run));
    expect(early[0]!.find((r) => r.run === 'run_007')!.configNames).toEqual(['config.json']);
  });

  test('a walk that finds fewer runs it cannot change than asked hands out none early', async () => {
    const early: DiscoveredRun[][] = [];
    const whole = await discoverRuns(root, {
      localDisk: true,
      early: { count: 152, found: (runs) => void early.push(runs) },
    });
    expect(early).toEqual([]);
    expect(whole.runs).toHaveLength(154);
  });

  test('through the threadpool (not a local disk) the same runs are handed out', async () => {
    const early: string[][] = [];
    await discoverRuns(root, {
      early: { count: 151, found: (runs) => void early.push(runs.map((r) => r.run)) },
    });
    expect(early).toHaveLength(1);
    expect(early[0]).toHaveLength(151);
    expect(early[0]).not.toContain('tree');
  });
});
