// A live verl run's rollout dump: each new rollouts/{step}.jsonl joins the run's one `rollouts` source through the watcher alone.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { sampleSources } from '../../../src/core/app/run-samples';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { tempDirs } from '../../helpers/temp-dirs';
import { waitFor } from '../../helpers/wait-for';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

/** verl's `_dump_generations`: the step's file written whole. */
function dump(root: string, step: number): void {
  const rows = [0, 1].map((i) => ({ input: `q${i}`, output: `a${i} at ${step}`, score: step, step }));
  writeFileSync(
    join(root, 'verl_run', 'rollouts', `${step}.jsonl`),
    rows.map((r) => JSON.stringify(r)).join('\n') + '\n',
  );
}

test('each step file a verl run dumps joins its one rollouts source; no run of its own appears', async () => {
  const root = tmp('rlwatch-rollout-live-');
  mkdirSync(join(root, 'verl_run', 'rollouts'), { recursive: true });
  dump(root, 1);
  ws = createWorkspace({ sweepMs: 600_000 });
  await ws.open(root);
  const w = ws;
  const steps = (): number[][] =>
    sampleSources(w.samplesOf('verl_run')).map((s) => s.steps.map((x) => x.step));
  await waitFor(() => steps()[0]?.length === 1, 'the first step');
  for (const step of [2, 3, 10]) {
    dump(root, step);
    await waitFor(() => steps()[0]?.at(-1) === step, `step ${step}`);
  }
  expect(w.listRuns().map((r) => r.run)).toEqual(['verl_run']);
  expect(sampleSources(w.samplesOf('verl_run')).map((s) => s.source)).toEqual(['rollouts']);
  expect(steps()).toEqual([[1, 2, 3, 10]]);
});
