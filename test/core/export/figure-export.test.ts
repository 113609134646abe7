// Headless figures of the demo run and corpus runs: PNGs decode at the asked size, are drawn, titled and legended; SVGs parse.

import { createCanvas, loadImage } from '@napi-rs/canvas';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { exportData, type DataExportOptions } from '../../../src/core/export/export-run';
import { availableParallelism } from 'node:os';
import { encodesAhead, renderFigure, renderFigureAsync } from '../../../src/core/export/figure-render';
import { figureLines } from '../../../src/core/export/figure-series';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { runColor } from '../../../src/shared/charts/chart-theme';
import { figureLayout, TITLE_BAND, type Figure, type Rect } from '../../../src/shared/charts/figure';
import { xmlProblem } from '../../helpers/xml-well-formed';
import { tempDirs } from '../../helpers/temp-dirs';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
const tmp = tempDirs();

interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

async function pixelsOf(png: Buffer): Promise<Pixels> {
  const img = await loadImage(png);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data };
}

const rgb = (hex: string): [number, number, number] => [
  parseInt(hex.slice(1, 3), 16),
  parseInt(hex.slice(3, 5), 16),
  parseInt(hex.slice(5, 7), 16),
];

/** Pixels of `r` (CSS pixels × scale) satisfying `pred` on their RGB. */
function count(p: Pixels, r: Rect, pred: (c: [number, number, number]) => boolean, scale = 1): number {
  let n = 0;
  for (let y = Math.floor(r.y * scale); y < Math.min(p.height, (r.y + r.height) * scale); y++) {
    for (let x = Math.floor(r.x * scale); x < Math.min(p.width, (r.x + r.width) * scale); x++) {
      const i = (y * p.width + x) * 4;
      if (pred([p.data[i]!, p.data[i + 1]!, p.data[i + 2]!])) n++;
    }
  }
  return n;
}
const near = (c: readonly number[], hex: string, tol = 24): boolean =>
  rgb(hex).every((v, k) => Math.abs(v - c[k]!) <= tol);
const luminance = (c: readonly number[]): number => 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;

/** Variance of luminance in the middle of a panel's plot: zero for a blank panel. */
function plotVariance(p: Pixels, r: Rect, scale = 1): number {
  const inner = {
    x: r.x + r.width * 0.2,
    y: r.y + r.height * 0.35,
    width: r.width * 0.7,
    height: r.height * 0.45,
  };
  let n = 0;
  let sum = 0;
  let sq = 0;
  count(
    p,
    inner,
    (c) => {
      const l = luminance(c);
      n++;
      sum += l;
      sq += l * l;
      return false;
    },
    scale,
  );
  return sq / n - (sum / n) ** 2;
}

/** The title band holds drawn text; each panel's plot is not blank and its legend shows the series' colour. */
async function expectStandalone(
  png: Buffer,
  figure: Figure,
  width: number,
  height: number,
  scale = 1,
): Promise<Pixels> {
  const p = await pixelsOf(png);
  expect([p.width, p.height]).toEqual([Math.round(width * scale), Math.round(height * scale)]);
  const background = [p.data[0]!, p.data[1]!, p.data[2]!];
  const differs = (c: readonly number[]): boolean =>
    !near(c, `#${background.map((v) => v.toString(16).padStart(2, '0')).join('')}`, 40);
  expect(count(p, { x: 0, y: 0, width, height: TITLE_BAND }, differs, scale)).toBeGreaterThan(
    100 * scale * scale,
  );
  figureLayout(figure, width, height).forEach((r, i) => {
    expect(plotVariance(p, r, scale)).toBeGreaterThan(1);
    // The legend sits at the panel's top right, above the plot: the series' colour is drawn there.
    // (Below the title and its notes line, when the panel has notes.)
    const legend = { x: r.x + r.width * 0.5, y: r.y + 26, width: r.width * 0.5, height: 44 };
    const colour = runColor(0);
    expect(
      count(p, legend, (c) => near(c, colour), scale),
      `legend of panel ${i}`,
    ).toBeGreaterThan(4);
  });
  return p;
}

function wave(n: number, f: (i: number) => number): ScalarSeries {
  const s = new ScalarSeries(n);
  for (let i = 0; i < n; i++) s.append(i, 1_700_000_000 + i, f(i));
  return s;
}

function oneTagFigure(title: string, s: ScalarSeries): Figure {
  return {
    title,
    subtitle: 'run r',
    panels: [
      {
        title: 'reward',
        spec: {
          view: { xAxis: 'step', logY: false, smoothing: 0 },
          series: [figureLines('r', [s], { xAxis: 'step', smoothing: 0, pixels: 600 })],
          band: null,
        },
      },
    ],
  };
}
const look = { width: 600, height: 340, scale: 1, theme: 'light' as const };

describe('renderFigure', () => {
  test('a PNG at scale 1 and 2 has the asked size, a title band, a drawn plot and a legend', async () => {
    const fig = oneTagFigure(
      'reward — Mean reward',
      wave(5000, (i) => Math.sin(i / 300)),
    );
    await expectStandalone(renderFigure(fig, { ...look, format: 'png' }), fig, 600, 340);
    const double = renderFigure(fig, { ...look, format: 'png', scale: 2 });
    await expectStandalone(double, fig, 600, 340, 2);
    // Its text chunks name the figure and rlwatch, and its density is 2 × 96 dpi (pHYs in pixels per metre).
    expect(double.includes('Software\0rlwatch')).toBe(true);
    expect(double.includes(Buffer.from('reward — Mean reward'))).toBe(true);
    const phys = double.indexOf('pHYs');
    expect(double.readUInt32BE(phys + 4)).toBe(Math.round(192 * 39.3701));
  });

  test('the pixels follow the data and the title (and nothing else: the same input draws the same)', async () => {
    const a = oneTagFigure(
      'A',
      wave(2000, (i) => Math.sin(i / 100)),
    );
    const b = oneTagFigure(
      'A',
      wave(2000, (i) => Math.cos(i / 100)),
    );
    const retitled = oneTagFigure(
      'B',
      wave(2000, (i) => Math.sin(i / 100)),
    );
    const draw = (f: Figure): Promise<Pixels> => pixelsOf(renderFigure(f, { ...look, format: 'png' }));
    const [pa, pa2, pb, pt] = [await draw(a), await draw(a), await draw(b), await draw(retitled)];
    /** Pixels of `r` whose colour differs between two images of one size. */
    const diff = (x: Pixels, y: Pixels, r: Rect): number => {
      let n = 0;
      for (let row = r.y; row < r.y + r.height; row++)
        for (let col = r.x; col < r.x + r.width; col++) {
          const i = (row * x.width + col) * 4;
          if (x.data[i] !== y.data[i] || x.data[i + 1] !== y.data[i + 1] || x.data[i + 2] !== y.data[i + 2])
            n++;
        }
      return n;
    };
    const all = { x: 0, y: 0, width: 600, height: 340 };
    const plot = { x: 0, y: TITLE_BAND, width: 600, height: 340 - TITLE_BAND };
    const band = { x: 0, y: 0, width: 600, height: TITLE_BAND };
    expect(diff(pa, pa2, all)).toBe(0);
    expect(diff(pa, pb, plot)).toBeGreaterThan(500);
    expect(diff(pa, pt, band)).toBeGreaterThan(20);
    expect(diff(pa, pt, plot)).toBe(0);
  });

  test('canvases are reused between figures: a figure drawn after others (sizes, scales, themes, async) is byte-identical', async () => {
    const a = oneTagFigure(
      'A',
      wave(3000, (i) => Math.sin(i / 50)),
    );
    const first = renderFigure(a, { ...look, format: 'png' });
    const twoPanels: Figure = { ...a, panels: [a.panels[0]!, a.panels[0]!] };
    const others = [
      renderFigureAsync(twoPanels, { ...look, format: 'png', theme: 'dark' }),
      renderFigureAsync(a, { ...look, format: 'png', scale: 2 }),
      renderFigureAsync(
        oneTagFigure(
          'C',
          wave(10, () => 1e6),
        ),
        { ...look, format: 'png', theme: 'dark' },
      ),
    ];
    expect(Buffer.compare(await renderFigureAsync(a, { ...look, format: 'png' }), first)).toBe(0);
    await Promise.all(others);
    renderFigure(twoPanels, { ...look, format: 'png', scale: 2, theme: 'dark' });
    expect(Buffer.compare(renderFigure(a, { ...look, format: 'png' }), first)).toBe(0);
  });

  test('PNGs encoded while the next is drawn: one per core, a pool thread left for IO, fewer as figures grow, never none', () => {
    const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    expect(encodesAhead({ width: 1600, height: 900, scale: 1 })).toBe(
      Math.max(1, Math.min(availableParallelism(), poolThreads - 1)),
    );
    expect(encodesAhead({ width: 8192, height: 8192, scale: 1 })).toBe(1);
    expect(encodesAhead({ width: 1600, height: 900, scale: 8 })).toBe(1);
  });

  test('the dark theme has a dark background, the light one a light background', async () => {
    const fig = oneTagFigure(
      't',
      wave(100, (i) => i),
    );
    const dark = await pixelsOf(renderFigure(fig, { ...look, format: 'png', theme: 'dark' }));
    const light = await pixelsOf(renderFigure(fig, { ...look, format: 'png' }));
    expect(luminance([...dark.data.slice(0, 3)])).toBeLessThan(50);
    expect(luminance([...light.data.slice(0, 3)])).toBeGreaterThan(240);
    // Dark everywhere the figure is empty, not just in one corner.
    const corner = { x: 0, y: 340 - 8, width: 600, height: 8 };
    expect(count(dark, corner, (c) => luminance(c) > 80)).toBe(0);
  });

  test('an SVG is well-formed XML with one stroked path per series, in the run colours', () => {
    const fig: Figure = {
      title: 'Comparison <reward> & "more"',
      panels: [
        {
          title: 'reward',
          spec: {
            view: { xAxis: 'step', logY: false, smoothing: 0 },
            series: [0, 1, 2].map((k) =>
              figureLines(`run ${k}`, [wave(3000, (i) => Math.sin(i / 200 + k))], {
                xAxis: 'step',
                smoothing: 0,
                pixels: 600,
              }),
            ),
            band: null,
          },
        },
      ],
    };
    const svg = renderFigure(fig, { ...look, format: 'svg' }).toString('utf8');
    expect(xmlProblem(svg)).toBeNull();
    for (const k of [0, 1, 2]) expect(strokedPaths(svg, runColor(k))).toBe(1);
  });
});

/** `<path` elements whose stroke is `colour` (any case). */
function strokedPaths(svg: string, colour: string): number {
  return svg
    .split('<path')
    .slice(1)
    .filter((p) => p.slice(0, p.indexOf('>')).toLowerCase().includes(`stroke="${colour.toLowerCase()}"`))
    .length;
}

/** `<path` elements stroked or filled with `colour` (any case). */
function paintedPaths(svg: string, colour: string): number {
  const c = colour.toLowerCase();
  return svg
    .split('<path')
    .slice(1)
    .filter((p) => {
      const head = p.slice(0, p.indexOf('>')).toLowerCase();
      return head.includes(`stroke="${c}"`) || head.includes(`fill="${c}"`);
    }).length;
}

describe('the XML check the SVG test relies on', () => {
  test.each([
    ['<svg><g></svg>', /closes/],
    ['<svg a=1/>', /not quoted/],
    ['<svg/><svg/>', /second root/],
    ['<svg>a & b</svg>', /bare &|unknown entity/],
    ['<svg><g a="1" a="2"/></svg>', /twice/],
    ['<svg>', /not closed/],
  ])('%s is refused', (xml, why) => {
    expect(xmlProblem(xml)).toMatch(why);
  });
  test('well-formed XML passes', () => {
    expect(xmlProblem('<?xml version="1.0"?><svg a="&amp;&#60;"><!-- c --><g/>t</svg>\n')).toBeNull();
  });
});

describe('exportData figures', () => {
  let demoRoot = '';
  beforeAll(async () => {
    demoRoot = tmp('rlwatch-figures-demo-');
    await startDemo({ dir: demoRoot, steps: 240, rateHz: 4000, startWallTime: 1_700_000_000 }).done;
  });

  const figureOpts = (out: string, extra: Partial<DataExportOptions> = {}): DataExportOptions => ({
    out,
    csv: false,
    json: false,
    png: true,
    figure: { width: 640, height: 360 },
    ...extra,
  });

  test("the demo run gets seed 003's set and a figure per tag, as PNG and SVG", async () => {
    const out = tmp('rlwatch-figures-out-');
    const events: string[] = [];
    const report = await exportData(demoRoot, {
      ...figureOpts(out, { svg: true, tags: /^(Train\/Loss|reward|approx_kl|entropy|system\/.*)$/ }),
      onFile: (e) => events.push(`${e.kind} ${e.done}/${e.total}`),
    });
    expect(report.failed).toEqual([]);
    const run = join(out, 'ppo_demo');
    for (const name of ['training_progress', 'policy_metrics', 'figures/reward', 'figures/Train__Loss']) {
      expect(existsSync(join(run, `${name}.png`)), name).toBe(true);
      const svg = readFileSync(join(run, `${name}.svg`), 'utf8');
      expect(xmlProblem(svg), name).toBeNull();
      // Panels are nested documents: their clip ids must still be unique in the whole figure.
      const ids = svg
        .split(' id="')
        .slice(1)
        .map((p) => p.slice(0, p.indexOf('"')));
      expect(new Set(ids).size, name).toBe(ids.length);
    }
    expect(events.at(-1)).toBe(`written ${report.written.length}/${report.written.length}`);
    // Two panels (loss, reward) with their titles and legends.
    const png = readFileSync(join(run, 'training_progress.png'));
    const twoPanels: Figure = {
      title: '',
      panels: [0, 1].map(() => ({
        title: '',
        spec: { view: { xAxis: 'step', logY: false, smoothing: 0 }, series: [], band: null },
      })),
    };
    await expectStandalone(png, twoPanels, 640, 360);
  });

  test('a different run draws a different figure', async () => {
    const other = tmp('rlwatch-figures-demo-');
    await startDemo({ dir: other, steps: 240, rateHz: 4000, seed: 7, startWallTime: 1_700_000_000 }).done;
    const [a, b] = [tmp('rlwatch-figures-out-'), tmp('rlwatch-figures-out-')];
    await exportData(demoRoot, figureOpts(a, { tags: /^reward$/ }));
    await exportData(other, figureOpts(b, { tags: /^reward$/ }));
    const reward = (o: string): Promise<Pixels> =>
      pixelsOf(readFileSync(join(o, 'ppo_demo', 'figures', 'reward.png')));
    const [pa, pb] = [await reward(a), await reward(b)];
    let differing = 0;
    for (let i = 0; i < pa.data.length; i += 4) if (pa.data[i] !== pb.data[i]) differing++;
    expect(differing).toBeGreaterThan(500);
  });

  test('corpus runs (CSV, JSON, JSONL, trainer_state, event files, W&B) export figures that decode and are drawn', async () => {
    const out = tmp('rlwatch-figures-corpus-');
    const report = await exportData(fixtures, {
      ...figureOpts(out),
      runs: /^(progress\/(Whomstt|P4P4N1CK|epistoteles|Rusheel86)|tfevents\/0pk0__rl4avs|wandb\/wandb__wandb\/leet-system-stats)/,
      maxTagFigures: 3,
    });
    expect(report.failed).toEqual([]);
    const pngs = report.written.map((w) => w.path).filter((p) => p.endsWith('.png'));
    expect(pngs.some((p) => p.endsWith('/training_progress.png'))).toBe(true);
    expect(pngs.some((p) => p.endsWith('/system.png'))).toBe(true);
    expect(pngs.some((p) => p.endsWith('/evaluation_metrics.png'))).toBe(true);
    expect(pngs.some((p) => p.endsWith('comparison.png'))).toBe(true);
    for (const file of pngs) {
      const p = await pixelsOf(readFileSync(file));
      expect([p.width, p.height], file).toEqual([640, 360]);
      const plot = { x: 0, y: TITLE_BAND, width: 640, height: 360 - TITLE_BAND };
      // A run's own figures draw in the first colour; figures of several runs in each run's look (its index
      // among the folder's runs), so some palette colour.
      const colours = /comparison/.test(file)
        ? Array.from({ length: 8 }, (_, k) => runColor(k))
        : [runColor(0)];
      expect(
        count(p, plot, (c) => colours.some((want) => near(c, want))),
        file,
      ).toBeGreaterThan(0);
    }
  });

  test('comparison overlays the reward of the first eight runs, one path per run in its colour, and says so', async () => {
    const root = tmp('rlwatch-figures-runs-');
    for (let r = 0; r < 9; r++) {
      mkdirSync(join(root, `run${r}`));
      const rows = Array.from({ length: 50 }, (_, i) => `${i},${Math.sin(i / 5 + r)}`).join('\n');
      writeFileSync(join(root, `run${r}`, 'training_metrics.csv'), `step,reward\n${rows}\n`);
    }
    const out = tmp('rlwatch-figures-out-');
    const report = await exportData(root, {
      ...figureOpts(out, { png: false, svg: true, figure: { width: 400, height: 240 } }),
      maxTagFigures: 0,
    });
    expect(report.failed).toEqual([]);
    expect(report.notices).toContain(
      'comparison shows the first 8 runs with a reward; 1 more left out (choose with --runs REGEX)',
    );
    const svg = readFileSync(join(out, 'comparison.svg'), 'utf8');
    expect(xmlProblem(svg)).toBeNull();
    // Runs 0–2 solid, one stroked path each; later runs dashed (Skia writes a dashed line as its outline);
    // run 7 has run 0's colour again, with a dash.
    for (let k = 0; k < 3; k++) expect(strokedPaths(svg, runColor(k)), `run${k}`).toBe(1);
    for (let k = 3; k < 7; k++) expect(paintedPaths(svg, runColor(k)), `run${k}`).toBeGreaterThan(0);
    expect(paintedPaths(svg, runColor(0))).toBeGreaterThan(1);
  });

  test('a figure that cannot be written is named in the report, the rest are written', async () => {
    const out = tmp('rlwatch-figures-out-');
    // `figures` is a file: every per-tag figure fails (ENOTDIR), seed 003's figures are still written.
    mkdirSync(join(out, 'ppo_demo'), { recursive: true });
    writeFileSync(join(out, 'ppo_demo', 'figures'), 'not a folder');
    const report = await exportData(demoRoot, figureOpts(out, { tags: /^(reward|approx_kl)$/ }));
    expect(report.written.map((w) => w.path.slice(out.length + 1)).sort()).toEqual([
      'ppo_demo/policy_metrics.png',
      'ppo_demo/training_progress.png',
    ]);
    // Per-tag figures come by catalog group: reward before policy.
    expect(report.failed.map((f) => f.path.slice(out.length + 1))).toEqual([
      'ppo_demo/figures/reward.png',
      'ppo_demo/figures/approx_kl.png',
    ]);
    for (const f of report.failed) expect(f.message).toMatch(new RegExp(`^cannot write ${f.path}`));
  });

  test('a size out of bounds is refused before anything is written', async () => {
    const out = join(tmp('rlwatch-figures-out-'), 'never');
    await expect(exportData(demoRoot, figureOpts(out, { figure: { width: 100_000 } }))).rejects.toThrow(
      /width must be 1 to 8192/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
