// One runs table in every view: the window's (runs.table, as the renderer asks, and its CSV), `inspect --table --csv` and
// export's runs_table.csv give the same points, sessions, status and steps on the same SB3 folder of the real corpus,
// points being the lines export writes to metrics_long.csv; a run folder deleted and restarted counts what exists now.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { runExport } from '../../../src/cli/export-command';
import { runsTableOutput } from '../../../src/cli/runs-table-output';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { inspectPath } from '../../../src/core/inspect';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { runsTableCsv, type RunsTable } from '../../../src/shared/compare/runs-table';
import { waitFor } from '../../helpers/wait-for';

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'tfevents', '0pk0__rl4avs');
const SCENARIO = join(import.meta.dirname, '..', '..', 'fixtures', 'scenarios', 'd05_cartpole_ppo_nan_csv');
const HOST = { mode: 'serve', version: 't', allowOpenFolder: true } as const;
/** The corpus files back in the SB3 layout they were written in (MANIFEST.tsv's original paths). */
const LAYOUT: Record<string, string[]> = {
  PPO_1: ['events.out.tfevents.1754323433.MacBookPro.75921.0'],
  PPO_2: ['events.out.tfevents.1754327330.MacBookPro.76839.0'],
  PPO_4: ['events.out.tfevents.1754329043.MacBookPro.77185.0'],
  A2C_1: ['events.out.tfevents.1755214641.MacBookPro.1911.0'],
  DQN_1: ['events.out.tfevents.1755302059.MacBookPro.13102.0'],
};
/** The columns every view must agree on (the key metrics' last values have their own rule: runs-table.test.ts). */
const AGREE = ['run', 'status', 'format', 'steps', 'points', 'sessions', 'start', 'duration (s)'];

let core: AppCore | null = null;
afterEach(async () => {
  await core?.dispose();
  core = null;
});

async function windowTable(c: AppCore): Promise<RunsTable> {
  const r = await dispatch(createHandlers(c), 'runs.table', {});
  if (!r.ok) throw new Error(r.error.message);
  return r.value as RunsTable;
}

const settled = (c: AppCore, runs: number): boolean =>
  c.runs().length === runs &&
  c.runs().every((r) => r.loaded && r.tags.every((t) => c.lastPoints(r.run).has(t)));

type Rows = Record<string, string>[];
type Row = Rows[number];
const rowsOf = (csv: string): Rows =>
  (parse(csv, { columns: true }) as Rows).map((r) => Object.fromEntries(AGREE.map((k) => [k, r[k] ?? '?'])));

/** export --csv of `root` into a fresh folder: its runs_table.csv and each run's metrics_long.csv line count. */
async function exported(root: string): Promise<{ table: string; longLines: Map<string, number> }> {
  const out = mkdtempSync(join(tmpdir(), 'rlwatch-views-out-'));
  const quiet = [process.stdout, process.stderr].map((s) =>
    vi.spyOn(s, 'write').mockImplementation(() => true),
  );
  try {
    expect(await runExport([root, '--csv', '--out', out])).toBe(0);
  } finally {
    for (const q of quiet) q.mockRestore();
  }
  const longLines = new Map<string, number>();
  for (const run of Object.keys(LAYOUT).concat('PPO_9')) {
    try {
      const text = readFileSync(join(out, run, 'metrics_long.csv'), 'utf8');
      longLines.set(run, text.split('\n').filter(Boolean).length - 1);
    } catch {
      // a run not in this folder
    }
  }
  const table = readFileSync(join(out, 'runs_table.csv'), 'utf8');
  rmSync(out, { recursive: true, force: true });
  return { table, longLines };
}

describe('the runs table in every view', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'rlwatch-views-'));
    for (const [run, files] of Object.entries(LAYOUT)) {
      mkdirSync(join(root, run));
      for (const f of files) copyFileSync(join(CORPUS, f), join(root, run, f));
    }
    // SB3 writes progress.csv beside its event file: the same tags in two formats (one is shown, one counted).
    copyFileSync(join(SCENARIO, 'progress.csv'), join(root, 'PPO_1', 'progress.csv'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('window, inspect --table and export: the same points, sessions, status and steps; points = metrics_long.csv lines', async () => {
    core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    await core.open(root);
    await waitFor(() => settled(core!, 5), 'every run read');
    const live = await windowTable(core);
    const windowCsv = rowsOf(runsTableCsv(live, { groups: true }));
    const cli = rowsOf(runsTableOutput(await inspectPath(root), 'csv'));
    const { table, longLines } = await exported(root);
    expect(cli).toEqual(windowCsv);
    expect(rowsOf(table)).toEqual(windowCsv);
    const ppo1 = windowCsv.find((r) => r.run === 'PPO_1')!;
    // PPO_1: 87 points in its event file, 14 tags × 100 rows in its progress.csv, of which the tags the event file also
    // has are shown (and counted) from the event file: 287 in every view (the window said 287, inspect 1487).
    expect(Number(ppo1.points)).toBe(longLines.get('PPO_1'));
    expect(ppo1.points).toBe('287');
    for (const r of windowCsv as Row[]) {
      expect(r.status, r.run).not.toBe('');
      if (longLines.has(r.run!)) expect(Number(r.points), r.run).toBe(longLines.get(r.run!));
    }
    expect(windowCsv.map((r) => r.run)).toEqual(['A2C_1', 'DQN_1', 'PPO_1', 'PPO_2', 'PPO_4']);
  });

  test('a run folder deleted and restarted: every view counts the sessions and points of what exists now', async () => {
    const dir = join(root, 'PPO_9');
    const write = (wall: number, steps: number[]): void => {
      mkdirSync(dir, { recursive: true });
      const w = new EventFileWriter(dir, { wallTime: wall });
      steps.forEach((s, i) =>
        w.scalars(s, [{ tag: 'rollout/ep_rew_mean', value: i }], 'tensor-double', wall + i),
      );
      w.close();
    };
    write(1_700_000_000, [0, 1, 2, 3, 4, 5]);
    core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    await core.open(root);
    await waitFor(() => settled(core!, 6), 'every run read');
    rmSync(dir, { recursive: true });
    await waitFor(
      () => core!.runs().some((r) => r.run === 'PPO_9' && r.sources.every((s) => s.dead)),
      'deleted',
    );
    write(1_700_001_000, [0, 1, 2]);
    await waitFor(
      () => core!.runs().some((r) => r.run === 'PPO_9' && r.sources.some((s) => !s.dead) && r.points === 3),
      'restarted',
    );
    // The charts keep the deleted file's points as a dead source (a session of its own); the table counts the files.
    expect(core.runs().find((r) => r.run === 'PPO_9')!.sessions).toHaveLength(2);
    const live = rowsOf(runsTableCsv(await windowTable(core), { groups: true }));
    const cli = rowsOf(runsTableOutput(await inspectPath(root), 'csv'));
    const { table, longLines } = await exported(root);
    const ppo9 = (rows: Rows): Record<string, string> => rows.find((r) => r.run === 'PPO_9')!;
    expect(ppo9(live)).toMatchObject({ sessions: '1', points: '3', steps: '2', 'duration (s)': '2' });
    expect(ppo9(cli)).toEqual(ppo9(live));
    expect(ppo9(rowsOf(table))).toEqual(ppo9(live));
    expect(longLines.get('PPO_9')).toBe(3);
    expect(cli).toEqual(live);
    // The window's count follows the files as they grow (a kept count is not served stale).
    write(1_700_002_000, [3, 4, 5, 6]);
    await waitFor(() => core!.runs().some((r) => r.run === 'PPO_9' && r.points === 7), 'grown');
    const grown = rowsOf(runsTableCsv(await windowTable(core), { groups: true }));
    expect(ppo9(grown)).toMatchObject({ sessions: '1', points: '7', steps: '6' });
    expect(ppo9(rowsOf(runsTableOutput(await inspectPath(root), 'csv')))).toEqual(ppo9(grown));
  });
});
