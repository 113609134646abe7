// A source without wall times (a real HF trainer_state.json): its view says so, and a chart on a time axis draws it by step.

import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { drawnXAxis, untimedNote } from '../../../src/shared/charts/axis';
import { RunSeries } from '../../../src/shared/charts/series-model';
import { tempDirs } from '../../helpers/temp-dirs';

const FIXTURE = join(
  __dirname,
  '../../fixtures/progress/P4P4N1CK__whisper-large-v2-japanese-5k-steps/trainer_state.json',
);

const tmp = tempDirs();
let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

describe('a run whose source logs no wall times', () => {
  test('windows count its untimed points; the relative axis falls back to step with a note', async () => {
    const root = tmp('rlwatch-untimed-');
    mkdirSync(join(root, 'whisper'));
    copyFileSync(FIXTURE, join(root, 'whisper', 'trainer_state.json'));
    ws = createWorkspace({ watch: false });
    await ws.open(root);
    const w = ws.getWindow('whisper', 'eval_loss', { pixels: 1000 })!;
    expect(w.length).toBe(5);
    expect(w.untimed).toBe(5);
    expect([...w.wallTimes].every(Number.isNaN)).toBe(true);
    expect(w.extent).toMatchObject({ stepMin: 1000, stepMax: 5000, wallMin: NaN, wallMax: NaN });

    // What the dashboard draws under "relative": by step, each evaluation at its own x, and why.
    const s = new RunSeries('whisper');
    s.setWindow(w, 1000, false);
    const axis = drawnXAxis('relative', s.untimed > 0);
    expect(axis).toBe('step');
    expect(untimedNote('relative', s.untimed > 0)).toMatch(/no wall times/);
    s.rebuild({ xAxis: axis, logY: false, smoothing: 0 });
    expect(s.raw.map((p) => p.x)).toEqual([1000, 2000, 3000, 4000, 5000]);
    // The run still shows freshness: the write time of its file.
    expect(ws.listRuns()[0]!.lastEventAt).not.toBeNull();
  });
});
