// The app on a folder of a real TF1 histogram file and a W&B run with histogram records: histograms.list/histograms.get, typed failures, live appends to both.

import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { histogramTags } from '../../../src/core/app/run-histograms';
import { openStore } from '../../../src/core/store';
import { encodeTensorHistogramEvent, frameRecord } from '../../../src/core/tfevents/writer';
import type { HistogramView } from '../../../src/shared/histogram-items';
import { waitFor } from '../../helpers/wait-for';
import { histogramRow, wandbHistogramLog } from '../wandb/histogram-run';
import { frameLog } from '../wandb/wandb-log-writer';

const HOST = {
  mode: 'electron',
  version: 't',
  allowOpenFolder: true,
  chooseFolder: async () => null,
  pickExportFolder: async () => null,
} as const;

const GAN = 'events.out.tfevents.111.complex.localdomain';
const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-histo-app-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('histograms through the app', () => {
  test('list and view per run; bad arguments and unknown tags are typed; appended steps show', async () => {
    const root = join(tmp, 'folder');
    mkdirSync(join(root, 'gan'), { recursive: true });
    copyFileSync(join(__dirname, '../../fixtures/tfevents/wandb__wandb', GAN), join(root, 'gan', GAN));
    const wandbDir = join(root, 'wandb', 'run-20260101_000000-histo1');
    mkdirSync(wandbDir, { recursive: true });
    const log = join(wandbDir, 'run-histo1.wandb');
    writeFileSync(log, wandbHistogramLog('histo1', 10));
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const h = createHandlers(core);
    try {
      expect(await dispatch(h, 'runs.openFolder', { path: root })).toMatchObject({ ok: true });
      await waitFor(
        () => core.workspace.listRuns().length === 2 && core.workspace.listRuns().every((r) => r.loaded),
        'runs',
      );
      const runs = core.workspace.listRuns().map((r) => r.run);
      const wandbRun = runs.find((r) => r !== 'gan')!;

      const gan = await dispatch(h, 'histograms.list', { run: 'gan' });
      expect(gan).toEqual({
        ok: true,
        value: [
          { tag: 'gradient/D/norm/histogram', steps: 12, seen: 12, firstStep: 0, lastStep: 900 },
          { tag: 'gradient/netE_img2z_A/norm/histogram', steps: 12, seen: 12, firstStep: 0, lastStep: 900 },
          { tag: 'gradient/netG_A/norm/histogram', steps: 12, seen: 12, firstStep: 0, lastStep: 900 },
        ],
      });
      const view = await dispatch(h, 'histograms.get', { run: 'gan', tag: 'gradient/netG_A/norm/histogram' });
      if (!view.ok) throw new Error(JSON.stringify(view));
      const v = view.value as HistogramView;
      expect(v.steps).toHaveLength(12);
      expect(v.edges.length).toBeLessThanOrEqual(65);
      expect(v.percentiles.every((p) => p.length === 9)).toBe(true);

      const wb = await dispatch(h, 'histograms.list', { run: wandbRun });
      expect(wb).toMatchObject({
        ok: true,
        value: [
          { tag: 'actions', steps: 10, firstStep: 0, lastStep: 90 },
          { tag: 'grads', steps: 10 },
          { tag: 'policy/logits', steps: 1, firstStep: 250 },
        ],
      });

      // Typed failures: an unknown tag or run, a bad argument.
      expect(await dispatch(h, 'histograms.get', { run: 'gan', tag: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'histograms.list', { run: 'no-such-run' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'histograms.get', { run: 'gan' } as never)).toMatchObject({
        ok: false,
        error: { code: 'bad-request' },
      });

      // Live: a step appended to the TF1 file (a plugin tensor now) and a row appended to the W&B log.
      appendFileSync(
        join(root, 'gan', GAN),
        frameRecord(encodeTensorHistogramEvent(2000, 950, 'gradient/D/norm/histogram', [[170, 180, 3]])),
      );
      appendFileSync(log, frameLog([histogramRow(10)]).subarray(7));
      const lastStep = (run: string, tag: string): number | undefined =>
        histogramTags(core.workspace.histogramsOf(run)).find((t) => t.tag === tag)?.lastStep;
      await waitFor(
        () => lastStep('gan', 'gradient/D/norm/histogram') === 950 && lastStep(wandbRun, 'actions') === 100,
        'the appended steps',
      );
      const after = await dispatch(h, 'histograms.get', { run: 'gan', tag: 'gradient/D/norm/histogram' });
      expect(after).toMatchObject({ ok: true, value: { kept: 13, seen: 13 } });
      if (after.ok) expect((after.value as HistogramView).steps.at(-1)).toBe(950);
    } finally {
      await core.dispose();
    }
  });
});
