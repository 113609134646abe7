// HF checkpoint folders are snapshots of the run beside them: discovery and inspect read the newest only.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverRuns, foldersToWatch } from '../../src/core/discovery';
import { inspectPath } from '../../src/core/inspect';
import { trainerState, writeAt as write } from '../helpers/hf-checkpoints';
import { tempDirs } from '../helpers/temp-dirs';

const tmp = tempDirs();

const summary = (runs: { run: string; sources: { name: string; format: string }[] }[]) =>
  runs.map((r) => ({ run: r.run, sources: r.sources.map((s) => `${s.name}:${s.format}`) }));

describe('checkpoint snapshots', () => {
  it('two checkpoints of one trainer are one run reading the newest snapshot', async () => {
    const root = tmp('rlwatch-ckpt-');
    write(root, 'out/checkpoint-50/trainer_state.json', trainerState(5));
    write(root, 'out/checkpoint-100/trainer_state.json', trainerState(10));
    write(root, 'out/checkpoint-100/config.json', '{"model_type": "gpt2"}');
    const d = await discoverRuns(root);
    expect(summary(d.runs)).toEqual([
      { run: 'out', sources: ['checkpoint-100/trainer_state.json:trainer_state'] },
    ]);
    expect(d.runs[0]!.sources[0]!.path).toBe(join(root, 'out/checkpoint-100/trainer_state.json'));
    // The checkpoint folders are where the next snapshot appears: watched as run folders.
    expect(foldersToWatch(root, d).runTree).toContain(join(root, 'out/checkpoint-50'));

    const report = await inspectPath(root);
    expect(report.runs.map((r) => [r.run, r.sources.map((s) => s.file)])).toEqual([
      ['out', ['checkpoint-100/trainer_state.json']],
    ]);
    // Each logged point once, from the newest snapshot only.
    expect(report.runs[0]!.scalars['loss']).toMatchObject({ count: 10, firstStep: 1, lastStep: 10 });
    expect(report.runs[0]!.progress).toMatchObject({ fraction: 1 });
  });

  it("the HF TensorBoard layout is one run: the event files' run, the snapshots not read", async () => {
    const root = tmp('rlwatch-ckpt-');
    write(root, 'grpo-out/runs/Nov26_04-33-07_vm/events.out.tfevents.1795667587.vm.25221.0', '');
    for (const n of [10, 20, 30])
      write(root, `grpo-out/checkpoint-${n}/trainer_state.json`, trainerState(n / 10));
    const d = await discoverRuns(root);
    expect(summary(d.runs)).toEqual([
      {
        run: 'grpo-out/runs/Nov26_04-33-07_vm',
        sources: ['events.out.tfevents.1795667587.vm.25221.0:tfevents'],
      },
    ]);
  });

  it("joins the parent's own run unless it has a trainer_state.json of its own", async () => {
    const root = tmp('rlwatch-ckpt-');
    write(root, 'a/progress.csv', 'step,loss\n1,0.5\n');
    write(root, 'a/checkpoint-2/trainer_state.json', trainerState(2));
    write(root, 'b/trainer_state.json', trainerState(3));
    write(root, 'b/checkpoint-2/trainer_state.json', trainerState(2));
    const d = await discoverRuns(root);
    expect(summary(d.runs)).toEqual([
      { run: 'a', sources: ['checkpoint-2/trainer_state.json:trainer_state', 'progress.csv:csv'] },
      { run: 'b', sources: ['trainer_state.json:trainer_state'] },
    ]);
  });

  it('a checkpoint folder with other logs, a staged one and an opened one keep their own rules', async () => {
    const root = tmp('rlwatch-ckpt-');
    // Other recognised files: a run of its own, as before.
    write(root, 'x/checkpoint-5/trainer_state.json', trainerState(5));
    write(root, 'x/checkpoint-5/metrics.jsonl', '{"step": 1, "loss": 0.5}\n');
    // transformers 4.36 staged a checkpoint as tmp-checkpoint-N, then renamed it: never a run, never read.
    write(root, 'y/checkpoint-1/trainer_state.json', trainerState(1));
    write(root, 'y/tmp-checkpoint-2/trainer_state.json', trainerState(2));
    const d = await discoverRuns(root);
    expect(summary(d.runs)).toEqual([
      { run: 'x/checkpoint-5', sources: ['metrics.jsonl:jsonl', 'trainer_state.json:trainer_state'] },
      { run: 'y', sources: ['checkpoint-1/trainer_state.json:trainer_state'] },
    ]);
    // A checkpoint folder opened itself is the run.
    const opened = await discoverRuns(join(root, 'y/checkpoint-1'));
    expect(summary(opened.runs)).toEqual([
      { run: 'checkpoint-1', sources: ['trainer_state.json:trainer_state'] },
    ]);
  });
});
