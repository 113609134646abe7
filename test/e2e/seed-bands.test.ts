// End to end: 2 configs × 3 seeds overlaid; "Seed groups" draws each config as a mean line with a filled band, says the
// band's meaning and where a group thins out, reads the group in the hover, and turning it off restores the 6 lines.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { BAND_MEANING } from '../../src/shared/compare/group-stats';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const CONFIGS = [
  { name: 'lr0.1', lr: 0.1, base: 0 },
  { name: 'lr0.01', lr: 0.01, base: 8 },
];
const SEEDS = [0, 1, 2];
/** Every run logs to step 990 except this one, which stops at 600 (its group thins out there). */
const SHORT = 'lr0.01_seed2';
const LAST = (run: string): number => (run === SHORT ? 600 : 990);
/** A learning curve with a per-seed wiggle: which seed is lowest changes along the run. */
const reward = (base: number, seed: number, step: number): number =>
  base + 10 * (1 - Math.exp(-step / 300)) + 1.5 * Math.sin(step / 47 + seed * 2.1) + seed * 0.6;
/** A run's value at x as the band sees it: linear between the logged points (float32 in the event file). */
function loggedAt(base: number, seed: number, last: number, x: number): number {
  if (x < 0 || x > last) return NaN;
  const s0 = Math.min(last - 10, Math.floor(x / 10) * 10);
  const y0 = Math.fround(reward(base, seed, s0));
  const y1 = Math.fround(reward(base, seed, s0 + 10));
  return y0 + ((y1 - y0) * (x - s0)) / 10;
}
const RUNS = CONFIGS.flatMap((c) => SEEDS.map((s) => `${c.name}_seed${s}`));

/** One figure's chart state: dataset labels, and the band plugin's fills with a pixel read inside each. */
interface BandRead {
  labels: string[];
  fills: {
    x: number[];
    lower: number[];
    upper: number[];
    insideAlpha: number[];
    drops: { k: number; after: number }[];
  }[];
}

async function readBands(page: Page, tag: string): Promise<BandRead> {
  return page.evaluate((t) => {
    interface ChartLike {
      canvas: HTMLCanvasElement;
      currentDevicePixelRatio: number;
      data: { datasets: { label?: string }[] };
      config: { plugins: { id: string; state?: unknown }[] };
      scales: Record<string, { getPixelForValue(v: number): number }>;
    }
    const fig = document.querySelector(`figure.chart[data-tag="${t}"]`);
    const charts = (window as unknown as { __rlwatchCharts: () => ChartLike[] }).__rlwatchCharts();
    const chart = charts.find((c) => c.canvas.closest('figure.chart') === fig)!;
    const plugin = chart.config.plugins.find((p) => p.id === 'rlwatchSeedBands')!;
    const state = plugin.state as {
      fills: {
        x: Float64Array;
        lower: Float64Array;
        upper: Float64Array;
        drops: { k: number; after: number }[];
      }[];
    };
    const ctx = chart.canvas.getContext('2d')!;
    const dpr = chart.currentDevicePixelRatio;
    return {
      labels: chart.data.datasets.map((d) => d.label ?? ''),
      fills: state.fills.map((f) => {
        // A pixel a quarter of the way from the lower edge to the upper one (clear of the mean line in the middle).
        const insideAlpha: number[] = [];
        for (const i of [40, 60, 80, 100, 120]) {
          const px = chart.scales.x!.getPixelForValue(f.x[i]!);
          const lo = chart.scales.y!.getPixelForValue(f.lower[i]!);
          const hi = chart.scales.y!.getPixelForValue(f.upper[i]!);
          const py = lo + (hi - lo) * 0.25;
          insideAlpha.push(ctx.getImageData(Math.round(px * dpr), Math.round(py * dpr), 1, 1).data[3]!);
        }
        return {
          x: Array.from(f.x),
          lower: Array.from(f.lower),
          upper: Array.from(f.upper),
          insideAlpha,
          drops: f.drops,
        };
      }),
    };
  }, tag);
}

describe('seed groups drawn as mean and band', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-seeds-'));
    for (const c of CONFIGS)
      for (const seed of SEEDS) {
        const run = `${c.name}_seed${seed}`;
        const runDir = join(dir, run);
        mkdirSync(runDir);
        writeFileSync(join(runDir, 'config.json'), JSON.stringify({ lr: c.lr, env: 'CartPole-v1', seed }));
        const w = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
        for (let step = 0; step <= LAST(run); step += 10)
          w.scalars(
            step,
            [
              { tag: 'reward', value: reward(c.base, seed, step) },
              { tag: 'loss', value: 5 - reward(c.base, seed, step) / 10 },
            ],
            'simple',
            1_700_000_000 + step,
          );
        w.close();
      }
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, `${url}&check=1`, { width: 1440, height: 900 }));
    await page.locator(`.run-list button[data-run="${RUNS.at(-1)}"]`).waitFor();
    const selected = await page.locator('.run-select[aria-current="true"]').getAttribute('data-run');
    for (const run of RUNS)
      if (run !== selected) await page.getByLabel(`overlay ${run} on the charts`).check();
    // No smoothing (the default is 0.6): the band is checked against the raw values written.
    await page.getByLabel('Smoothing', { exact: true }).evaluate((el) => {
      (el as HTMLInputElement).value = '0';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await seeChart(page, 'reward');
    // (expect.poll is for tests: the page is waited on directly here.)
    await page
      .locator('figure.chart[data-tag="reward"][data-smoothing="0"][data-state="ready"]')
      .and(
        page.locator(`figure.chart[data-run="${[...RUNS].sort().join(',')}"], figure.chart[data-run*=","]`),
      )
      .waitFor();
    await page.waitForFunction(
      () =>
        document.querySelector('figure.chart[data-tag="reward"]')?.getAttribute('data-run')?.split(',')
          .length === 6,
    );
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const legend = (tag: string): Promise<string[]> =>
    page.locator(`figure.chart[data-tag="${tag}"] .chart-legend li`).allInnerTexts();

  test('seed groups on: two group entries per chart, bands between the min and max runs, the meaning stated', async () => {
    await expect.poll(async () => (await legend('reward')).sort()).toEqual([...RUNS].sort());
    await page.getByRole('checkbox', { name: 'Seed groups' }).check();
    for (const tag of ['reward', 'loss']) {
      await seeChart(page, tag);
      await expect
        .poll(async () => (await legend(tag)).sort())
        .toEqual(['lr=0.01 (over seed ×3)', 'lr=0.1 (over seed ×3)']);
      await expect
        .poll(() => page.locator(`figure.chart[data-tag="${tag}"]`).getAttribute('data-seed-groups'))
        .toBe('2');
    }
    const fig = page.locator('figure.chart[data-tag="reward"]');
    const caption = fig.locator('[data-seed-band]');
    await expect.poll(() => caption.innerText()).toContain(BAND_MEANING.minmax);
    // The short run stops at 600: its group is said to thin out to 2 of 3 after the step it last logged.
    await expect.poll(() => caption.innerText()).toContain('lr=0.01: n = 2 of 3 after step 600');
    // Each group's members on hover of its legend entry.
    expect(await fig.locator('.chart-legend li', { hasText: 'lr=0.01' }).getAttribute('title')).toBe(
      'lr=0.01 over seed: lr0.01_seed0, lr0.01_seed1, lr0.01_seed2',
    );

    // The chart's datasets and its canvas follow the legend a frame or more later: read them once drawn.
    let read = await readBands(page, 'reward');
    await expect
      .poll(async () => {
        read = await readBands(page, 'reward');
        const own = read.labels.filter((l) => !l.startsWith('lr=0.1 (') && !l.startsWith('lr=0.01 ('));
        return (
          own.length === 0 &&
          read.fills.length === 2 &&
          read.fills.every((f) => f.insideAlpha.some((a) => a > 20))
        );
      })
      .toBe(true);
    // The runs' own lines are hidden: only the groups' datasets are drawn.
    expect(read.labels.filter((l) => !l.startsWith('lr=0.1 (') && !l.startsWith('lr=0.01 ('))).toEqual([]);
    expect(read.fills).toHaveLength(2);
    // The plot marks where n drops: at step 600, in the short run's group only.
    expect(read.fills.map((f) => f.drops).sort((a, b) => a.length - b.length)).toEqual([
      [],
      [{ k: 2, after: 600 }],
    ]);
    for (const f of read.fills) {
      const c = f.lower[0]! < 5 ? CONFIGS[0]! : CONFIGS[1]!;
      f.x.forEach((x, i) => {
        // min–max: the band runs from the lowest run to the highest one still logging at x.
        const ys = SEEDS.map((seed) => loggedAt(c.base, seed, LAST(`${c.name}_seed${seed}`), x)).filter(
          Number.isFinite,
        );
        expect(f.lower[i]).toBeCloseTo(Math.min(...ys), 6);
        expect(f.upper[i]).toBeCloseTo(Math.max(...ys), 6);
      });
      // The band is filled: pixels inside it are painted (the canvas is transparent elsewhere but lines and grid).
      expect(f.insideAlpha.filter((a) => a > 20).length).toBeGreaterThanOrEqual(4);
    }
  });

  test('the hover readout shows each group as mean [lower, upper] of the values logged at the step read', async () => {
    const box = (await page.locator('figure.chart[data-tag="reward"] canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    const rows = page.locator('figure.chart[data-tag="reward"] .chart-readout-row');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    const texts = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-row') ?? ''));
    const head = await page.locator('figure.chart[data-tag="reward"] .chart-readout-x').innerText();
    const step = Number(/step ([\d,]+)/.exec(head)![1]!.replace(/,/g, ''));
    expect(texts).toHaveLength(2);
    for (const t of texts) {
      // Every run logs every 10 steps: the step read is one they all logged, so no "(interpolated)".
      const m = /^lr=(0\.0?1) \(over seed ×3\): raw (-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]$/.exec(t);
      expect(m, t).not.toBeNull();
      const [mean, lo, hi] = m!.slice(2).map(Number) as [number, number, number];
      const c = CONFIGS.find((k) => String(k.lr) === m![1])!;
      const ys = SEEDS.map((seed) => loggedAt(c.base, seed, LAST(`${c.name}_seed${seed}`), step)).filter(
        Number.isFinite,
      );
      // The logged values' mean and extremes, as written to 4 significant digits (values 0–20: ±0.005).
      const off = (shown: number, exact: number): number => Math.abs(shown - exact);
      expect(off(mean, ys.reduce((a, b) => a + b, 0) / ys.length)).toBeLessThanOrEqual(0.0051);
      expect(off(lo, Math.min(...ys))).toBeLessThanOrEqual(0.0051);
      expect(off(hi, Math.max(...ys))).toBeLessThanOrEqual(0.0051);
    }
    await page.mouse.move(0, 0);
  });

  test('another band kind and IQM: the caption follows; off restores the six run lines', async () => {
    await page.getByLabel('Seed group band').selectOption('std');
    const fig = page.locator('figure.chart[data-tag="reward"]');
    await expect.poll(() => fig.locator('[data-seed-band]').innerText()).toContain(BAND_MEANING.std);
    // The figure for the README: ± std bands (with 3 runs the IQM is the mean, so it is left off here).
    await page.locator('main.content').evaluate((el) => el.scrollTo(0, 0));
    // The toolbar and the reward chart.
    const top = (await page.locator('main.content').boundingBox())!;
    const chart = (await fig.boundingBox())!;
    await saveScreenshot(page, 'seed-bands.png', {
      docs: 'screenshots/seed-bands.png',
      clip: { x: top.x, y: top.y, width: top.width, height: chart.y + chart.height + 8 - top.y },
    });
    await page.getByRole('checkbox', { name: 'IQM' }).check();
    await expect
      .poll(() => fig.locator('[data-seed-band]').innerText())
      .toContain('dashed: interquartile mean');
    await expect
      .poll(async () => (await readBands(page, 'reward')).labels.filter((l) => l.endsWith('(IQM)')).length)
      .toBe(2);

    await page.getByRole('checkbox', { name: 'Seed groups' }).uncheck();
    await expect.poll(async () => (await legend('reward')).sort()).toEqual([...RUNS].sort());
    await expect.poll(() => fig.getAttribute('data-seed-groups')).toBeNull();
    await expect.poll(() => fig.locator('[data-seed-band]').count()).toBe(0);
    await expect.poll(async () => (await readBands(page, 'reward')).labels.sort()).toEqual([...RUNS].sort());
    expect(errors).toEqual([]);
  });
});
