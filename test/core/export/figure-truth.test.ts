// Figures that stand alone (issue 21, points 11–14): alerts headless, words for blank plots, every transform stated, paper needs.

import { createCanvas, loadImage } from '@napi-rs/canvas';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chart, type ChartItem } from 'chart.js';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { runExport } from '../../../src/cli/export-command';
import { chartFigure } from '../../../src/core/app/chart-figure';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { exportData, type DataExportOptions } from '../../../src/core/export/export-run';
import { renderFigure, svgTextRuns } from '../../../src/core/export/figure-render';
import { figureLines } from '../../../src/core/export/figure-series';
import { figureItems, planRunFigures, type FigureRun } from '../../../src/core/export/figure-set';
import { replayAlerts } from '../../../src/core/watch/replay-incident';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { chartConfiguration } from '../../../src/shared/charts/chart-options';
import type { SeriesLines } from '../../../src/shared/charts/chart-spec';
import {
  figureLayout,
  figureTheme,
  panelConfiguration,
  type Figure,
} from '../../../src/shared/charts/figure';
import { emptyMessage, panelNotes } from '../../../src/shared/charts/figure-notes';
import type { OverlayState } from '../../../src/shared/charts/overlay-plugin';
import { parseSettings } from '../../../src/core/app/settings';
import { xmlProblem } from '../../helpers/xml-well-formed';
import { tempDirs } from '../../helpers/temp-dirs';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
const tmp = tempDirs();
const LIGHT = figureTheme('light');

interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
async function pixelsOf(png: Buffer): Promise<Pixels> {
  const img = await loadImage(png);
  const ctx = createCanvas(img.width, img.height).getContext('2d');
  ctx.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data };
}
const rgb = (hex: string): number[] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
/** Pixels within `tol` of `hex` in the rectangle (whole image when omitted). */
function near(
  p: Pixels,
  hex: string,
  r = { x: 0, y: 0, width: p.width, height: p.height },
  tol = 30,
): number {
  const c = rgb(hex);
  let n = 0;
  for (let y = r.y; y < Math.min(p.height, r.y + r.height); y++)
    for (let x = r.x; x < Math.min(p.width, r.x + r.width); x++) {
      const i = (y * p.width + x) * 4;
      if (c.every((v, k) => Math.abs(v - p.data[i + k]!) <= tol)) n++;
    }
  return n;
}
/** Pixels in `r` of an alert marker's colour (red or amber, blended or not): red well above green and blue. */
function alertish(p: Pixels, r: { x: number; y: number; width: number; height: number }): number {
  let n = 0;
  for (let y = r.y; y < Math.min(p.height, r.y + r.height); y++)
    for (let x = r.x; x < Math.min(p.width, r.x + r.width); x++) {
      const i = (y * p.width + x) * 4;
      const [red, green, blue] = [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!];
      if (red - green > 40 && red - blue > 60) n++;
    }
  return n;
}
/** Pixels that differ between two images of one size. */
function differing(a: Pixels, b: Pixels): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4)
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) n++;
  return n;
}

function series(values: readonly number[], from = 0): ScalarSeries {
  const s = new ScalarSeries(values.length, 'f64');
  values.forEach((v, i) => s.append(from + i, 1_700_000_000 + i, v));
  return s;
}
const look = { format: 'png' as const, width: 640, height: 360, scale: 1, theme: 'light' as const };

/** The overlay state chart.js draws for a panel's configuration. */
function overlayOf(spec: Figure['panels'][number]['spec']): OverlayState {
  const plugin = chartConfiguration(spec, LIGHT).plugins![0] as unknown as { state: OverlayState };
  return plugin.state;
}

describe('11: headless figures mark the alerts the window marks', () => {
  let demo = '';
  const saved = process.env.RLWATCH_STORE;
  beforeAll(async () => {
    demo = tmp('rlwatch-fig-alerts-');
    await startDemo({ dir: demo, steps: 400, rateHz: 4000, startWallTime: 1_700_000_000 }).done;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (saved === undefined) delete process.env.RLWATCH_STORE;
    else process.env.RLWATCH_STORE = saved;
  });

  test('`rlwatch export` draws the replayed alerts: the same figure as an export given the alert list', async () => {
    process.env.RLWATCH_STORE = join(tmp('rlwatch-fig-store-'), 'none.sqlite');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cli = tmp('rlwatch-fig-cli-');
    const flags = ['--png', '--tags', '^approx_kl$', '--width', '640', '--height', '360'];
    expect(await runExport([demo, '--out', cli, ...flags])).toBe(0);
    // The window's "Export run…" passes the app's alert list (AlertService.list()): the replay gives the same.
    const replay = await replayAlerts(demo, parseSettings(undefined));
    const alerts = replay.list();
    await replay.close();
    expect(alerts.some((a) => a.tag === 'approx_kl')).toBe(true);
    const window = tmp('rlwatch-fig-window-');
    const opts: DataExportOptions = {
      out: window,
      csv: false,
      json: false,
      png: true,
      tags: /^approx_kl$/,
      figure: { width: 640, height: 360 },
    };
    await exportData(demo, { ...opts, alerts });
    const file = join('ppo_demo', 'figures', 'approx_kl.png');
    const [headless, app] = [
      await pixelsOf(readFileSync(join(cli, file))),
      await pixelsOf(readFileSync(join(window, file))),
    ];
    expect(differing(headless, app)).toBe(0);
    // And the marker is there: the alert colour in the plot, absent without alerts.
    const bare = tmp('rlwatch-fig-bare-');
    await exportData(demo, { ...opts, out: bare });
    const none = await pixelsOf(readFileSync(join(bare, file)));
    const plot = { x: 0, y: 100, width: 640, height: 200 };
    // Alert colours (red, amber) and their anti-aliased edges: a 1.5 px line at a fractional x blends both columns.
    expect(alertish(headless, plot)).toBeGreaterThan(40);
    expect(alertish(none, plot)).toBe(0);
  });
});

describe('12: a blank figure says why; non-finite values are marked on the axis', () => {
  test('a tag with no finite values says "no finite values (20 NaN)" in the plot', async () => {
    const lines = figureLines('r', [series(Array.from({ length: 20 }, () => Number.NaN))], {
      xAxis: 'step',
      smoothing: 0,
      pixels: 600,
    });
    const spec = { view: { xAxis: 'step' as const, logY: false, smoothing: 0 }, series: [lines], band: null };
    expect(emptyMessage([lines], false)).toBe('no finite values (20 NaN)');
    expect(overlayOf(spec).message).toBe('no finite values (20 NaN)');
    // Drawn: ink in the middle of the plot, where an empty plot is blank.
    const fig: Figure = { title: 't', panels: [{ title: 'loss', spec }] };
    const p = await pixelsOf(renderFigure(fig, look));
    const r = figureLayout(fig, 640, 360)[0]!;
    const middle = { x: r.x + 200, y: r.y + 140, width: 240, height: 40 };
    expect(near(p, LIGHT.muted, middle, 60)).toBeGreaterThan(30);
  });

  test('a real run with one NaN loss (scenario d05): the NaN is counted, stated and ticked on the x-axis', async () => {
    const out = tmp('rlwatch-fig-nan-');
    const root = join(fixtures, 'scenarios');
    const report = await exportData(root, {
      out,
      csv: false,
      json: false,
      png: true,
      tags: /^train\/loss$/,
      figure: { width: 640, height: 360 },
    });
    expect(report.failed).toEqual([]);
    const png = await pixelsOf(
      readFileSync(join(out, 'd05_cartpole_ppo_nan_csv', 'figures', 'train__loss.png')),
    );
    // A critical-coloured tick at the bottom edge of the plot (the line itself is the run's blue).
    const plotBottom = { x: 40, y: 300, width: 600, height: 40 };
    expect(near(png, LIGHT.critical, plotBottom, 40)).toBeGreaterThan(3);
  });

  test('notes name the non-finite values; a band off the plotted range is said, not silently dropped', () => {
    const lines = figureLines('r', [series([1, 2, Number.NaN, 3, Number.POSITIVE_INFINITY, 2])], {
      xAxis: 'step',
      smoothing: 0,
      pixels: 600,
    });
    expect(lines.facts).toMatchObject({ points: 6, nan: 1, posInf: 1 });
    const spec = { view: { xAxis: 'step' as const, logY: false, smoothing: 0 }, series: [lines], band: null };
    expect(panelNotes(spec)).toEqual(['1 NaN, 1 +Inf not drawn (marked on the x-axis)']);
    expect(overlayOf(spec).nonFinite!.map((m) => [m.x, m.kind])).toEqual([
      [2, 'nan'],
      [4, 'inf'],
    ]);
    // GPU memory 20–30 % with the outliers ignored: the healthy band below 90 % is off the range.
    const values = [...Array.from({ length: 60 }, (_, i) => 20 + (i % 10)), 95];
    const mem = figureLines('r', [series(values)], { xAxis: 'step', smoothing: 0, pixels: 600 });
    const band = { min: 95, max: null, target: 95 };
    const s2 = {
      view: { xAxis: 'step' as const, logY: false, smoothing: 0, ignoreOutliers: true },
      series: [mem],
      band,
    };
    const fig: Figure = { title: 't', panels: [{ title: 'gpu', spec: s2 }] };
    renderFigure(fig, look); // registers chart.js' parts
    const config = panelConfiguration(fig.panels[0]!, LIGHT);
    const overlay = config.plugins!.find((p) => p.id === 'rlwatchOverlay') as unknown as {
      state: OverlayState;
    };
    new Chart(createCanvas(640, 300) as unknown as ChartItem, config).destroy();
    expect(overlay.state.bandOffScale).toBe('above');
  });
});

describe('13: every transform is written on the figure', () => {
  test('--smoothing 0.9 is stated on the headless figure', () => {
    const r: FigureRun = {
      run: 'r',
      series: new Map([['reward', [series([1, 2, 3, 2, 1])]]]),
      thresholds: {},
    };
    const fig = planRunFigures(r, { smoothing: 0.9, pixels: 600 })
      .figures.find((f) => f.name === 'figures/reward')!
      .build();
    expect(panelNotes(fig.panels[0]!.spec)).toContain('smoothed (EMA 0.9, raw faint)');
    const config = panelConfiguration(fig.panels[0]!, LIGHT, 1, 640);
    expect(config.options!.plugins!.subtitle).toMatchObject({
      display: true,
      text: ['smoothed (EMA 0.9, raw faint)'],
    });
  });

  test('the window\'s "img" with "Ignore outliers" says where it clipped (0.19–0.31 above a 0.185 edge)', () => {
    // Mostly 0.17–0.18, a few values 0.19–0.31: the percentile range clips them at its top edge.
    const values = Array.from({ length: 200 }, (_, i) =>
      i % 40 === 39 ? 0.19 + (i / 200) * 0.12 : 0.17 + (i % 7) * 0.002,
    );
    const window = (run: string, tag: string) => {
      const s = series(values);
      return {
        run,
        tag,
        steps: Float64Array.from(values, (_, i) => i),
        wallTimes: Float64Array.from(values, (_, i) => 1_700_000_000 + i),
        values: Float64Array.from(values),
        length: s.length,
        inRange: s.length,
        downsampled: false,
        extent: { stepMin: 0, stepMax: 199, wallMin: 1_700_000_000, wallMax: 1_700_000_199 },
        restarts: [],
        sessions: [],
        untimed: 0,
      };
    };
    const f = chartFigure(
      {
        runs: () => ['r'],
        window,
        alerts: () => [],
        thresholds: () => ({}),
        scope: () => 'classic',
      },
      {
        runs: ['r'],
        tag: 'clip_fraction',
        view: { xAxis: 'step', logY: false, smoothing: 0, ignoreOutliers: true },
        theme: 'light',
        format: 'png',
        width: 640,
        height: 360,
        scale: 1,
      },
    );
    const notes = panelNotes(f.panels[0]!.spec);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^y clipped to 0\.1\d+ – 0\.1\d+ \(outliers ignored: 5th–95th percentile \+ 10 %\), 5 points past the edge marked$/,
    );
  });
});

describe('14: paper needs', () => {
  test('log y: on every panel or by tag; values ≤ 0 left out are counted', () => {
    const r: FigureRun = {
      run: 'r',
      series: new Map([
        ['loss', [series([1, 0.1, 0, -1, 0.01])]],
        ['reward', [series([1, 2, 3])]],
      ]),
      thresholds: {},
    };
    const panel = (o: Parameters<typeof planRunFigures>[1], name: string) =>
      planRunFigures(r, o)
        .figures.find((f) => f.name === name)!
        .build().panels[0]!;
    const byTag = { smoothing: 0, pixels: 600, logY: /^loss$/ };
    expect(panel(byTag, 'figures/loss').spec.view.logY).toBe(true);
    expect(panel(byTag, 'figures/reward').spec.view.logY).toBe(false);
    expect(panelNotes(panel(byTag, 'figures/loss').spec)).toEqual(['log y: 2 values ≤ 0 not drawn']);
    expect(panel({ smoothing: 0, pixels: 600, logY: true }, 'figures/reward').spec.view.logY).toBe(true);
  });

  test('runs without a reward tag still get comparisons of the tags they share, and are told so', async () => {
    const root = tmp('rlwatch-fig-cmp-');
    for (const r of ['a', 'b']) {
      mkdirSync(join(root, r));
      const rows = Array.from(
        { length: 30 },
        (_, i) => `${i},${Math.exp(-i / (r === 'a' ? 5 : 9))},${i % 3}`,
      );
      writeFileSync(join(root, r, 'training_metrics.csv'), `step,loss,${r}_only\n${rows.join('\n')}\n`);
    }
    const out = tmp('rlwatch-fig-cmp-out-');
    const report = await exportData(root, {
      out,
      csv: false,
      json: false,
      png: true,
      figure: { width: 400, height: 240 },
    });
    expect(report.failed).toEqual([]);
    expect(readdirSync(join(out, 'comparisons'))).toEqual(['loss.png']);
    expect(existsSync(join(out, 'comparison.png'))).toBe(false);
    expect(report.notices).toContain(
      'no comparison figure: no run logs a reward tag (comparisons/ has the tags runs share)',
    );
  });

  test('comparisons/TAG overlays the first 8 runs that log the tag: runs without it take no place', async () => {
    const root = tmp('rlwatch-fig-cmp-many-');
    const names = [
      ...Array.from({ length: 4 }, (_, i) => `plain-${String(i).padStart(2, '0')}`),
      ...Array.from({ length: 9 }, (_, i) => `rewarded-${String(i).padStart(2, '0')}`),
    ];
    for (const [k, r] of names.entries()) {
      mkdirSync(join(root, r));
      const reward = r.startsWith('rewarded');
      const rows = Array.from(
        { length: 20 },
        (_, i) => `${i},${1 / (i + k + 1)}${reward ? `,${i * k}` : ''}`,
      );
      writeFileSync(
        join(root, r, 'metrics.csv'),
        `step,loss${reward ? ',episode_reward' : ''}\n${rows.join('\n')}\n`,
      );
    }
    const out = tmp('rlwatch-fig-cmp-many-out-');
    const report = await exportData(root, {
      out,
      csv: false,
      json: false,
      svg: true,
      figure: { width: 400, height: 240 },
    });
    expect(report.failed).toEqual([]);
    const drawn = (file: string): string[] =>
      names.filter((n) => readFileSync(join(out, 'comparisons', file), 'utf8').includes(`>${n}<`));
    expect(drawn('episode_reward.svg')).toEqual(names.slice(4, 12));
    expect(drawn('loss.svg')).toEqual(names.slice(0, 8));
    expect(report.notices).toContain(
      'comparisons/ overlay the first 8 runs that log each tag; 2 tag(s) had more (up to 5 left out; choose with --runs REGEX)',
    );
  });

  const legendTexts = (config: ReturnType<typeof panelConfiguration>): string[] =>
    (config.options!.plugins!.legend!.labels!.generateLabels as () => { text: string }[])().map(
      (l) => l.text,
    );

  test('legend names are shortened as the sidebar shortens them, keeping what differs, never cut from the left', () => {
    const names = [
      'experiments/results/logs/PPO_debug_seed_0/PPO_1',
      'experiments/results/logs/PPO_debug_seed_0/PPO_2',
    ];
    const spec = {
      view: { xAxis: 'step' as const, logY: false, smoothing: 0 },
      series: names.map(
        (n): SeriesLines => ({
          run: n,
          raw: [
            { x: 0, y: 1 },
            { x: 1, y: 2 },
          ],
          smoothed: [],
        }),
      ),
      band: null,
    };
    const texts = legendTexts(panelConfiguration({ title: 'reward', spec }, LIGHT, 1, 300));
    expect(new Set(texts).size).toBe(2);
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(28);
      expect(t.startsWith('experiments/')).toBe(true);
    }
    expect(texts.map((t) => t.slice(-5))).toEqual(['PPO_1', 'PPO_2']);
    // A wider panel has room for half its width of text per entry: a 1600-px figure's names stay whole.
    expect(legendTexts(panelConfiguration({ title: 'reward', spec }, LIGHT, 1, 1600))).toEqual(names);
  });

  test('an SVG has real <text> (one x per run of text, the title as written): restylable in a paper', () => {
    const lines = figureLines('r', [series([1, 3, 2, 4])], { xAxis: 'step', smoothing: 0, pixels: 600 });
    const fig: Figure = {
      title: 'Policy: KL & <entropy>',
      panels: [
        {
          title: 'approx_kl',
          yTitle: 'KL divergence',
          spec: { view: { xAxis: 'step', logY: false, smoothing: 0 }, series: [lines], band: null },
        },
      ],
    };
    const svg = renderFigure(fig, { ...look, format: 'svg' }).toString('utf8');
    expect(xmlProblem(svg)).toBeNull();
    const texts = [...svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)];
    expect(texts.map((t) => t[2])).toEqual(
      expect.arrayContaining(['Policy: KL &amp; &lt;entropy&gt;', 'approx_kl', 'step']),
    );
    for (const [, attrs] of texts) {
      expect(attrs).toMatch(/ x="-?[\d.]+" y="-?[\d.]+"/);
      expect(attrs).toMatch(/font-family="[^",]+"/);
    }
    expect(svg).toMatch(/<style>text \{ font-family: [^}]*sans-serif; \}<\/style>/);
    expect(svgTextRuns('<text font-family="A" x="1, 2, 3, " y="4, ">ab</text><text x="" y=""></text>')).toBe(
      '<text font-family="A" x="1" y="4">ab</text>',
    );
  });

  test('past the cap, figures come by catalog group (reward, policy, loss first) with per-core system tags as one', async () => {
    const tags = [
      'aaa/other',
      'system/cpu.0.cpu_percent',
      'system/cpu.1.cpu_percent',
      'train/loss',
      'approx_kl',
      'rollout/ep_rew_mean',
    ];
    expect(figureItems(tags).map((i) => i.name)).toEqual([
      'rollout/ep_rew_mean',
      'approx_kl',
      'train/loss',
      'aaa/other',
      'system/cpu.*.cpu_percent',
    ]);
    // W&B's own system-stats fixture: its two cores become one figure (mean, lowest, highest).
    const out = tmp('rlwatch-fig-cores-');
    const report = await exportData(join(fixtures, 'wandb', 'wandb__wandb'), {
      out,
      csv: false,
      json: false,
      png: true,
      runs: /leet-system-stats/,
      figure: { width: 400, height: 240 },
    });
    expect(report.failed).toEqual([]);
    const figures = readdirSync(join(out, 'leet-system-stats__run-20260102_030405-sysstats1', 'figures'));
    expect(figures).toContain('system__cpu.all.cpu_percent.png');
    expect(figures.filter((f) => f.startsWith('system__cpu.0') || f.startsWith('system__cpu.1'))).toEqual([]);
  });

  test('--json writes the JSON data and prints a line; --report json prints the JSON report', async () => {
    const saved = process.env.RLWATCH_STORE;
    process.env.RLWATCH_STORE = join(tmp('rlwatch-fig-store-'), 'none.sqlite');
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (printed.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const runs = join(fixtures, 'progress');
      const base = ['--runs', 'Whomstt', '--tags', '^loss$'];
      const a = tmp('rlwatch-fig-json-');
      expect(await runExport([runs, '--out', a, '--json', ...base])).toBe(0);
      expect(existsSync(join(a, 'Whomstt__Atari-Breakout-DQN', 'training_metrics.json'))).toBe(true);
      expect(printed.join('')).toMatch(/^rlwatch: exported 1 run\(s\)/);
      printed.length = 0;
      const b = tmp('rlwatch-fig-json-');
      expect(await runExport([runs, '--out', b, '--csv', '--report', 'json', ...base])).toBe(0);
      expect(existsSync(join(b, 'Whomstt__Atari-Breakout-DQN', 'training_metrics.json'))).toBe(false);
      expect(JSON.parse(printed.join(''))).toMatchObject({
        runs: ['Whomstt__Atari-Breakout-DQN'],
        failed: [],
      });
    } finally {
      vi.restoreAllMocks();
      if (saved === undefined) delete process.env.RLWATCH_STORE;
      else process.env.RLWATCH_STORE = saved;
    }
  });
});
