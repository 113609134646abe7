// A live trackio run's tables, traces and histograms: a writer (WAL) logging them while the workspace follows the
// database through the watcher alone (no sweep) shows each new table row, trace and histogram step once, in order.

import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { tempDirs } from '../../helpers/temp-dirs';
import { TrackioDb, trackioHistogram, trackioTable, trackioTrace } from '../../helpers/tracker-dbs';
import { waitFor } from '../../helpers/wait-for';

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('table rows, traces and histograms logged to a live trackio run appear as they are written', async () => {
  const root = tmp('rlwatch-trackio-samples-live-');
  const db = new TrackioDb(join(root, 'project.db'));
  const run = { id: 'id-a', name: 'grpo' };
  const t0 = 1_745_000_000_000_000;
  db.log(run, 0, { loss: 1 }, t0);
  ws = createWorkspace({ sweepMs: 600_000 });
  await ws.open(root);
  const name = 'project.db#grpo';
  expect(ws.listRuns().map((r) => r.run)).toEqual([name]);
  const w = ws;
  /** Per source of the run: its steps and rows, as the workspace has them now. */
  const sources = () =>
    Object.fromEntries(
      w
        .samplesOf(name)
        .flatMap((s) => s.sources().map((x) => [x.source, x.steps.map((p) => [p.step, p.rows])])),
    );
  const histogramSteps = () =>
    w.histogramsOf(name).flatMap((h) => h.steps('weights').map((s) => [s.step, s.buckets[2]]));

  const shown = new Map<number, number>();
  const written = new Map<number, number>();
  for (let step = 1; step <= 20; step++) {
    db.log(
      run,
      step,
      {
        loss: 1 / step,
        completions: trackioTable(
          Array.from({ length: 1 + (step % 3) }, (_, i) => ({
            prompt: `p${i}`,
            completion: `c${step}`,
            reward: i,
          })),
        ),
        ...(step % 2 === 0
          ? { trace: trackioTrace([{ role: 'user', content: `hi ${step}` }], { step }) }
          : {}),
        weights: trackioHistogram([0, 1], [step]),
      },
      t0 + step * 250_000,
    );
    written.set(step, performance.now());
    await waitFor(() => sources().completions?.at(-1)?.[0] === step, `the table of step ${step}`);
    shown.set(step, performance.now());
    await sleep(step % 4 === 0 ? 5 : 30);
  }
  await waitFor(() => histogramSteps().length === 20, 'the 20 histogram steps');
  expect(sources()).toEqual({
    completions: Array.from({ length: 20 }, (_, i) => [i + 1, 1 + ((i + 1) % 3)]),
    trace: Array.from({ length: 10 }, (_, i) => [2 * (i + 1), 1]),
  });
  expect(histogramSteps()).toEqual(Array.from({ length: 20 }, (_, i) => [i + 1, i + 1]));
  const samples = w.samplesOf(name)[0]!;
  expect(samples.table('trace', 20)!.rows[0]!.cells).toEqual(['user: hi 20', 20]);
  expect(samples.table('completions', 20)!.rows.map((r) => r.cells)).toEqual([
    ['p0', 'c20', 0],
    ['p1', 'c20', 1],
    ['p2', 'c20', 2],
  ]);
  // The charted per-step means carry their rows' times: the run's freshness stays its rows' own (a database's mtime is
  // every run's), never the time it was read.
  await waitFor(() => w.listRuns()[0]!.tags.includes('samples/completions/mean/reward'), 'the charted means');
  expect(w.listRuns()[0]!.lastEventAt).toBe(Math.round((t0 + 20 * 250_000) / 1000));
  const ms = [...written].map(([s, t]) => shown.get(s)! - t).sort((a, b) => a - b);
  console.log(
    `trackio table row insert → samples: median ${ms[10]!.toFixed(1)} ms, max ${ms[19]!.toFixed(1)} ms`,
  );
  db.close();
});
