// export.figure, export.run and dialog.pickFolder through dispatch: bounds, typed errors, decoded figures, files and progress.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { chartFigure } from '../../../src/core/app/chart-figure';
import { createHandlers } from '../../../src/core/app/handlers';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { RequestArgs } from '../../../src/shared/contract';
import type { ExportedFigure, ExportProgress, RunExportStarted } from '../../../src/shared/domain';
import { decodeWire, encodeWire } from '../../../src/shared/wire-codec';
import type { Handlers } from '../../../src/shared/contract';
import { panelNotes } from '../../../src/shared/charts/figure-notes';
import { pixelsNear } from '../../helpers/pixels';
import { figureArgs } from './figure-args';
import { waitFor } from '../../helpers/wait-for';

const BLUE = [0x00, 0x72, 0xb2]; // runColor(0)
const ORANGE = [0xe6, 0x9f, 0x00]; // runColor(1)

let tmp: string;
let root: string;
let core: AppCore;
let h: Handlers;
let picked: (string | null)[];

/** A run of `n` steps of approx_kl (rising from `offset`) and loss. */
function writeRun(name: string, n: number, offset: number): void {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const a = new EventFileWriter(dir, { wallTime: 1000, fileName: 'events.out.tfevents.1.a' });
  for (let i = 0; i < n; i++)
    a.scalars(
      i,
      [
        { tag: 'approx_kl', value: offset + 0.001 * i },
        { tag: 'loss', value: 1 / (i + 1) },
      ],
      'simple',
      1000 + i,
    );
  a.close();
}

async function figure(args: RequestArgs['export.figure']): Promise<ExportedFigure> {
  const r = await dispatch(h, 'export.figure', args);
  if (!r.ok) throw new Error(r.error.message);
  return r.value as ExportedFigure;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-export-h-'));
  root = join(tmp, 'runs');
  writeRun('run1', 60, 0.01);
  writeRun('run2', 40, 0.03);
  picked = [];
  core = new AppCore({
    host: {
      mode: 'electron',
      version: 't',
      allowOpenFolder: true,
      pickExportFolder: async (start) => {
        picked.push(start);
        return join(tmp, 'picked');
      },
    },
    store: openStore({ path: null }),
  });
  h = createHandlers(core);
  await core.open(root);
  await waitFor(() => core.runs().filter((r) => r.points > 0).length === 2, 'both runs read');
}, 30_000);

afterAll(async () => {
  await core.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

describe('export.figure', () => {
  test('a PNG has the asked size × scale, is opaque and draws the run in its colour', async () => {
    const one = await figure(figureArgs());
    const two = await figure(figureArgs({ scale: 2 }));
    expect(one).toMatchObject({ fileName: 'approx_kl.png', mime: 'image/png', width: 400, height: 240 });
    expect(two).toMatchObject({ width: 800, height: 480 });
    expect(one.bytes).toBeInstanceOf(Uint8Array);
    for (const f of [one, two]) {
      const img = await loadImage(f.bytes);
      expect([img.width, img.height]).toEqual([f.width, f.height]);
    }
    expect(await pixelsNear(one.bytes, BLUE)).toBeGreaterThan(100);
    // Light theme: a white background, not transparent.
    expect(await pixelsNear(one.bytes, [255, 255, 255])).toBeGreaterThan(400 * 240 * 0.3);
  });

  test('the dark theme gives a dark, opaque background', async () => {
    const dark = await figure(figureArgs({ theme: 'dark' }));
    expect(await pixelsNear(dark.bytes, [0x1a, 0x1f, 0x25])).toBeGreaterThan(400 * 240 * 0.3);
    expect(await pixelsNear(dark.bytes, [255, 255, 255])).toBe(0);
  });

  test('an overlay draws each run in its palette colour; other data gives other pixels', async () => {
    const single = await figure(figureArgs());
    const both = await figure(figureArgs({ runs: ['run1', 'run2'] }));
    // No second run's line (a few anti-aliased pixels of the red alert marker's edge come near orange).
    expect(await pixelsNear(single.bytes, ORANGE)).toBeLessThan(10);
    expect(await pixelsNear(both.bytes, ORANGE)).toBeGreaterThan(50);
    const loss = await figure(figureArgs({ tag: 'loss' }));
    expect(Buffer.from(loss.bytes).equals(Buffer.from(single.bytes))).toBe(false);
  });

  test('the title names the tag and its catalog description; the subtitle the runs and band; the panel its alerts and smoothing', () => {
    const alert = {
      run: 'run2',
      tag: 'approx_kl',
      step: 30,
      severity: 'warning',
      active: true,
      message: 'KL high',
    };
    const source = {
      runs: () => ['run1', 'run2'],
      window: (run: string, tag: string, q: { pixels: number }) => core.workspace.getWindow(run, tag, q),
      alerts: () => [alert as never],
      thresholds: () => ({ target_kl: 0.05 }),
      scope: () => 'classic' as const,
    };
    const f = chartFigure(
      source,
      figureArgs({ runs: ['run1', 'run2'], view: { ...figureArgs().view, smoothing: 0.6 } }),
    );
    expect(f.title).toMatch(/^approx_kl — .*KL/);
    expect(f.subtitle).toBe('runs: run1, run2 · shaded: healthy below 0.05 (target_kl 0.05)');
    // With the health bands switched off the caption does not speak of a shading the figure lacks.
    const plain = chartFigure(source, figureArgs({ runs: ['run1', 'run2'], healthBands: false }));
    expect(plain.subtitle).toBe('runs: run1, run2');
    expect(panelNotes(f.panels[0]!.spec)).toEqual(['smoothed (EMA 0.6, raw faint)', '1 alert marked']);
    expect(f.panels[0]!.spec.band).toEqual({ min: null, max: 0.05, target: 0.05 });
    expect(f.panels[0]!.spec.series.map((s) => [s.run, s.raw.length])).toEqual([
      ['run1', 60],
      ['run2', 40],
    ]);
    expect(f.panels[0]!.spec.markers).toEqual([expect.objectContaining({ kind: 'alert', x: 30 })]);
  });

  test('each run keeps its stable look: its index among the folder’s runs, whichever runs the chart draws', () => {
    const source = {
      runs: () => ['run1', 'run2', 'a-first'],
      window: (run: string, tag: string, q: { pixels: number }) => core.workspace.getWindow(run, tag, q),
      alerts: () => [],
      thresholds: () => ({}),
      scope: () => 'classic' as const,
    };
    // Sorted, the folder is a-first (0), run1 (1), run2 (2): run2 alone is still look 2, as the window draws it.
    const alone = chartFigure(source, figureArgs({ runs: ['run2'] }));
    expect(alone.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex])).toEqual([['run2', 2]]);
    const both = chartFigure(source, figureArgs({ runs: ['run2', 'run1'] }));
    expect(both.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex])).toEqual([
      ['run2', 2],
      ['run1', 1],
    ]);
  });

  test('a zoomed relative-time view takes the points of that window (seconds since the run began)', () => {
    const source = {
      runs: () => ['run1'],
      window: (run: string, tag: string, q: { pixels: number }) => core.workspace.getWindow(run, tag, q),
      alerts: () => [],
      thresholds: () => ({}),
      scope: () => 'classic' as const,
    };
    const view = { xAxis: 'relative' as const, logY: false, smoothing: 0, ignoreOutliers: false };
    const f = chartFigure(source, figureArgs({ view: { ...view, xRange: { min: 10, max: 20 } } }));
    const xs = f.panels[0]!.spec.series[0]!.raw.map((p) => p.x);
    // One point either side of the window, so the line reaches its edges (as the dashboard's windows do).
    expect(xs).toEqual(Array.from({ length: 13 }, (_, i) => 9 + i));
    expect(f.panels[0]!.xRange).toEqual({ min: 10, max: 20 });
  });

  test('a time axis over a series without wall times draws it by step and says so', () => {
    // A trainer_state.json tag: steps, no wall times (NaN), as the workspace's windows give them.
    const steps = Float64Array.from([10, 20, 30]);
    const source = {
      runs: () => ['hf'],
      window: (run: string, tag: string) => ({
        run,
        tag,
        steps,
        wallTimes: Float64Array.from([NaN, NaN, NaN]),
        values: Float64Array.from([3, 2, 1]),
        length: 3,
        inRange: 3,
        downsampled: false,
        extent: { stepMin: 10, stepMax: 30, wallMin: NaN, wallMax: NaN },
        restarts: [],
        sessions: [],
        untimed: 3,
      }),
      alerts: () => [],
      thresholds: () => ({}),
      scope: () => 'classic' as const,
    };
    const view = { xAxis: 'relative' as const, logY: false, smoothing: 0, ignoreOutliers: false };
    const f = chartFigure(source, figureArgs({ runs: ['hf'], tag: 'eval_loss', view }));
    expect(f.panels[0]!.spec.view.xAxis).toBe('step');
    expect(f.panels[0]!.spec.series[0]!.raw.map((p) => p.x)).toEqual([10, 20, 30]);
    // Stated on the panel with its other transforms (figure-notes), as the exported figures do.
    expect(panelNotes(f.panels[0]!.spec)).toContain(
      'by step: no wall times logged (time since start needs them)',
    );
  });

  test('an SVG is a vector document with a path stroked in the run colour', async () => {
    const svg = await figure(figureArgs({ format: 'svg', scale: 3 }));
    expect(svg).toMatchObject({ fileName: 'approx_kl.svg', mime: 'image/svg+xml', width: 400, height: 240 });
    const text = Buffer.from(svg.bytes).toString('utf8');
    expect(text.startsWith('<svg')).toBe(true);
    expect(text.trimEnd().endsWith('</svg>')).toBe(true);
    expect(text).toMatch(/<path[^>]*stroke="#0072b2"/i);
  });

  test('a zoomed view draws only the visible x window', async () => {
    const whole = await figure(figureArgs());
    const zoomed = await figure(figureArgs({ view: { ...figureArgs().view, xRange: { min: 10, max: 20 } } }));
    expect(Buffer.from(zoomed.bytes).equals(Buffer.from(whole.bytes))).toBe(false);
    expect(await pixelsNear(zoomed.bytes, BLUE)).toBeGreaterThan(100);
  });

  test("the paper preset from the window: one column at 300 dpi (the export menu's Paper PNG)", async () => {
    const f = await figure(
      figureArgs({ width: 336, height: 252, scale: 300 / 96, style: 'paper', healthBands: false }),
    );
    expect(f).toMatchObject({ mime: 'image/png', width: 1050, height: 788 });
    expect(await pixelsNear(f.bytes, BLUE)).toBeGreaterThan(50);
  });

  test('the bytes cross the WebSocket wire codec as a Uint8Array', async () => {
    const f = await figure(figureArgs());
    const back = decodeWire(encodeWire({ ok: true, value: f })) as { value: ExportedFigure };
    expect(back.value.bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(back.value.bytes).equals(Buffer.from(f.bytes))).toBe(true);
  });

  test.each([
    ['a width below the bound', { width: 100 }],
    ['a width above the bound', { width: 5000 }],
    ['a height above the bound', { height: 5000 }],
    ['a scale above 3', { scale: 4 }],
    ['a scale below 1', { scale: 0.5 }],
    ['no runs', { runs: [] }],
    ['an unknown format', { format: 'gif' }],
    ['an unknown theme', { theme: 'sepia' }],
    ['an empty x window', { view: { ...figureArgs().view, xRange: { min: 5, max: 5 } } }],
    ['a composed chart of no tags', { tags: [] }],
    ['a composed chart of 25 tags', { tags: Array.from({ length: 25 }, (_, i) => `t${i}`) }],
    ['a composed chart naming a tag twice', { tags: ['loss', 'approx_kl', 'loss'] }],
  ])('%s is a bad request', async (_what, over) => {
    const r = await dispatch(h, 'export.figure', { ...figureArgs(), ...over });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  test('a composed chart: named by the chart, a line per run × tag in each run’s colour', async () => {
    const f = await figure(
      figureArgs({ runs: ['run1', 'run2'], tag: 'kl and loss', tags: ['approx_kl', 'loss'] }),
    );
    expect(f).toMatchObject({ fileName: 'kl and loss.png', mime: 'image/png', width: 400, height: 240 });
    expect(await pixelsNear(f.bytes, BLUE)).toBeGreaterThan(100);
    expect(await pixelsNear(f.bytes, ORANGE)).toBeGreaterThan(100);
    const kl = await figure(figureArgs({ runs: ['run1', 'run2'], tag: 'kl and loss', tags: ['approx_kl'] }));
    expect(Buffer.from(kl.bytes).equals(Buffer.from(f.bytes))).toBe(false);
    expect(
      await dispatch(h, 'export.figure', figureArgs({ tag: 'none', tags: ['no_such_tag', 'nor_this'] })),
    ).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  test('an unknown run or a tag no run has is not-found', async () => {
    expect(await dispatch(h, 'export.figure', figureArgs({ runs: ['nope'] }))).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
    expect(await dispatch(h, 'export.figure', figureArgs({ tag: 'no_such_tag' }))).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });
});

describe('export.run', () => {
  /** Runs export.run and waits for its end; answers the answer, the pushes of this export, and the end. */
  async function runExport(runs: string[], folder: string) {
    const progress: ExportProgress[] = [];
    const off = core.bus.on('export.progress', (p) => progress.push(p));
    try {
      const r = await dispatch(h, 'export.run', { runs, folder });
      if (!r.ok) throw new Error(r.error.message);
      const started = r.value as RunExportStarted;
      const mine = (): ExportProgress[] => progress.filter((p) => p.id === started.id);
      await waitFor(() => mine().some((p) => p.kind !== 'file'), 'the end of the export');
      const end = mine().at(-1)!;
      if (end.kind !== 'finished') throw new Error(`export failed: ${JSON.stringify(end)}`);
      return { started, files: mine().filter((p) => p.kind === 'file'), result: end.result };
    } finally {
      off();
    }
  }

  test("writes each run's data into the folder, pushes progress, and remembers the folder", async () => {
    const out = join(tmp, 'export-out');
    const { started, files, result } = await runExport(['run1', 'run2'], out);
    expect(started.folder).toBe(out);
    expect(result.failed).toEqual([]);
    // Per run, and the tags both runs log compared in comparisons/.
    expect(readdirSync(out).sort()).toEqual(['comparisons', 'run1', 'run2']);
    expect(readdirSync(join(out, 'comparisons')).sort()).toEqual(['approx_kl.png', 'loss.png']);
    // Per run: the data and the figures (seed 003's set where the run has the tags, one per tag).
    for (const run of ['run1', 'run2']) {
      const names = readdirSync(join(out, run)).sort();
      expect(names).toEqual(
        expect.arrayContaining(['metrics_long.csv', 'metrics_wide.csv', 'training_metrics.json', 'figures']),
      );
      expect(names).toContain('policy_metrics.png');
      expect(readdirSync(join(out, run, 'figures')).sort()).toEqual(['approx_kl.png', 'loss.png']);
    }
    for (const f of result.written) expect(existsSync(f.path)).toBe(true);
    expect(readFileSync(join(out, 'run2', 'metrics_long.csv'), 'utf8')).toContain('approx_kl');
    const steps = files.map((p) => (p.kind === 'file' ? [p.done, p.ok] : null));
    expect(steps).toEqual(result.written.map((_, i) => [i + 1, true]));
    const last = files.at(-1)!;
    expect(last.kind === 'file' && last.total).toBe(result.written.length);
    expect(core.getSettings().exportFolder).toBe(out);
  });

  test('only the chosen runs are written', async () => {
    const out = join(tmp, 'export-one');
    const { result } = await runExport(['run2'], out);
    expect(result.written.length).toBeGreaterThan(3);
    expect(result.written.every((f) => f.path.startsWith(join(out, 'run2')))).toBe(true);
    expect(readdirSync(out)).toEqual(['run2']);
  });

  test('a file that cannot be written is listed as failed and the rest are written', async () => {
    const out = join(tmp, 'export-partial');
    // A folder where run1's CSV should go: that one file cannot be renamed into place.
    mkdirSync(join(out, 'run1', 'metrics_long.csv'), { recursive: true });
    const { files, result } = await runExport(['run1'], out);
    expect(result.failed.map((f) => f.path)).toEqual([join(out, 'run1', 'metrics_long.csv')]);
    expect(result.written.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        join(out, 'run1', 'metrics_wide.csv'),
        join(out, 'run1', 'training_metrics.json'),
      ]),
    );
    expect(result.written.map((f) => f.path)).not.toContain(join(out, 'run1', 'metrics_long.csv'));
    expect(files.filter((p) => p.kind === 'file' && !p.ok)).toHaveLength(1);
  });

  test('a folder inside the open folder, a relative folder or an unknown run is refused, nothing written', async () => {
    const inside = join(root, 'run1', 'exports');
    expect(await dispatch(h, 'export.run', { runs: ['run1'], folder: inside })).toMatchObject({
      ok: false,
      error: { code: 'bad-request', message: expect.stringContaining('never writes into a run folder') },
    });
    expect(readdirSync(join(root, 'run1'))).toEqual(['events.out.tfevents.1.a']);
    expect(await dispatch(h, 'export.run', { runs: ['run1'], folder: 'relative/out' })).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
    expect(await dispatch(h, 'export.run', { runs: ['nope'], folder: join(tmp, 'x') })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
    expect(await dispatch(h, 'export.run', { runs: [], folder: join(tmp, 'x') })).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
  });

  test('with no folder open it is unavailable', async () => {
    const idle = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    const ih = createHandlers(idle);
    expect(await dispatch(ih, 'export.run', { runs: ['run1'], folder: join(tmp, 'y') })).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    // No picker in serve mode either.
    expect(await dispatch(ih, 'dialog.pickFolder', {})).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    await idle.dispose();
  });
});

describe('dialog.pickFolder', () => {
  test('asks the host picker, starting at the remembered export folder', async () => {
    core.setSettings({ exportFolder: join(tmp, 'last') });
    expect(await dispatch(h, 'dialog.pickFolder', {})).toEqual({
      ok: true,
      value: { path: join(tmp, 'picked') },
    });
    expect(picked.at(-1)).toBe(join(tmp, 'last'));
  });
});
