// A folder of many runs: answers about one run (runs.details) or every run's alerts build no list of every run's info (#36).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
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
