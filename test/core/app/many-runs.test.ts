// A folder of many runs: answers about one run (runs.details), every run's alerts, or an alert change that moves no
// run's overlay build no list of every run's info (#36).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { waitFor } from '../../helpers/wait-for';
import { AppCore } from '../../../src/core/app/app-core';
import { openAppStore } from '../../../src/core/app/app-store';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-many-runs-'));
let core: AppCore | null = null;
afterAll(async () => {
  await core?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test("runs.details and alerts.list build no other run's info (a 10k-run list each, queued before the first chart's series)", async () => {
  for (const name of ['a', 'b', 'c']) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'metrics.csv'), 'step,loss\n1,1\n2,0.5\n');
  }
  core = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: true },
    store: openAppStore({ path: ':memory:' }),
  });
  await core.open(dir);
  const listRuns = vi.spyOn(core.workspace, 'listRuns');
  expect(core.details('b')).toMatchObject({ run: 'b', config: null, scope: 'classic' });
  expect(core.alerts()).toEqual([]);
  expect(() => core!.details('nope')).toThrow(/no run nope/);
  expect(listRuns).not.toHaveBeenCalled();
});

test("an alert change that leaves its run's overlay as it was builds no run list and pushes none", async () => {
  await core?.dispose();
  const demoDir = join(dir, 'demo');
  core = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: true },
    store: openAppStore({ path: ':memory:' }),
  });
  const demo = startDemo({ dir: demoDir, steps: 400, rateHz: 400 });
  await core.open(demoDir);
  await demo.done;
  await waitFor(() => core!.alerts().some((a) => a.active && a.severity === 'critical'), 'a critical alert');
  const lists: number[] = [];
  core.bus.on('runs.changed', (r) => lists.push(r.length));
  const listRuns = vi.spyOn(core.workspace, 'listRuns');
  // Acknowledged, an alert still counts for its run's worst alert: the overlay did not move.
  const alert = core.alerts().find((a) => a.active && !a.acknowledged)!;
  core.ack(alert.id);
  expect(listRuns).not.toHaveBeenCalled();
  expect(lists).toEqual([]);
});
