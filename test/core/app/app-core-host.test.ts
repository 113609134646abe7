// AppCore as the hosts use it: every channel through dispatch, settings persisted, thresholds resolved, system
// samples pushed and stored, and a store that fails after opening degrading to memory instead of crashing.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REQUEST_CHANNELS, type RequestChannel } from '../../../src/shared/channels';
import type { AlertChange, AppNotice } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { dispatch } from '../../../src/core/api/dispatch';
import { createHandlers } from '../../../src/core/app/handlers';
import { AppCore } from '../../../src/core/app/app-core';
import { MACHINE_RUN, machinePoints } from '../../../src/core/alerts/machine-run';
import { HealthEngine } from '../../../src/core/health';
import { openAppStore, storePathFromEnv } from '../../../src/core/app/app-store';
import { openStore, ResilientStore } from '../../../src/core/store';
import { SystemSampler } from '../../../src/core/system';
import type { RunDir } from '../../../src/core/system';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { waitFor } from '../../helpers/wait-for';
import { figureArgs } from './figure-args';

const HOST = {
  mode: 'electron',
  version: 't',
  allowOpenFolder: true,
  chooseFolder: async () => null,
  pickExportFolder: async () => null,
} as const;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-apphost-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A run whose KL sits at 0.03 for 12 steps, with its own target_kl in config.json. */
function klRun(name: string, targetKl: number): string {
  const root = join(tmp, name);
  const run = join(root, 'run1');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'config.json'), JSON.stringify({ target_kl: targetKl }));
  const w = new EventFileWriter(run, { wallTime: 1000 });
  for (let i = 0; i < 12; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.03 }], 'simple', 1000 + i);
  w.texts(3, [{ tag: 'samples/text_summary', cells: ['hello'] }], 1003);
  w.histogram(
    4,
    'actions',
    { min: -1, max: 3, num: 4, sum: 4, sumSquares: 10, bucketLimit: [0, 1, 1e308], bucket: [1, 2, 1] },
    1004,
  );
  w.close();
  return root;
}

describe('an empty folder', () => {
  test('its open ends with a runs.changed that comes after the root is set (a page that asked app.info early learns it)', async () => {
    const dir = mkdtempSync(join(tmp, 'empty-'));
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const roots: (string | null)[] = [];
    core.bus.on('runs.changed', (runs) => {
      if (runs.length === 0) roots.push(core.info().root);
    });
    try {
      const { root } = await core.open(dir);
      expect(roots.at(-1)).toBe(root);
    } finally {
      await core.dispose();
    }
  });
});

describe('every channel through dispatch', () => {
  test('each request channel answers ok with plausible values', async () => {
    const root = klRun('all-channels', 0.02);
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const h = createHandlers(core);
    try {
      const opened = await dispatch(h, 'runs.openFolder', { path: root });
      expect(opened).toEqual({ ok: true, value: { root } });
      await waitFor(() => core.alerts().some((a) => a.active), 'the KL alert');
      const id = core.alerts()[0]!.id;
      const args: Record<RequestChannel, unknown> = {
        'app.info': {},
        'app.visibility': { visible: false },
        'app.firstScreen': {},
        'runs.list': {},
        'runs.openFolder': { path: root },
        'runs.chooseFolder': {},
        'runs.recent': {},
        'runs.details': { run: 'run1' },
        'runs.saveView': { view: { pinned: ['approx_kl'] } },
        'runs.table': {},
        'series.get': { run: 'run1', tag: 'approx_kl', pixels: 100 },
        'series.follow': { run: 'run1', tag: 'approx_kl', follow: true },
        'alerts.list': {},
        'alerts.ack': { id },
        'alerts.snooze': { id, minutes: 5 },
        'system.history': {},
        'settings.get': {},
        'settings.set': { patch: { theme: 'dark' } },
        'endpoints.list': {},
        // Port 1 refuses: the endpoint is listed as disconnected, never an error of the app.
        'endpoints.add': { url: 'http://127.0.0.1:1/?token=abc' },
        'endpoints.remove': { id: '127.0.0.1:1' },
        'jobs.list': {},
        'export.figure': figureArgs(),
        'export.run': { runs: ['run1'], folder: join(tmp, 'all-channels-export') },
        'dialog.pickFolder': {},
        'export.incident': { id, folder: mkdtempSync(join(tmp, 'out-')) },
        'texts.list': { run: 'run1' },
        'texts.get': { run: 'run1', tag: 'samples/text_summary' },
        'samples.list': { run: 'run1' },
        'samples.get': { run: 'run1', source: 'samples/text_summary', step: 3 },
        'histograms.list': { run: 'run1' },
        'histograms.get': { run: 'run1', tag: 'actions' },
      };
      const results: Record<string, unknown> = {};
      for (const c of REQUEST_CHANNELS) {
        const r = await dispatch(h, c, args[c]);
        expect(r.ok, `${c}: ${JSON.stringify(r)}`).toBe(true);
        results[c] = r.ok ? r.value : null;
      }
      expect(results['app.info']).toMatchObject({ mode: 'electron', root, canChooseFolder: true });
      expect(results['runs.list']).toMatchObject([{ run: 'run1', worstAlert: 'warning' }]);
      expect(results['runs.chooseFolder']).toBe(null);
      // One local run and no endpoint: no job.
      expect(results['jobs.list']).toEqual([]);
      expect(results['runs.recent']).toMatchObject([{ path: root }]);
      expect(results['runs.details']).toMatchObject({ run: 'run1', config: { target_kl: 0.02 } });
      expect(results['runs.table']).toMatchObject({
        rows: [{ run: 'run1', cells: { 'kl.last': expect.closeTo(0.03, 6) } }],
      });
      expect(results['alerts.ack']).toMatchObject({ id, acknowledged: true });
      expect(results['alerts.snooze']).toMatchObject({ id, snoozedUntil: expect.any(Number) });
      expect(results['settings.set']).toMatchObject({ theme: 'dark' });
      expect(results['endpoints.add']).toMatchObject({ id: '127.0.0.1:1', url: 'http://127.0.0.1:1/' });
      expect(results['export.figure']).toMatchObject({ fileName: 'approx_kl.png', width: 400, height: 240 });
      expect(results['export.run']).toMatchObject({
        id: expect.any(Number),
        folder: join(tmp, 'all-channels-export'),
      });
      expect(results['dialog.pickFolder']).toBe(null);
      expect(results['export.incident']).toMatchObject({ id, failed: [] });
      expect(results['histograms.list']).toEqual([
        { tag: 'actions', steps: 1, seen: 1, firstStep: 4, lastStep: 4 },
      ]);
      // Legacy HistogramProto buckets: [min, 0], [0, 1], [1, max] (the last limit gives way to max).
      expect(results['histograms.get']).toMatchObject({
        run: 'run1',
        tag: 'actions',
        steps: [4],
        kept: 1,
        seen: 1,
      });
      const view = results['histograms.get'] as {
        edges: number[];
        counts: number[][];
        percentiles: number[][];
      };
      expect(view.edges[0]).toBe(-1);
      expect(view.edges.at(-1)).toBe(3);
      expect(view.counts[0]!.reduce((a, b) => a + b, 0)).toBeCloseTo(4, 9);
      expect(view.percentiles[0]![0]).toBe(-1);
      expect(view.percentiles[0]![8]).toBe(3);
      expect(results['texts.list']).toEqual([
        { tag: 'samples/text_summary', count: 1, firstStep: 3, lastStep: 3 },
      ]);
      expect(results['texts.get']).toEqual({
        run: 'run1',
        tag: 'samples/text_summary',
        items: [
          {
            tag: 'samples/text_summary',
            step: 3,
            wallTime: 1003,
            cells: ['hello'],
            shape: [1],
            truncated: false,
          },
        ],
        dropped: 0,
      });
      // The text summary is also a sample source (one `text` column), through the one samples shape.
      expect(results['samples.list']).toEqual([
        {
          source: 'samples/text_summary',
          origin: 'text',
          rows: 1,
          dropped: 0,
          steps: [{ step: 3, rows: 1 }],
        },
      ]);
      expect(results['samples.get']).toMatchObject({
        columns: [{ name: 'text', kind: 'text' }],
        rows: [['hello']],
        total: 1,
        matched: 1,
      });
      expect(await dispatch(h, 'samples.get', { run: 'run1', source: 'nope', step: 3 })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'texts.get', { run: 'run1', tag: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'texts.list', { run: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      // Typed failures, not crashes.
      expect(await dispatch(h, 'alerts.ack', { id: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'runs.details', { run: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'not-found' },
      });
      expect(await dispatch(h, 'runs.openFolder', { path: join(root, 'missing') })).toMatchObject({
        ok: false,
        error: { code: 'io' },
      });
    } finally {
      await core.dispose();
    }
  });

  test('serve mode refuses to open other folders or pick one', async () => {
    const core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    const h = createHandlers(core);
    expect(await dispatch(h, 'runs.openFolder', { path: tmp })).toMatchObject({
      error: { code: 'unavailable' },
    });
    expect(await dispatch(h, 'runs.chooseFolder', {})).toMatchObject({ error: { code: 'unavailable' } });
    await core.dispose();
  });
});

describe('settings and thresholds', () => {
  test('settings round-trip through SQLite; user thresholds beat the run config, which beats defaults', async () => {
    const db = join(tmp, 'settings', 'rlwatch.db');
    const root = klRun('thresholds', 0.05);

    // Session 1: the run's own target_kl (0.05) keeps 0.03 quiet; then the user sets 0.02.
    const a = new AppCore({ host: HOST, store: openAppStore({ path: db }) });
    const changes: AlertChange[] = [];
    a.bus.on('alerts.changed', (c) => changes.push(c));
    await a.open(root);
    await waitFor(() => a.runs()[0]?.points === 12, 'the run read');
    expect(changes).toEqual([]);
    const saved = a.setSettings({ thresholds: { target_kl: 0.02 }, notifications: false, smoothing: 0.9 });
    expect(saved).toMatchObject({ thresholds: { target_kl: 0.02 }, notifications: false, smoothing: 0.9 });
    await a.dispose();

    // Session 2: the settings are back, and they apply to the run from its first point.
    const b = new AppCore({ host: HOST, store: openAppStore({ path: db }) });
    expect(b.getSettings()).toEqual(saved);
    await b.open(root);
    await waitFor(() => b.alerts().some((x) => x.active), 'the KL alert under the user threshold');
    expect(b.alerts()[0]).toMatchObject({ rule: 'kl-above-target', run: 'run1', tag: 'approx_kl' });
    await b.dispose();
  });

  test('the x-axis mode and ignore outliers are kept per folder: the next folder opens with its own', async () => {
    const db = join(tmp, 'folder-view', 'rlwatch.db');
    const first = klRun('view-first', 0.05);
    const second = klRun('view-second', 0.05);
    const a = new AppCore({ host: HOST, store: openAppStore({ path: db }) });
    await a.open(first);
    a.setSettings({ xAxis: 'wall', ignoreOutliers: true, smoothing: 0.8 });
    // The window's own view save keeps the folder's settings in the same record.
    a.saveView({ pinned: ['approx_kl'] });
    await a.open(second);
    expect(a.getSettings()).toMatchObject({ xAxis: 'step', ignoreOutliers: false, smoothing: 0.8 });
    a.setSettings({ xAxis: 'relative' });
    await a.open(first);
    expect(a.getSettings()).toMatchObject({ xAxis: 'wall', ignoreOutliers: true });
    await a.dispose();
    // And after a restart.
    const b = new AppCore({ host: HOST, store: openAppStore({ path: db }) });
    await b.open(second);
    expect(b.getSettings()).toMatchObject({ xAxis: 'relative', ignoreOutliers: false, smoothing: 0.8 });
    await b.open(first);
    expect(b.getSettings()).toMatchObject({ xAxis: 'wall', ignoreOutliers: true });
    await b.dispose();
  });

  test('settings.set applies new thresholds to the runs already open', async () => {
    const root = klRun('live-thresholds', 0.05);
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    try {
      await core.open(root);
      await waitFor(() => core.runs()[0]?.points === 12, 'the run read');
      expect(core.alerts()).toEqual([]);
      core.setSettings({ thresholds: { target_kl: 0.02 } });
      const w = new EventFileWriter(join(root, 'run1'), {
        wallTime: 2000,
        fileName: 'events.out.tfevents.2000.h.1.0',
      });
      for (let i = 12; i < 18; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.03 }], 'simple', 2000 + i);
      w.close();
      await waitFor(() => core.alerts().some((a) => a.active), 'the KL alert after the change');
      expect(core.alerts()[0]).toMatchObject({ rule: 'kl-above-target', step: expect.any(Number) });
      expect(core.alerts()[0]!.step).toBeGreaterThanOrEqual(12);
    } finally {
      await core.dispose();
    }
  });

  test('RLWATCH_STORE picks memory, a path, or the per-user default', () => {
    expect(storePathFromEnv({ RLWATCH_STORE: 'memory' })).toBe(null);
    expect(storePathFromEnv({ RLWATCH_STORE: '/x/y.db' })).toBe('/x/y.db');
    expect(storePathFromEnv({})).toMatch(/rlwatch[/\\]rlwatch\.db$/);
    // vitest.config.ts sets RLWATCH_STORE=memory, so nothing a test starts lands in the real home.
    expect(process.env.RLWATCH_STORE).toBe('memory');
  });
});

describe('system sampling', () => {
  test('snapshots are pushed while a folder is open, kept for system.history and written to the store', async () => {
    const store = openAppStore({ path: join(tmp, 'system', 'rlwatch.db') });
    let n = 0;
    const sampler = new SystemSampler(
      { host: async () => ({ cpuPct: ++n, memPct: 50, memUsedMiB: 1, memTotalMiB: 2 }) },
      { intervalMs: 100, hiddenIntervalMs: 100 },
    );
    const core = new AppCore({ host: HOST, store, createSampler: () => sampler, flushMs: 50 });
    const pushed: SystemSnapshot[] = [];
    core.bus.on('system.snapshot', (s) => pushed.push(s));
    expect(sampler.isRunning).toBe(false);
    await core.open(klRun('system', 0.02));
    // Not as the folder opens: once the page has drawn its first chart (#36; its first look loads systeminformation
    // and spawns nvidia-smi, which the page's first requests waited behind).
    await new Promise((r) => setTimeout(r, 200));
    expect(sampler.isRunning).toBe(false);
    core.firstScreenDrawn();
    await waitFor(() => sampler.isRunning, 'sampling started');
    await waitFor(() => pushed.length >= 3 && store.systemSampleCount() >= 2, 'samples pushed and stored');
    const history = core.systemHistory();
    expect(history.map((s) => s.cpuPct)).toEqual(pushed.slice(0, history.length).map((s) => s.cpuPct));
    expect(core.systemHistory(pushed[1]!.t).length).toBeLessThan(history.length);
    core.setVisible(false);
    expect(sampler.currentIntervalMs).toBe(100);
    await core.closeFolder();
    expect(sampler.isRunning).toBe(false);
    await core.dispose();
  });
});

describe('training processes', () => {
  test('the sampler is given each run of the open folder with its absolute folder', async () => {
    let runs: readonly RunDir[] = [];
    const sampler = new SystemSampler(
      { training: { setRuns: (r) => (runs = r), sample: async () => ({ processes: [], exited: [] }) } },
      { intervalMs: 100 },
    );
    const core = new AppCore({ host: HOST, store: openStore({ path: null }), createSampler: () => sampler });
    const root = klRun('runs-to-sampler', 0.02);
    await core.open(root);
    // Once the page's first screen is asked for, or the gate's bound passed (no page here).
    await waitFor(() => runs.length > 0, 'the sampler given the runs');
    expect(runs).toEqual([{ run: 'run1', dir: join(root, 'run1') }]);
    await core.dispose();
  });
});

describe('the run list before the sampler (#36)', () => {
  /** A core whose sampler notes each set of runs it is given, and the run lists pushed, in `order`. */
  function orderedCore(): { core: AppCore; order: string[] } {
    const order: string[] = [];
    const sampler = new SystemSampler(
      {
        training: {
          setRuns: (r) => void order.push(`sampler ${r.length}`),
          sample: async () => ({ processes: [], exited: [] }),
        },
      },
      { intervalMs: 100 },
    );
    const core = new AppCore({ host: HOST, store: openStore({ path: null }), createSampler: () => sampler });
    core.bus.on('runs.changed', (runs) => void order.push(`list ${runs.length}`));
    return { core, order };
  }

  test('runs.changed is pushed before the sampler is given the runs (its look at each folder waited in front of the page)', async () => {
    const { core, order } = orderedCore();
    const root = klRun('list-before-sampler', 0.02);
    await core.open(root);
    await waitFor(() => order.includes('sampler 1'), 'the sampler given the run');
    // A run made while the folder is open (the sampler is running): its list first, then the sampler.
    mkdirSync(join(root, 'run2'));
    writeFileSync(join(root, 'run2', 'metrics.csv'), 'step,loss\n0,1\n1,0.5\n');
    await waitFor(() => order.includes('sampler 2'), 'the sampler given the new run');
    expect(order.indexOf('list 2')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('list 2')).toBeLessThan(order.indexOf('sampler 2'));
    await core.dispose();
  });

  test('the sampler is given the runs once the page has drawn its first chart, not at the first list', async () => {
    // Its first look at 10k run folders (a realpath each, every process's open files) ran beside the page's first
    // screen (#36); it waits for the first-screen gate as first reads' judging does.
    const { core, order } = orderedCore();
    await core.open(klRun('sampler-after-first-screen', 0.02));
    await waitFor(() => order.includes('list 1'), 'the run listed');
    await core.series('run1', 'approx_kl', { pixels: 100 });
    await new Promise((r) => setTimeout(r, 400));
    order.push('first chart drawn');
    core.firstScreenDrawn();
    await waitFor(() => order.includes('sampler 1'), 'the sampler given the run');
    expect(order.indexOf('first chart drawn')).toBeLessThan(order.indexOf('sampler 1'));
    await core.dispose();
  });
});

describe('per-run metadata', () => {
  test('opening a folder records each run as seen, with its freshness, in the store', async () => {
    const store = openAppStore({ path: join(tmp, 'meta', 'rlwatch.db') });
    let now = 5_000_000;
    const core = new AppCore({ host: HOST, store, clock: () => now });
    const root = klRun('meta', 0.02);
    await core.open(root);
    await waitFor(() => core.runs()[0]?.loaded === true, 'the run loaded');
    now += 10_000;
    // The next runs.changed after the throttle window refreshes the row.
    await core.open(root);
    const meta = store.runMeta(join(root, 'run1'));
    expect(meta).toMatchObject({ path: join(root, 'run1'), firstSeen: 5_000_000, lastSeen: 5_010_000 });
    expect(meta!.lastEventAt).toBe(1_011_000);
    await core.dispose();
  });
});

describe('machine health from live samples', () => {
  test('memory above 90 % raises memory-high on the machine pseudo-run, and clears when it drops', async () => {
    let mem = 95;
    const sampler = new SystemSampler(
      { host: async () => ({ cpuPct: 10, memPct: mem, memUsedMiB: 1, memTotalMiB: 2 }) },
      { intervalMs: 50, hiddenIntervalMs: 50 },
    );
    const core = new AppCore({ host: HOST, store: openStore({ path: null }), createSampler: () => sampler });
    const changes: AlertChange[] = [];
    core.bus.on('alerts.changed', (c) => changes.push(c));
    await core.open(klRun('machine-mem', 1));
    await waitFor(
      () => changes.some((c) => c.alert.rule === 'memory-high' && c.kind === 'raised'),
      'memory-high',
    );
    const raised = changes.find((c) => c.alert.rule === 'memory-high')!.alert;
    expect(raised).toMatchObject({ run: MACHINE_RUN, tag: 'System/Memory_Percent', severity: 'warning' });
    expect(core.trayModel().health).not.toBe('ok');
    mem = 40;
    await waitFor(
      () => changes.some((c) => c.alert.rule === 'memory-high' && c.kind === 'cleared'),
      'cleared',
    );
    // The pseudo-run never goes "stalled", however long no training data arrives.
    expect(changes.some((c) => c.alert.rule === 'stalled-run')).toBe(false);
    await core.dispose();
  });

  test('an idle GPU only matters while a run trains', () => {
    const snap = (util: number, t: number): SystemSnapshot => ({
      t,
      cpuPct: 1,
      memPct: 10,
      memUsedMiB: 1,
      memTotalMiB: 10,
      gpus: [{ index: 0, utilizationGpuPct: util, memoryUsedMiB: 79_000, memoryTotalMiB: 80_000 } as never],
      nvidia: { state: 'ok', gpuCount: 1, driverVersion: null },
      nvidiaChanged: false,
      appleGpu: null,
      trainingProcesses: [],
      processExits: [],
    });
    const points = machinePoints(snap(5, 1000));
    expect(points.map((p) => p.tag)).toEqual([
      'System/Memory_Percent',
      'System/GPU_Utilization/gpu0',
      'System/GPU_Memory_Percent/gpu0',
    ]);
    expect(points[2]!.value).toBeCloseTo(98.75);
    // A late read's repeated figures are no new sample of the GPU.
    expect(machinePoints({ ...snap(5, 2000), gpusStale: true }).map((p) => p.tag)).toEqual([
      'System/Memory_Percent',
    ]);
    const engine = new HealthEngine({ clock: () => 0 });
    const fire = (trainingAt: number | null, nowMs = 0): string[] => {
      const e = new HealthEngine({ clock: () => nowMs });
      if (trainingAt !== null) e.noteTraining(MACHINE_RUN, trainingAt);
      const rules: string[] = [];
      for (let i = 0; i < 12; i++)
        for (const p of machinePoints(snap(5, 1_000_000 + i * 1000)))
          for (const t of e.feedBatch(MACHINE_RUN, p.tag, [i], [1000 + i], [p.value]))
            rules.push(t.alert.rule);
      return [...new Set(rules)].sort();
    };
    expect(engine.active()).toEqual([]);
    expect(fire(null)).toEqual(['gpu-memory-high']);
    expect(fire(1005)).toEqual(['gpu-memory-high', 'gpu-util-low']);
    // A training point without a wall time (its source logs none) counts when it arrives.
    expect(fire(Number.NaN, 1005_000)).toEqual(['gpu-memory-high', 'gpu-util-low']);
  });
});

describe('store failures after opening', () => {
  test('an IOERR swaps in memory, says so once, and the app keeps its settings', async () => {
    const inner = openStore({ path: join(tmp, 'ioerr', 'rlwatch.db') });
    expect(inner.status.persistent).toBe(true);
    const store = new ResilientStore(inner);
    const core = new AppCore({ host: HOST, store });
    const notices: AppNotice[] = [];
    core.bus.on('app.notice', (n) => notices.push(n));
    core.setSettings({ theme: 'light' });
    inner.setSetting = () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    };
    expect(() => core.setSettings({ theme: 'dark' })).not.toThrow();
    expect(core.getSettings().theme).toBe('dark');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      level: 'warning',
      message: expect.stringMatching(/SQLITE_IOERR_WRITE/),
    });
    const info = core.info().store;
    expect(info.persistent).toBe(false);
    expect(info.message).toMatch(/in memory for this session/);
    // The memory store carried the settings over and answers from now on.
    expect(store.getSetting('settings')).toMatchObject({ theme: 'dark' });
    expect(store.degradation).toMatchObject({ code: 'SQLITE_IOERR_WRITE', operation: 'setSetting' });
    core.setSettings({ theme: 'system' });
    expect(notices).toHaveLength(1);
    await core.dispose();
  });
});

describe('stalled run', () => {
  test('a run gone quiet shows stalled at its own rhythm, the tick raises stalled-run later, new data clears both', async () => {
    let now = 1_000_000;
    const root = join(tmp, 'stalled');
    const run = join(root, 'run1');
    mkdirSync(run, { recursive: true });
    const w = new EventFileWriter(run, { wallTime: 1000, fileName: 'events.out.tfevents.1000.host.1.0' });
    const core = new AppCore({ host: HOST, store: openStore({ path: null }), clock: () => now });
    let step = 0;
    const append = (): void => {
      w.scalars(step, [{ tag: 'loss', value: 1 }], 'simple', 1000 + step);
      step++;
      w.flush();
    };
    const write = async (): Promise<void> => {
      append();
      await waitFor(() => core.runs()[0]?.points === step, `point ${step}`);
    };
    try {
      append();
      await core.open(root);
      for (let i = 0; i < 4; i++) {
        now += 2000;
        await write();
      }
      // Written every 2 s: after 30 s of silence it shows stalled, with no alert yet (a run that ended looks so too).
      now += 30_000;
      core.tick();
      expect(core.runs()[0]).toMatchObject({ stalled: true, worstAlert: null });
      expect(core.alerts()).toEqual([]);
      now += 10 * 60_000;
      core.tick();
      expect(core.alerts()[0]).toMatchObject({ rule: 'stalled-run', active: true, tag: null });
      expect(core.runs()[0]).toMatchObject({ stalled: true, worstAlert: 'warning' });
      now += 1000;
      await write();
      expect(core.runs()[0]).toMatchObject({ stalled: false, worstAlert: null });
    } finally {
      w.close();
      await core.dispose();
    }
  });
});
