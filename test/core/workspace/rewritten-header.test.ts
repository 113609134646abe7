// A progress.csv whose writer widens its header in place (SB3) reads live as a re-read of the file reads it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { readSource } from '../../../src/core/sources/registry';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { ppoDump, Sb3CsvWriter } from '../../helpers/sb3-csv-writer';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SB3 widening its header at later dumps: the live views hold every column as a re-read does, one session', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-sb3-header-'));
  const csv = join(dir, 'progress.csv');
  const w = new Sb3CsvWriter(csv);
  w.dump(ppoDump(0));
  ws = createWorkspace({ sweepMs: 100 });
  await ws.open(dir);
  const run = basename(dir);
  const view = (tag: string) => ws!.getWindow(run, tag, { pixels: 10_000 });
  await waitFor(() => view('rollout/ep_rew_mean')?.steps.length === 1, 'the first dump');
  for (let i = 1; i < 6; i++) {
    w.dump(ppoDump(i));
    await sleep(150);
  }
  w.close();
  const truth = (await readSource(csv, 'csv')).series;
  const same = (): boolean =>
    truth.tags().every((tag) => {
      const v = view(tag);
      const t = truth.get(tag);
      return (
        v !== null &&
        v !== undefined &&
        [...v.steps].join() === [...t.steps()].join() &&
        [...v.values].join() === [...t.values()].join()
      );
    });
  await waitFor(same, 'every column as a re-read has it', 10_000);
  expect(truth.get('train/entropy_loss').length).toBe(5);
  // The contents before each widening are repeated by the rewrite: no earlier session is kept beside it.
  await waitFor(() => ws!.listRuns()[0]!.sources.length === 1, 'one source');
  expect(ws.listRuns()[0]!.sources.map((s) => [s.dead, s.rewritten ?? false])).toEqual([[false, false]]);
  expect(ws.listRuns()[0]!.sessions).toHaveLength(1);
});
