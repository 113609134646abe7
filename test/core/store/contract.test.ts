// The Store contract, run against the SQLite store on a real temp file and the in-memory fallback.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/core/store';
import type { AlertInput, Store } from '../../../src/core/store';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const makers: [string, () => Store][] = [
  [
    'sqlite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'rlwatch-store-'));
      dirs.push(dir);
      const s = openStore({ path: join(dir, 'rlwatch.db') });
      expect(s.status.persistent).toBe(true);
      stores.push(s);
      return s;
    },
  ],
  ['memory', () => openStore({ path: null })],
];

const alert = (over: Partial<AlertInput> = {}): AlertInput => ({
  run: '/runs/a',
  rule: 'nan-loss',
  tag: 'train/loss',
  severity: 'critical',
  state: 'raised',
  step: 1200,
  value: Number.NaN,
  message: 'loss is NaN',
  at: 1_000,
  ...over,
});

describe.each(makers)('Store contract (%s)', (_name, make) => {
  it('keeps recent runs newest first, with their view', () => {
    const s = make();
    s.touchRun('/runs/a', 100);
    s.touchRun('/runs/b', 200);
    s.saveRunView(
      '/runs/a',
      { selectedRun: 'a', pinnedCharts: ['train/loss'], smoothing: 0.6, xAxis: 'step' },
      300,
    );
    expect(s.recentRuns().map((r) => r.path)).toEqual(['/runs/b', '/runs/a']);
    s.touchRun('/runs/a', 400);
    const [first, second] = s.recentRuns();
    expect(first).toEqual({
      path: '/runs/a',
      lastOpened: 400,
      view: { selectedRun: 'a', pinnedCharts: ['train/loss'], smoothing: 0.6, xAxis: 'step' },
    });
    expect(second?.view).toBeNull();
    expect(s.recentRuns(1)).toHaveLength(1);
    s.forgetRecentRun('/runs/a');
    expect(s.recentRuns().map((r) => r.path)).toEqual(['/runs/b']);
  });

  it('tracks per-run metadata; omitted fields keep their value', () => {
    const s = make();
    s.updateRunMeta([{ path: '/r', seenAt: 50, lastEventAt: 40, fileWrittenAt: 45 }]);
    s.updateRunMeta([
      { path: '/r', seenAt: 90 },
      { path: '/q', seenAt: 10 },
    ]);
    expect(s.runMeta('/r')).toEqual({
      path: '/r',
      firstSeen: 50,
      lastSeen: 90,
      lastOpened: null,
      lastEventAt: 40,
      fileWrittenAt: 45,
    });
    s.updateRunMeta([{ path: '/r', seenAt: 95, lastEventAt: 94 }]);
    expect(s.runMeta('/r')?.lastEventAt).toBe(94);
    expect(s.runMeta('/nope')).toBeNull();
    // Seen-only runs are metadata, not recents.
    expect(s.recentRuns()).toEqual([]);
  });

  it('round-trips settings as JSON', () => {
    const s = make();
    expect(s.getSetting('theme')).toBeUndefined();
    s.setSetting('theme', 'dark');
    s.setSetting('poll', { enabled: true, intervalMs: 1000, dirs: ['/a'] });
    s.setSetting('theme', 'light');
    expect(s.getSetting('theme')).toBe('light');
    expect(s.allSettings()).toEqual({
      theme: 'light',
      poll: { enabled: true, intervalMs: 1000, dirs: ['/a'] },
    });
    s.deleteSetting('theme');
    expect(s.getSetting('theme')).toBeUndefined();
  });

  it('records alerts with NaN/Inf values, acknowledges and snoozes them', () => {
    const s = make();
    const id = s.recordAlert(alert());
    const ids = s.recordAlerts([
      alert({ run: '/runs/b', at: 2_000, value: Number.POSITIVE_INFINITY, severity: 'warning' }),
      alert({ at: 3_000, state: 'cleared', value: 0.5, tag: null, step: null }),
      alert({ at: 4_000, value: null }),
    ]);
    expect(ids).toHaveLength(3);
    s.acknowledgeAlert(id, 5_000);
    s.snoozeAlert(ids[0]!, 9_000);
    const all = s.alertHistory();
    expect(all.map((a) => a.at)).toEqual([4_000, 3_000, 2_000, 1_000]);
    const first = all.find((a) => a.id === id)!;
    expect(first.value).toBeNaN();
    expect(first.acknowledgedAt).toBe(5_000);
    expect(all.find((a) => a.id === ids[0])).toMatchObject({ value: Infinity, snoozedUntil: 9_000 });
    expect(all[0]!.value).toBeNull();
    expect(all[1]).toMatchObject({ state: 'cleared', tag: null, step: null, value: 0.5 });
    expect(s.alertHistory('/runs/b')).toHaveLength(1);
    expect(s.alertHistory({ run: '/runs/a', since: 2_000 }).map((a) => a.at)).toEqual([4_000, 3_000]);
    expect(s.alertHistory({ limit: 2 })).toHaveLength(2);
  });

  it('appends system samples in batches and reads them by time', () => {
    const s = make();
    s.appendSystemSamples(
      Array.from({ length: 100 }, (_, i) => ({ t: 1_000 + i * 1000, snapshot: { cpuPct: i, gpus: [] } })),
    );
    expect(s.systemSampleCount()).toBe(100);
    const got = s.systemSamples(11_000, 13_000);
    expect(got).toEqual([
      { t: 11_000, snapshot: { cpuPct: 10, gpus: [] } },
      { t: 12_000, snapshot: { cpuPct: 11, gpus: [] } },
      { t: 13_000, snapshot: { cpuPct: 12, gpus: [] } },
    ]);
    expect(s.systemSamples(0, undefined, 5)).toHaveLength(5);
  });

  it('prunes by age and by row cap, keeping the newest', () => {
    const s = make();
    s.appendSystemSamples(Array.from({ length: 1000 }, (_, i) => ({ t: i, snapshot: i })));
    s.recordAlerts([alert({ at: 10 }), alert({ at: 500 })]);
    const r = s.prune(1000, { systemSampleMaxAgeMs: 200, systemSampleMaxRows: 50, alertMaxAgeMs: 600 });
    expect(r).toEqual({ systemSamples: 950, alerts: 1 });
    const left = s.systemSamples(0);
    expect(left).toHaveLength(50);
    expect(left[0]!.t).toBe(950);
    expect(left.at(-1)!.t).toBe(999);
    expect(s.alertHistory().map((a) => a.at)).toEqual([500]);
    expect(s.prune(1000, { systemSampleMaxAgeMs: 200, systemSampleMaxRows: 50, alertMaxAgeMs: 600 })).toEqual(
      {
        systemSamples: 0,
        alerts: 0,
      },
    );
  });
});
