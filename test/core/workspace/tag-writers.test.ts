// A read of a run whose tags each come from one source splits no writers; tags two files write at once still split.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import * as formatsModule from '../../../src/shared/formats';
import { waitFor } from '../../helpers/wait-for';

// Working out a tag's writers ranks its sources' formats first (series/writers.ts shownWriters): counted here.
vi.mock('../../../src/shared/formats', async (original) => {
  const actual = await original<typeof formatsModule>();
  return { ...actual, bestFormatParts: vi.fn(actual.bestFormatParts) };
});
const splits = vi.mocked(formatsModule.bestFormatParts);

let ws: Workspace | null = null;
let root: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  ws = null;
  root = null;
});

const T0 = 1_700_000_000;

test('appends to tags each written by one source split no writers; a tag two files write at once shows two writers', async () => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-tag-writers-'));
  mkdirSync(join(root, 'solo'));
  mkdirSync(join(root, 'pair'));
  const solo = new EventFileWriter(join(root, 'solo'), { wallTime: T0 });
  const train = new EventFileWriter(join(root, 'pair'), {
    fileName: 'events.out.tfevents.1.host.train',
    wallTime: T0,
  });
  const valid = new EventFileWriter(join(root, 'pair'), {
    fileName: 'events.out.tfevents.1.host.validation',
    wallTime: T0,
  });
  for (let step = 0; step < 3; step++) {
    solo.scalars(
      step,
      [
        { tag: 'loss', value: step },
        { tag: 'reward', value: -step },
      ],
      'simple',
      T0 + step,
    );
    train.scalars(step, [{ tag: 'loss', value: step }], 'simple', T0 + step);
    valid.scalars(step, [{ tag: 'loss', value: 2 * step }], 'simple', T0 + step);
  }
  for (const w of [solo, train, valid]) w.flush();
  ws = createWorkspace({ sweepMs: 3_600_000 });
  await ws.open(root);
  await waitFor(() => ws!.listRuns().every((r) => r.loaded), 'both runs read');
  expect(ws.listRuns().map((r) => [r.run, r.tags])).toEqual([
    ['pair', ['loss', 'loss (validation)']],
    ['solo', ['loss', 'reward']],
  ]);
  splits.mockClear();
  solo.scalars(
    3,
    [
      { tag: 'loss', value: 3 },
      { tag: 'reward', value: -3 },
    ],
    'simple',
    T0 + 3,
  );
  solo.flush();
  await waitFor(() => ws!.runInfoOf('solo')?.points === 8, "solo's append read");
  expect(splits).not.toHaveBeenCalled();
  for (const w of [solo, train, valid]) w.close();
});
