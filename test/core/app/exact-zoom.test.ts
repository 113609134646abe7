// Through the API: under a memory cap that thinned a run, a zoomed series.get answers its exact values read back from
// the file, and export.figure of a zoomed chart reads back the windows it draws.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { MEMORY_CAP_ENV } from '../../../src/core/series/memory-cap';
import { openStore } from '../../../src/core/store';
import type { Handlers } from '../../../src/shared/contract';
import type { SeriesWindow } from '../../../src/shared/domain';
import { CAP_MB, exactInZoom, loss, reward, writeThinnedRun, ZOOM } from '../../helpers/thinned-run';
import { waitFor } from '../../helpers/wait-for';
import { figureArgs } from './figure-args';

let tmp: string;
let core: AppCore;
let h: Handlers;
const before = process.env[MEMORY_CAP_ENV];

beforeAll(async () => {
  process.env[MEMORY_CAP_ENV] = String(CAP_MB);
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-exact-zoom-'));
  mkdirSync(join(tmp, 'runs', 'run1'), { recursive: true });
  writeThinnedRun(join(tmp, 'runs', 'run1'));
  core = new AppCore({
    host: { mode: 'electron', version: 't', allowOpenFolder: true },
    store: openStore({ path: null }),
  });
  h = createHandlers(core);
  await core.open(join(tmp, 'runs'));
  await waitFor(() => core.runs()[0]?.loaded === true, 'the run read');
}, 60_000);

afterAll(async () => {
  await core.dispose();
  rmSync(tmp, { recursive: true, force: true });
  if (before === undefined) delete process.env[MEMORY_CAP_ENV];
  else process.env[MEMORY_CAP_ENV] = before;
});

test('a zoomed series.get of a thinned series answers every point of the range, exact', async () => {
  expect(core.runs()[0]!.thinned).toBeTruthy();
  const r = await dispatch(h, 'series.get', { run: 'run1', tag: 'loss', ...ZOOM });
  expect(r.ok).toBe(true);
  expect(exactInZoom((r as { value: SeriesWindow }).value, loss)).toBe(true);
});

test('export.figure of a zoomed chart reads back the exact windows it draws', async () => {
  const ws = core.workspace;
  expect(exactInZoom(ws.getWindow('run1', 'reward', ZOOM)!, reward)).toBe(false);
  const r = await dispatch(
    h,
    'export.figure',
    figureArgs({
      tag: 'reward',
      view: {
        xAxis: 'step',
        logY: false,
        smoothing: 0,
        ignoreOutliers: false,
        xRange: { min: ZOOM.xMin, max: ZOOM.xMax },
      },
    }),
  );
  expect(r.ok).toBe(true);
  // The figure asked for the zoomed range at its own width: the exact points are what answers it now.
  const drawn = ws.getWindow('run1', 'reward', {
    pixels: 20_000,
    xMin: ZOOM.xMin,
    xMax: ZOOM.xMax,
    axis: 'step',
  })!;
  expect(exactInZoom(drawn, reward)).toBe(true);
});
