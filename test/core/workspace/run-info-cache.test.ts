// runs.changed after an append to one run builds that run's info only; the others' (swept, nothing new) are kept (#36).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createWorkspace } from '../../../src/core/workspace/create';
import * as runInfoModule from '../../../src/core/workspace/run-info';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { RunInfo } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

vi.mock('../../../src/core/workspace/run-info', async (original) => {
  const actual = await original<typeof runInfoModule>();
  return { ...actual, runInfo: vi.fn(actual.runInfo) };
});
const built = vi.mocked(runInfoModule.runInfo);

let ws: Workspace | null = null;
let root: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  ws = null;
  root = null;
});

const T0 = 1_700_000_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test("an append to one run builds that run's info, not every run's; the list still says every run's points", async () => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-run-info-cache-'));
  const names = ['a', 'b', 'c', 'd', 'e'];
  const writers = new Map<string, EventFileWriter>();
  for (const name of names) {
    mkdirSync(join(root, name));
    const w = new EventFileWriter(join(root, name), { wallTime: T0 });
    w.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', T0);
    w.flush();
    writers.set(name, w);
  }
  // A sweep every 20 ms: its reads find nothing new and move no run's info.
  ws = createWorkspace({ sweepMs: 20 });
  const lists: RunInfo[][] = [];
  ws.on('runs.changed', (runs) => lists.push(runs));
  await ws.open(root);
  await waitFor(() => ws!.listRuns().every((r) => r.loaded && r.points === 1), 'every run read');
  // The reads that follow each run's first read settle; then a list built again builds no info: nothing moved
  // (15 sweeps meanwhile).
  const builds = (): number => {
    built.mockClear();
    ws!.listRuns();
    return built.mock.calls.length;
  };
  await waitFor(() => builds() === 0, 'a list that builds no run info (the first reads settled)');
  ws.listRuns();
  built.mockClear();
  await sleep(300);
  expect(ws.listRuns().map((r) => r.points)).toEqual([1, 1, 1, 1, 1]);
  expect(built).not.toHaveBeenCalled();

  lists.length = 0;
  writers.get('c')!.scalars(1, [{ tag: 'loss', value: 0.5 }], 'simple', T0 + 1);
  writers.get('c')!.flush();
  await waitFor(() => lists.some((l) => l.find((r) => r.run === 'c')?.points === 2), "c's append listed");
  // (A late read of the same append may build c's again; no other run's is.)
  expect([...new Set(built.mock.calls.map(([state]) => state.run))]).toEqual(['c']);
  const last = lists.at(-1)!;
  expect(last.map((r) => [r.run, r.points, r.lastEventAt])).toEqual([
    ['a', 1, T0 * 1000],
    ['b', 1, T0 * 1000],
    ['c', 2, (T0 + 1) * 1000],
    ['d', 1, T0 * 1000],
    ['e', 1, T0 * 1000],
  ]);
  expect(ws.runInfoOf('c')?.points).toBe(2);
  for (const w of writers.values()) w.close();
});
