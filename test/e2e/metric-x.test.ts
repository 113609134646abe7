// End to end: "x: metric…" draws every chart against a chosen tag (reward = 10 × kl lies on that line, coloured by step),
// says how the pairs were joined, leaves the x tag's own chart out, and switching back to Step restores the step axis.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const RUNS = ['ppo-a', 'ppo-b'] as const;
const STEPS = Array.from({ length: 41 }, (_, i) => i * 10);
const LAST = STEPS.at(-1)!;
/** KL rises and falls (x is not monotonic in step); each run its own phase and level. */
const kl = (run: number, step: number): number =>
  Number((0.01 + 0.02 * Math.abs(Math.sin(step / 60 + run)) + run * 0.005).toPrecision(6));
/** Reward is exactly 10 × KL at every logged step: every drawn point lies on y = 10 x. */
const reward = (run: number, step: number): number => 10 * kl(run, step);

/** kl and reward at steps 0, 10, …; loss only between them (5, 15, …): its pairs need kl interpolated. */
function jsonl(run: number): string {
  const rows: string[] = [];
  for (const step of STEPS) {
    rows.push(
      JSON.stringify({
        _step: step,
        _timestamp: 1_700_000_000 + step,
        'train/kl': kl(run, step),
        'train/reward': reward(run, step),
      }),
    );
    if (step < LAST)
      rows.push(
        JSON.stringify({ _step: step + 5, _timestamp: 1_700_000_005 + step, 'train/loss': 1 - step / 1000 }),
      );
  }
  return rows.join('\n') + '\n';
}

/** What a chart's chart.js instance draws: axis titles, each dataset's points and point colours, and whether the
 * canvas is painted at each point's pixel. */
interface ChartRead {
  xTitle: string;
  yTitle: string;
  xMin: number;
  yType: string;
  datasets: { label: string; data: { x: number; y: number }[]; colours: string[]; painted: number }[];
}

async function readChart(fig: Locator): Promise<ChartRead> {
  return fig.evaluate((figure) => {
    interface ChartLike {
      canvas: HTMLCanvasElement;
      currentDevicePixelRatio: number;
      data: {
        datasets: { label?: string; data: { x: number; y: number }[]; pointBackgroundColor?: unknown }[];
      };
      scales: Record<
        string,
        {
          type: string;
          min: number;
          getPixelForValue(v: number): number;
          options: { title?: { text?: string } };
        }
      >;
    }
    const charts = (window as unknown as { __rlwatchCharts: () => ChartLike[] }).__rlwatchCharts();
    const c = charts.find((ch) => ch.canvas.closest('figure.chart') === figure)!;
    const ctx = c.canvas.getContext('2d')!;
    const dpr = c.currentDevicePixelRatio;
    return {
      xTitle: String(c.scales.x!.options.title?.text ?? ''),
      yTitle: String(c.scales.y!.options.title?.text ?? ''),
      xMin: c.scales.x!.min,
      yType: c.scales.y!.type,
      datasets: c.data.datasets.map((d) => ({
        label: d.label ?? '',
        data: d.data.map((p) => ({ x: p.x, y: p.y })),
        colours: Array.isArray(d.pointBackgroundColor) ? (d.pointBackgroundColor as string[]) : [],
        // Pixels at the drawn points' centres: painted (alpha) where a point is drawn.
        painted: d.data.filter((p) => {
          const px = Math.round(c.scales.x!.getPixelForValue(p.x) * dpr);
          const py = Math.round(c.scales.y!.getPixelForValue(p.y) * dpr);
          return ctx.getImageData(px, py, 1, 1).data[3]! > 100;
        }).length,
      })),
    };
  });
}

describe('any metric as the x axis', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const chart = (tag: string): Locator => page.locator(`figure.chart[data-tag="${tag}"]`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-metric-x-'));
    RUNS.forEach((run, i) => {
      mkdirSync(join(dir, run));
      writeFileSync(join(dir, run, 'metrics.jsonl'), jsonl(i));
    });
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, `${await servedUrl(serve)}&check=1`, {
      width: 1440,
      height: 900,
    }));
    await page.locator(`.run-select[data-run="${RUNS[0]}"]`).click();
    await page.getByLabel(`overlay ${RUNS[1]} on the charts`).check();
    await seeChart(page, 'train/reward');
    await page
      .locator(`figure.chart[data-tag="train/reward"][data-run="${RUNS.join(',')}"][data-state="ready"]`)
      .waitFor({ timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('reward against kl: every point on y = 10 x, in step order, coloured by step; axes titled; pairs said', async () => {
    const select = page.getByLabel('X axis metric');
    // The choice lists the union of the charted runs' tags.
    await expect
      .poll(async () => (await select.locator('option').allInnerTexts()).slice(1))
      .toEqual(['train/kl', 'train/loss', 'train/reward']);
    await select.selectOption('train/kl');
    const fig = page.locator('figure.chart[data-tag="train/reward"][data-xaxis="metric"]');
    await fig.scrollIntoViewIfNeeded();
    await page
      .locator('figure.chart[data-tag="train/reward"][data-xaxis="metric"][data-state="ready"]')
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => fig.getAttribute('data-points')).toBe(String(2 * STEPS.length));
    expect(await fig.getAttribute('data-x-tag')).toBe('train/kl');
    expect(await fig.getAttribute('data-joined')).toBe('same-step');
    // The x tag's own chart is left out (it would be the diagonal); Step is no longer the checked x mode.
    await expect.poll(() => chart('train/kl').count()).toBe(0);
    await expect.poll(() => page.locator('.charts > [data-tag="train/kl"]').count()).toBe(0);
    // …with its group: no heading is left over an empty section.
    const cellsPerGroup = await page
      .locator('section.chart-group')
      .evaluateAll((els) => els.map((e) => e.querySelectorAll('.charts > [data-tag]').length));
    expect(cellsPerGroup.length).toBeGreaterThan(0);
    for (const n of cellsPerGroup) expect(n).toBeGreaterThan(0);
    expect(await page.getByRole('radio', { name: 'Step' }).isChecked()).toBe(false);

    await expect.poll(async () => (await readChart(fig)).datasets.length).toBe(2);
    const read = await readChart(fig);
    expect(read.xTitle).toBe('train/kl');
    expect(read.yTitle).toBe('train/reward');
    RUNS.forEach((run, r) => {
      const d = read.datasets.find((x) => x.label === run)!;
      // In step order: the i-th point is step i × 10's pair, and it lies on the line reward = 10 × kl.
      expect(d.data.map((p) => p.x)).toEqual(STEPS.map((s) => kl(r, s)));
      for (const p of d.data) expect(p.y).toBeCloseTo(10 * p.x, 9);
      // Coloured by step on one viridis scale: dark purple at step 0, yellow at the last, a colour per step.
      expect(d.colours[0]).toBe('#440154');
      expect(d.colours.at(-1)).toBe('#fde725');
      expect(new Set(d.colours).size).toBe(STEPS.length);
      expect(d.painted).toBeGreaterThanOrEqual(d.data.length - 2);
    });
    // Both runs log the same steps: a step has one colour in every run.
    expect(read.datasets[0]!.colours).toEqual(read.datasets[1]!.colours);
    // A metric x axis starts where kl does, not at step 0.
    expect(read.xMin).toBeGreaterThan(0);
    expect(read.xMin).toBeLessThanOrEqual(Math.min(...RUNS.flatMap((_, r) => STEPS.map((s) => kl(r, s)))));

    const foot = fig.locator('.chart-foot');
    expect(await foot.locator('[data-step-legend]').innerText()).toMatch(new RegExp(`^step 0\\s*→ ${LAST}$`));
    expect(await foot.locator('[data-join-note]').innerText()).toBe('pairs logged at the same step');
    expect(await foot.locator('[data-metric-note]').innerText()).toContain('no zoom or linked hover');
    expect(await foot.locator('.chart-legend li').allInnerTexts()).toEqual([...RUNS]);
    expect(await fig.locator('canvas').getAttribute('aria-label')).toBe(
      'train/reward against train/kl, 2 runs',
    );

    // loss is logged between kl's steps: kl is interpolated there, and the caption says so.
    await seeChart(page, 'train/loss');
    const loss = page.locator('figure.chart[data-tag="train/loss"][data-xaxis="metric"][data-state="ready"]');
    await loss.waitFor({ timeout: 30_000 });
    await expect.poll(() => loss.getAttribute('data-joined')).toBe('interpolated');
    expect(await loss.locator('[data-join-note]').innerText()).toBe(
      "train/kl interpolated at this metric's steps",
    );
    // The attribute can change before the chart holds the interpolated pairs: wait for them.
    await expect
      .poll(async () => (await readChart(loss)).datasets.find((x) => x.label === RUNS[0])?.data.length)
      .toBe(STEPS.length - 1);
    const lossRead = await readChart(loss);
    const a = lossRead.datasets.find((x) => x.label === RUNS[0])!;
    // At step 5 kl is halfway between its values at 0 and 10.
    expect(a.data[0]!.x).toBeCloseTo((kl(0, 0) + kl(0, 10)) / 2, 9);
    expect(a.data).toHaveLength(STEPS.length - 1);

    // The figure for the README: the toolbar, reward against kl (same step) and loss against kl (interpolated).
    await page.locator('main.content').evaluate((el) => el.scrollTo(0, 0));
    const top = (await page.locator('main.content').boundingBox())!;
    const bottom = Math.max(
      ...(await Promise.all([fig, loss].map(async (f) => (await f.boundingBox())!))).map(
        (b) => b.y + b.height,
      ),
    );
    await saveScreenshot(page, 'metric-x.png', {
      docs: 'screenshots/metric-x.png',
      clip: {
        x: top.x,
        y: top.y,
        width: top.width,
        height: Math.min(bottom + 8, top.y + top.height) - top.y,
      },
    });
  });

  test('the choice lasts the session (a reload keeps it); Step restores the step axis and the kl chart', async () => {
    await page.reload();
    const fig = page.locator('figure.chart[data-tag="train/reward"][data-xaxis="metric"]');
    await seeChart(page, 'train/reward');
    await fig.waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('X axis metric').inputValue()).toBe('train/kl');
    // Log y redraws the metric chart with a log y scale (every reward here is > 0: all points stay).
    await page.getByRole('checkbox', { name: 'Log y' }).check();
    await expect.poll(async () => (await readChart(fig)).yType).toBe('logarithmic');
    // (The reload keeps the metric, not the overlay: the runs drawn now are those data-run lists.)
    const drawnRuns = (await fig.getAttribute('data-run'))!.split(',').length;
    await expect.poll(() => fig.getAttribute('data-points')).toBe(String(drawnRuns * STEPS.length));
    await page.getByRole('checkbox', { name: 'Log y' }).uncheck();
    await expect.poll(async () => (await readChart(fig)).yType).toBe('linear');

    await page.getByRole('radio', { name: 'Step' }).check();
    const stepFig = page.locator(
      'figure.chart[data-tag="train/reward"][data-xaxis="step"][data-state="ready"]',
    );
    await stepFig.waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('X axis metric').inputValue()).toBe('');
    await seeChart(page, 'train/kl');
    await page.locator('figure.chart[data-tag="train/kl"][data-xaxis="step"]').waitFor({ timeout: 30_000 });
    // Back on steps: the run lines' x are the logged steps, increasing, and the y values are the rewards again.
    await expect
      .poll(async () => {
        const read = await readChart(stepFig);
        return read.datasets.find((d) => d.label === RUNS[0])?.data.map((p) => p.x);
      })
      .toEqual(STEPS);
    const read = await readChart(stepFig);
    const d = read.datasets.find((x) => x.label === RUNS[0])!;
    d.data.forEach((p, i) => expect(p.y).toBeCloseTo(reward(0, STEPS[i]!), 5));
    expect(read.xTitle).not.toBe('train/kl');
    expect(errors).toEqual([]);
  });
});
