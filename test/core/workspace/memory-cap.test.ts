// A folder past the workspace's memory cap opens thinned, never dies: stored bytes stay under the cap, spikes and NaN
// stay on the chart, and the run and a notice say what was thinned.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  eventFileName,
  frameRecord,
} from '../../../src/core/tfevents/writer';
import { MEMORY_CAP_ENV } from '../../../src/core/series/memory-cap';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
});

const STEPS = 80_000;
const SPIKE = 60_003;
const NAN_AT = 20_001;

test('past the cap the series are thinned into envelopes: bytes under the cap, spike and NaN shown, thinning said', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-memcap-'));
  const records = [frameRecord(encodeFileVersionEvent(1_700_000_000))];
  for (let step = 0; step < STEPS; step++) {
    const loss = step === SPIKE ? 1e6 : step === NAN_AT ? Number.NaN : 1 + Math.sin(step * 0.01) * 0.25;
    const points = [
      { tag: 'loss', value: loss },
      { tag: 'reward', value: Math.cos(step * 0.001) },
    ];
    records.push(frameRecord(encodeScalarEvent(1_700_000_000 + step, step, points)));
  }
  writeFileSync(join(dir, eventFileName(1_700_000_000)), Buffer.concat(records));
  const cap = 2 * 2 ** 20; // 2 MB, where the 160k points take 2.6 MB
  ws = new Workspace({ discover, createSource, watch: false, memoryCap: { bytes: cap, fromEnv: true } });
  const notices: string[] = [];
  ws.on('app.notice', (n) => notices.push(n.message));
  await ws.open(dir);

  expect(ws.storedStats().bytes).toBeLessThanOrEqual(cap);
  const run = ws.listRuns()[0]!;
  expect(run.loaded).toBe(true);
  expect(run.thinned?.read).toBe(2 * STEPS);
  expect(run.thinned!.kept).toBeLessThan(STEPS);
  expect(run.points).toBe(run.thinned!.kept);
  expect(
    notices.some((m) => m.startsWith('rlwatch kept 1 in') && m.includes(`set by ${MEMORY_CAP_ENV}`)),
  ).toBe(true);
  expect(ws.thinnedStatement()).toContain('of 1 run to stay under the 2 MB memory cap');
  // The last notice of the load says what the load ended with.
  expect(notices[notices.length - 1]).toBe(ws.thinnedStatement());

  const win = ws.getWindow(basename(dir), 'loss', { pixels: 100_000 })!;
  expect(win.steps[0]).toBe(0);
  expect(win.steps[win.steps.length - 1]).toBe(STEPS - 1);
  const values = [...win.values];
  expect(Math.max(...values.filter(Number.isFinite))).toBe(1e6);
  expect(win.steps[values.findIndex(Number.isNaN)]).toBe(NAN_AT);
});
