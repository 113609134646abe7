// Live: a newer checkpoint moves the run's snapshot source (only its new entries are points), deleted older
// ones leave the run alone, and inspect agrees with the live view.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { inspectPath } from '../../../src/core/inspect';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import { trainerState, writeAt } from '../../helpers/hf-checkpoints';
import { tempDirs } from '../../helpers/temp-dirs';
import { waitFor } from '../../helpers/wait-for';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

describe('checkpoint snapshots, live', () => {
  test('a newer checkpoint moves the source, deleted older ones keep the run; inspect agrees', async () => {
    const root = tmp('rlwatch-ckpt-live-');
    writeAt(root, 'out/checkpoint-2/trainer_state.json', trainerState(2));
    writeAt(root, 'out/checkpoint-4/trainer_state.json', trainerState(4));
    ws = createWorkspace({ sweepMs: 100 });
    const deltas: SeriesDelta[] = [];
    const resets: unknown[] = [];
    ws.on('series.appended', (d) => deltas.push(d));
    ws.on('series.reset', (r) => resets.push(r));
    await ws.open(root);
    const w = ws;
    const pushed = (): number[] => deltas.filter((d) => d.tag === 'loss').flatMap((d) => [...d.steps]);
    const sourceFiles = (): string[] => w.listRuns().flatMap((r) => r.sources.map((s) => s.file));
    expect(w.listRuns().map((r) => r.run)).toEqual(['out']);
    expect(sourceFiles()).toEqual(['checkpoint-4/trainer_state.json']);
    expect(pushed()).toEqual([1, 2, 3, 4]);

    // A newer checkpoint (model files first, then its trainer_state.json), then save_total_limit
    // deletes the oldest.
    writeAt(root, 'out/checkpoint-6/model.safetensors', 'weights');
    writeAt(root, 'out/checkpoint-6/trainer_state.json', trainerState(6));
    await waitFor(() => pushed().length >= 6, 'the newer snapshot');
    rmSync(join(root, 'out/checkpoint-2'), { recursive: true });
    // save_total_limit=1: the run's own snapshot is deleted just after a newer one is written.
    writeAt(root, 'out/checkpoint-8/trainer_state.json', trainerState(8));
    rmSync(join(root, 'out/checkpoint-6'), { recursive: true });
    await waitFor(() => pushed().length >= 8, 'the snapshot after that');
    await new Promise((r) => setTimeout(r, 500)); // sweeps and rediscoveries after the deletions

    const [run] = w.listRuns();
    expect(w.listRuns().map((r) => r.run)).toEqual(['out']);
    expect(run!.sources).toMatchObject([
      { file: 'checkpoint-8/trainer_state.json', dead: false, errors: [] },
    ]);
    // Every logged point once: never an older snapshot read again, no reset, no restart.
    expect(pushed()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(resets).toEqual([]);
    expect(run!.restarts).toBe(0);
    expect(w.progressOf('out')?.fraction).toBeCloseTo(0.8);

    // inspect reads the same run from the same file and counts the same points.
    const report = await inspectPath(root);
    expect(report.runs.map((r) => [r.run, r.sources.map((s) => s.file)])).toEqual([['out', sourceFiles()]]);
    for (const tag of run!.tags)
      expect(report.runs[0]!.scalars[tag]!.count).toBe(w.getWindow('out', tag, { pixels: 1000 })!.length);
  });
});
