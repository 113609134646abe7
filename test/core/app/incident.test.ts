// export.incident in the app: the alert and the store's system samples it has, the export folder given,
// remembered or refused, never inside the open folder.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import type { SamplerLike } from '../../../src/core/app/system-feed';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { IncidentSnapshot } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { waitFor } from '../../helpers/wait-for';

let tmp: string;
let root: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-app-incident-'));
  root = join(tmp, 'runs');
  const run = join(root, 'run1');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'config.json'), JSON.stringify({ target_kl: 0.02 }));
  // KL at 0.03 for 12 steps, written at wall time 1000 s + step.
  const w = new EventFileWriter(run, { wallTime: 1000 });
  for (let i = 0; i < 12; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.03 }], 'simple', 1000 + i);
  w.close();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A sampler whose history holds one sample near the run's wall time and one far from it. */
const sampler = (): SamplerLike => ({
  start: () => {},
  stop: () => {},
  setHidden: () => {},
  setRuns: () => {},
  subscribe: () => () => {},
  getHistory: () =>
    [
      { t: 1_005_000, cpuPct: 37, memPct: 41, gpus: null },
      { t: 9_000_000, cpuPct: 99, memPct: 99, gpus: null },
    ] as unknown as SystemSnapshot[],
});

async function withCore(
  host: ConstructorParameters<typeof AppCore>[0]['host'],
  use: (core: AppCore, id: string) => Promise<void>,
): Promise<void> {
  const core = new AppCore({ host, store: openStore({ path: null }), createSampler: sampler });
  try {
    await core.open(root);
    // The page's first chart drawn: sampling starts (it waits for it, #36).
    core.firstScreenDrawn();
    await waitFor(() => core.alerts().some((a) => a.active), 'the KL alert');
    await use(core, core.alerts()[0]!.id);
  } finally {
    await core.dispose();
  }
}

describe('export.incident', () => {
  test('serve: into the folder given; the report has the live sample nearest the alert', async () => {
    await withCore({ mode: 'serve', version: 't', allowOpenFolder: false }, async (core, id) => {
      const h = createHandlers(core);
      const out = mkdtempSync(join(tmp, 'out-'));
      const r = await dispatch(h, 'export.incident', { id, folder: out });
      expect(r.ok).toBe(true);
      const snap = (r as { value: IncidentSnapshot }).value;
      expect(snap.folder.startsWith(out)).toBe(true);
      expect(snap.written.map((f) => f.path.split('/').pop()).sort()).toEqual([
        'charts.png',
        'report.md',
        'window.csv',
      ]);
      const report = readFileSync(snap.report, 'utf8');
      expect(report).toContain(`\`${id}\``);
      expect(report).toContain('Sampled by rlwatch at 1970-01-01T00:16:45.000Z: CPU 37 %, memory 41 %.');
      // Remembered: the next snapshot needs no folder.
      expect(await dispatch(h, 'export.incident', { id })).toMatchObject({ ok: true });
    });
  });

  test('refused: no folder known and no picker, a relative path, a missing folder, inside the open folder, an unknown id', async () => {
    await withCore({ mode: 'serve', version: 't', allowOpenFolder: false }, async (core, id) => {
      const h = createHandlers(core);
      const bad = (args: { id: string; folder?: string }) => dispatch(h, 'export.incident', args);
      expect(await bad({ id })).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      expect(await bad({ id, folder: 'relative/out' })).toMatchObject({ error: { code: 'bad-request' } });
      expect(await bad({ id, folder: join(tmp, 'missing') })).toMatchObject({
        error: { code: 'bad-request' },
      });
      const inside = await bad({ id, folder: join(root, 'run1') });
      expect(inside).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      expect(!inside.ok && inside.error.message).toMatch(/never writes into the folder it reads/);
      expect(await bad({ id: '["run1","kl-above-target","nope"]', folder: tmp })).toMatchObject({
        error: { code: 'not-found' },
      });
      // `step` picks one incident of the id; a step it no longer shows (an escalation moved it) the newest.
      const step = core.alerts()[0]!.step;
      const out = mkdtempSync(join(tmp, 'out-'));
      for (const s of [step, 999]) {
        const r = await dispatch(h, 'export.incident', { id, folder: out, step: s });
        expect(r).toMatchObject({
          ok: true,
          value: { folder: expect.stringMatching(new RegExp(`step${step}$`)) },
        });
      }
    });
  });

  test('desktop: without a folder, the picker is asked', async () => {
    const picked = mkdtempSync(join(tmp, 'picked-'));
    let asked = 0;
    const host = {
      mode: 'electron' as const,
      version: 't',
      allowOpenFolder: true,
      pickExportFolder: async () => (asked++, picked),
    };
    await withCore(host, async (core, id) => {
      const snap = await core.incident(id);
      expect(asked).toBe(1);
      expect(snap.folder.startsWith(picked)).toBe(true);
      await core.incident(id);
      expect(asked).toBe(1);
    });
  });
});
