// runs.table through dispatch: the live table of a folder agrees with `inspect --table`'s one-shot read of it
// (its last values being the window's), and configs, restarts, non-finite values and statuses come out right.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { inspectPath } from '../../../src/core/inspect';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { tableInput } from '../../../src/cli/runs-table-output';
import { buildRunsTable, type RunsTable } from '../../../src/shared/compare/runs-table';
import { tempDirs } from '../../helpers/temp-dirs';
import { waitFor } from '../../helpers/wait-for';

const TFEVENTS = join(import.meta.dirname, '..', '..', 'fixtures', 'tfevents');
const HOST = { mode: 'serve', version: 't', allowOpenFolder: true } as const;
const tmp = tempDirs();

let core: AppCore | null = null;
afterEach(async () => {
  await core?.dispose();
  core = null;
});

async function tableOf(c: AppCore): Promise<RunsTable> {
  const r = await dispatch(createHandlers(c), 'runs.table', {});
  if (!r.ok) throw new Error(r.error.message);
  return r.value as RunsTable;
}

/** Every delta of every run has reached the tag tracker: each run's tail counts match its RunInfo's points. */
const settled = (c: AppCore): boolean =>
  c.runs().every((r) => r.loaded && r.tags.length > 0 && r.tags.every((t) => c.lastPoints(r.run).has(t)));

describe('runs.table', () => {
  test('on the tfevents corpus: one row per run, the key metrics as inspect reads them from the files', async () => {
    core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    await core.open(TFEVENTS);
    await waitFor(() => settled(core!), 'every run read');
    const live = await tableOf(core);
    const once = buildRunsTable((await inspectPath(TFEVENTS)).runs.map(tableInput));
    expect(live.rows.map((r) => r.run)).toEqual(once.rows.map((r) => r.run));
    expect(live.rows.length).toBe(9);
    expect(live.columns.map((c) => c.id)).toEqual(once.columns.map((c) => c.id));
    const cols = ['format', 'step', 'start', 'duration', 'reward.best', 'loss.best'];
    const lasts = ['reward.last', 'kl.last', 'entropy.last', 'loss.last'];
    for (let i = 0; i < live.rows.length; i++) {
      const run = live.rows[i]!.run;
      // Two files of one tag over the same steps (katib's train and validation `loss`) are a restart to the
      // window: its last point is the second file's, where inspect's "last" is the last file's last.
      const pickCols = run === 'kubeflow__katib' ? cols : [...cols, ...lasts];
      const pick = (t: RunsTable): Record<string, unknown> =>
        Object.fromEntries(pickCols.map((c) => [c, t.rows[i]!.cells[c]]));
      expect(pick(live), run).toEqual(pick(once));
    }
    const katib = await dispatch(createHandlers(core), 'series.get', {
      run: 'kubeflow__katib',
      tag: 'loss',
      pixels: 1000,
    });
    if (!katib.ok) throw new Error(katib.error.message);
    const values = (katib.value as { values: ArrayLike<number> }).values;
    expect(live.rows.find((r) => r.run === 'kubeflow__katib')!.cells['loss.last']).toBe(
      values[values.length - 1],
    );
    // Not empty columns compared equal: the corpus has rewards and losses.
    const rl = live.rows.find((r) => r.run === '0pk0__rl4avs')!.cells;
    expect(rl['reward.best']).toBeGreaterThan(rl['reward.last'] as number);
    expect(rl['loss.best']).toBeLessThan(rl['loss.last'] as number);
    // The files are old: nothing is live, every run is read.
    expect(new Set(live.rows.map((r) => r.cells.status))).toEqual(new Set(['idle']));
    expect(live.equal).toEqual([]);
  });

  test('configs: varying keys are columns, equal ones folded; a restart, NaN and ∞ left out of the best', async () => {
    const root = tmp('rlwatch-table-');
    const runs = [
      { name: 'ppo-lr3', lr: 3e-4, rewards: [1, 5, 2, Number.NaN, 4] },
      { name: 'ppo-lr1', lr: 1e-4, rewards: [0.5, Number.POSITIVE_INFINITY, 0.25, 0.75, -1] },
    ];
    for (const r of runs) {
      const dir = join(root, r.name);
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ lr: r.lr, env: { id: 'CartPole-v1', n: 8 }, seed: 1 }),
      );
      const w = new EventFileWriter(dir, { wallTime: 1000 });
      // Steps 0..3, then a restart from step 2: the view drops the old 2 and 3, the extremes keep them.
      const steps = [0, 1, 2, 3, 2];
      r.rewards.forEach((v, i) =>
        w.scalars(steps[i]!, [{ tag: 'rollout/ep_rew_mean', value: v }], 'tensor-double', 1000 + 10 * i),
      );
      w.close();
    }
    core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    await core.open(root);
    await waitFor(() => settled(core!), 'both runs read');
    const t = await tableOf(core);
    expect(t.rows.map((r) => r.run)).toEqual(['ppo-lr1', 'ppo-lr3']);
    expect(t.columns.filter((c) => c.kind === 'config').map((c) => c.id)).toEqual(['config.lr']);
    expect(t.equal).toEqual([
      { key: 'env.id', value: 'CartPole-v1' },
      { key: 'env.n', value: 8 },
      { key: 'seed', value: 1 },
    ]);
    const cells = (run: string): Record<string, unknown> => t.rows.find((r) => r.run === run)!.cells;
    expect(cells('ppo-lr3')).toMatchObject({
      'config.lr': 3e-4,
      'reward.last': 4,
      'reward.best': 5,
      step: 2,
      duration: 40,
      start: new Date(1000_000).toISOString(),
    });
    // ∞ is no best; the points the restart hid before the window was sent them (0.25, 0.75) are not the run's.
    expect(cells('ppo-lr1')).toMatchObject({ 'config.lr': 1e-4, 'reward.last': -1, 'reward.best': 0.5 });
  });

  test('no folder open: an empty table, not an error', async () => {
    core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    expect(await tableOf(core)).toEqual({ columns: expect.any(Array), rows: [], equal: [], groups: [] });
  });
});
