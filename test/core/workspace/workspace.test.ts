// Workspace: discovery + real readers + the watcher give every appended point exactly once, live.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { RunInfo, SeriesDelta } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
afterEach(async () => {
  await ws?.close();
  ws = null;
});

describe('workspace on a live demo run', () => {
  test('discovers the run and pushes each appended point once, matching a full read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-ws-'));
    ws = createWorkspace({});
    const deltas: SeriesDelta[] = [];
    let runs: RunInfo[] = [];
    ws.on('series.appended', (d) => deltas.push(d));
    ws.on('runs.changed', (r) => (runs = r));
    await ws.open(dir);
    expect(ws.listRuns()).toEqual([]);

    const steps = 40;
    const demo = startDemo({ dir, steps, rateHz: 80, startWallTime: 1_700_000_000 });
    await demo.done;
    const pushed = (tag: string): number[] =>
      deltas.filter((d) => d.run === 'ppo_demo' && d.tag === tag).flatMap((d) => [...d.steps]);
    await waitFor(
      () => pushed('approx_kl').length >= steps && pushed('reward').length >= steps,
      'all demo points',
    );

    // The demo's last progress write says it finished.
    await waitFor(() => ws!.listRuns()[0]?.progress?.fraction === 1, 'final progress');
    expect(runs.map((r) => r.run)).toEqual(['ppo_demo']);
    const info = ws.listRuns()[0]!;
    expect(info.sources.map((s) => s.format).sort()).toEqual(['csv', 'tfevents', 'training_progress']);
    expect(info.tags).toContain('approx_kl');
    expect(info.tags).toContain('reward');
    // The newest point is the final progress record, stamped one step after the last metrics row.
    expect(info.lastEventAt).toBe(Math.round((1_700_000_000 + steps / 80) * 1000));

    // Fewer points than pixels: the window is the whole view at full resolution.
    const full = ws.getWindow('ppo_demo', 'approx_kl', { pixels: 1000 })!;
    expect(full.downsampled).toBe(false);
    expect([...full.steps]).toEqual(Array.from({ length: steps }, (_, i) => i));
    // Deltas concatenate to exactly the full series: nothing lost, nothing twice.
    expect(pushed('approx_kl')).toEqual([...full.steps]);
    const pushedValues = deltas.filter((d) => d.tag === 'approx_kl').flatMap((d) => [...d.values]);
    expect(pushedValues).toEqual([...full.values]);
    // The demo writes reward to the event file and the CSV: shown once (from the event file), no
    // false restart.
    expect(pushed('reward')).toEqual(Array.from({ length: steps }, (_, i) => i));
    expect(ws.getWindow('ppo_demo', 'reward', { pixels: 1000 })!.length).toBe(steps);
    expect(info.restarts).toBe(0);
  });

  test('refuses to open something that is not a folder', async () => {
    ws = createWorkspace({ watch: false });
    await expect(ws.open('/nonexistent/rlwatch')).rejects.toThrow();
    await expect(ws.open(import.meta.filename)).rejects.toThrow(/not a folder/);
  });

  test('unknown runs and tags give null, not a throw', async () => {
    ws = createWorkspace({ watch: false });
    await ws.open(mkdtempSync(join(tmpdir(), 'rlwatch-ws-')));
    expect(ws.getWindow('nope', 'x', { pixels: 100 })).toBeNull();
  });
});
