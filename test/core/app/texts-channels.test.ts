// The app on folders of real text-summary files: HF Trainer's args as runs-table columns, texts.list/texts.get, live appends.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { RunsTable } from '../../../src/shared/compare/runs-table';
import type { TextPage } from '../../../src/shared/text-items';
import { waitFor } from '../../helpers/wait-for';

const HOST = {
  mode: 'electron',
  version: 't',
  allowOpenFolder: true,
  chooseFolder: async () => null,
  pickExportFolder: async () => null,
} as const;

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-texts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HF_RUN = 'hf-trainer/runs/Nov26_17-52-14_vm';

describe('texts through the app', () => {
  test('HF args and model config are runs-table columns; the texts channels list and page the items; appends show', async () => {
    const root = join(tmp, 'folder');
    cpSync(join(__dirname, '../../fixtures/tfevents-text'), root, { recursive: true });
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const h = createHandlers(core);
    try {
      expect(await dispatch(h, 'runs.openFolder', { path: root })).toMatchObject({ ok: true });
      await waitFor(
        () => core.workspace.listRuns().length === 6 && core.workspace.listRuns().every((r) => r.loaded),
        'runs',
      );
      const table = await dispatch(h, 'runs.table', {});
      if (!table.ok) throw new Error(JSON.stringify(table));
      const rows = (table.value as RunsTable).rows;
      const hf = rows.find((r) => r.run === HF_RUN)!;
      expect(hf.cells).toMatchObject({
        'config.learning_rate': 0.001,
        'config.max_steps': 4,
        'config.model_type': 'gpt2',
        'config.n_embd': 8,
      });
      const cleanrl = rows.find((r) => r.run === 'torch-cleanrl-sb3')!;
      expect(cleanrl.cells).toMatchObject({
        'config.learning_rate': 0.00025,
        'config.env_id': 'CartPole-v1',
      });

      expect(await dispatch(h, 'texts.list', { run: HF_RUN })).toEqual({
        ok: true,
        value: [
          { tag: 'args/text_summary', count: 1, firstStep: 0, lastStep: 0 },
          { tag: 'model_config/text_summary', count: 1, firstStep: 0, lastStep: 0 },
        ],
      });
      const page = await dispatch(h, 'texts.get', {
        run: 'tensorboardx-add-text',
        tag: 'samples/completion/text_summary',
      });
      expect(page).toMatchObject({ ok: true, value: { dropped: 0 } });
      if (!page.ok) return;
      expect((page.value as TextPage).items.map((i) => i.step)).toEqual([0, 1, 2]);
      const one = await dispatch(h, 'texts.get', {
        run: 'tensorboardx-add-text',
        tag: 'samples/completion/text_summary',
        step: 1,
        limit: 5,
      });
      expect(one).toMatchObject({ ok: true, value: { items: [{ step: 1, shape: [1], truncated: false }] } });
      // Bad arguments are typed failures.
      expect(await dispatch(h, 'texts.get', { run: HF_RUN, tag: 'x', limit: 0 })).toMatchObject({
        ok: false,
        error: { code: 'bad-request' },
      });

      // A live run: a text appended to a new file of the run shows in texts.list.
      const w = new EventFileWriter(join(root, 'tensorboard-shapes'), { wallTime: 2000 });
      w.texts(9, [{ tag: 'vector_text', cells: ['late'] }], 2009);
      w.close();
      await waitFor(
        () =>
          core.workspace.textsOf('tensorboard-shapes').some((s) => s.items('vector_text', 9).length === 1),
        'the appended text',
      );
      expect(await dispatch(h, 'texts.list', { run: 'tensorboard-shapes' })).toMatchObject({
        ok: true,
        value: expect.arrayContaining([{ tag: 'vector_text', count: 2, firstStep: 1, lastStep: 9 }]),
      });
    } finally {
      await core.dispose();
    }
  });
});
