// samples.list / samples.get through the app on a live folder: a completions file and a W&B run with tables; appended samples show.

import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { openStore } from '../../../src/core/store';
import type { SamplePage, SampleSourceInfo } from '../../../src/shared/samples';
import { writeCompletionsJsonl, writeWandbTables } from '../../helpers/samples-fixtures';
import { waitFor } from '../../helpers/wait-for';

const HOST = {
  mode: 'electron',
  version: 't',
  allowOpenFolder: true,
  chooseFolder: async () => null,
  pickExportFolder: async () => null,
} as const;

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-samples-app-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('samples through the app', () => {
  test('lists and pages a run’s samples; lines appended to the completions file show', async () => {
    const root = join(tmp, 'folder');
    const fx = writeCompletionsJsonl(join(root, 'grpo'), 30);
    writeWandbTables(join(root, 'wandb'), [5]);
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const h = createHandlers(core);
    const list = async (run: string): Promise<SampleSourceInfo[]> => {
      const r = await dispatch(h, 'samples.list', { run });
      if (!r.ok) throw new Error(JSON.stringify(r));
      return r.value as SampleSourceInfo[];
    };
    try {
      expect(await dispatch(h, 'runs.openFolder', { path: root })).toMatchObject({ ok: true });
      await waitFor(
        () => core.workspace.listRuns().length === 2 && core.workspace.listRuns().every((r) => r.loaded),
        'runs',
      );
      expect((await list('grpo')).map((s) => [s.source, s.origin, s.rows])).toEqual([
        ['completions.jsonl', 'jsonl', 46],
      ]);
      const wandbRun = core.workspace.listRuns().find((r) => r.run.startsWith('wandb'))!.run;
      expect(await list(wandbRun)).toEqual([
        { source: 'completions', origin: 'wandb', rows: 7, dropped: 0, steps: [{ step: 5, rows: 7 }] },
      ]);
      const page = await dispatch(h, 'samples.get', {
        run: 'grpo',
        source: 'completions.jsonl',
        step: 30,
        offset: 25,
        limit: 10,
        sort: { column: 'advantage', desc: true },
      });
      if (!page.ok) throw new Error(JSON.stringify(page));
      const p = page.value as SamplePage;
      expect(p).toMatchObject({ total: 30, matched: 30, offset: 25 });
      expect(p.rows.length).toBe(5);

      appendFileSync(
        fx.file,
        JSON.stringify({ step: 40, prompt: 'new', completion: 'appended', reward: 2 }) + '\n',
      );
      await vi.waitFor(
        async () => {
          if (!(await list('grpo'))[0]!.steps.some((s) => s.step === 40)) throw new Error('no step 40 yet');
        },
        { timeout: 20_000, interval: 50 },
      );

      // Bounds are checked at the edge: a page past 1000 rows is a bad request, not a dump.
      expect(
        await dispatch(h, 'samples.get', { run: 'grpo', source: 'completions.jsonl', step: 30, limit: 5000 }),
      ).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      expect(await dispatch(h, 'samples.list', { run: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
    } finally {
      await core.dispose();
    }
  });
});
