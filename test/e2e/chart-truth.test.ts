// End to end: charts show what the files say — dots for lone points, flat stays flat, no clipped tick labels,
// legends of drawn runs only, ignore-outliers scaling, double-click reset, button tooltips, the empty-folder screen.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { serveIsolated, openPage } from './demo-server';
import { settingsSaved } from './socket-api';

const URL_LINE = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/;

/**
 * Run alpha, 40 rows: a constant column, a column over five decades, a point between NaNs, an eval metric
 * logged once, one spike in an otherwise quiet column, and a column from 4 to 150 (on a log axis its "100"
 * is a tick chart.js skipped when it sampled the labels to size the axis).
 */
const ALPHA_CSV = [
  'step,flat,wide,gappy,eval_score,spiky,mid',
  ...Array.from({ length: 40 }, (_, k) => {
    const step = k + 1;
    const wide = 10 ** Math.min(5, k);
    const gappy = step === 3 ? '0.7' : 'nan';
    const evalScore = step === 4 ? '0.9' : '';
    const spiky = step === 20 ? 1000 : 1 + 0.05 * Math.sin(step);
    const mid = 4 + (k * 146) / 39;
    return `${step},1.5,${wide},${gappy},${evalScore},${spiky},${mid}`;
  }),
].join('\n');

const BETA_CSV = ['step,other', '1,2', '2,3', '3,2.5'].join('\n');

/** Pixels of the canvas close to an #rrggbb colour (the run's line and dot colour). */
async function pixelsOfColour(chart: Locator, hex: string): Promise<number> {
  return chart.locator('canvas').evaluate((c: HTMLCanvasElement, colour: string) => {
    const want = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3]! < 200) continue;
      if (want.every((w, k) => Math.abs(d[i + k]! - w) < 40)) n++;
    }
    return n;
  }, hex);
}

/** Painted pixels on the canvas's outermost left column and top row: ink there is a label cut by the edge. */
async function inkOnEdges(chart: Locator): Promise<{ left: number; top: number }> {
  return chart.locator('canvas').evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d')!;
    const count = (d: Uint8ClampedArray): number => {
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    };
    return {
      left: count(ctx.getImageData(0, 0, 1, c.height).data),
      top: count(ctx.getImageData(0, 0, c.width, 1).data),
    };
  });
}

describe('charts tell the truth on a small real folder', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const chart = (tag: string): Locator => page.locator(`figure.chart[data-tag="${tag}"]`);
  const ready = async (tag: string): Promise<void> => {
    await expect.poll(() => chart(tag).getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-truth-'));
    mkdirSync(join(dir, 'alpha'));
    mkdirSync(join(dir, 'beta'));
    writeFileSync(join(dir, 'alpha', 'metrics.csv'), ALPHA_CSV + '\n');
    writeFileSync(join(dir, 'beta', 'metrics.csv'), BETA_CSV + '\n');
    ({ serve, storeDir } = serveIsolated(dir));
    const url = (await serve.waitFor(URL_LINE))[1]!;
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 1400 }));
    await page.locator('.run-select[data-run="alpha"]').click();
    await page.locator('figure.chart[data-tag="flat"][data-state="ready"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('a metric logged once and a point between NaNs are drawn as dots', async () => {
    for (const tag of ['eval_score', 'gappy']) {
      await ready(tag);
      await expect.poll(() => chart(tag).getAttribute('data-points')).not.toBe('0');
      // The canvas is drawn a frame after the chart is ready.
      await expect.poll(() => pixelsOfColour(chart(tag), '#0072b2')).toBeGreaterThan(8);
    }
  });

  test('a constant series has one tick label, its value', async () => {
    await expect.poll(() => chart('flat').getAttribute('data-y-ticks')).toBe('1.5');
  });

  test('no tick label is cut by the canvas edge, on a linear or a log y-axis', async () => {
    await ready('wide');
    await ready('mid');
    await expect.poll(() => inkOnEdges(chart('wide'))).toEqual({ left: 0, top: 0 });
    await expect.poll(() => inkOnEdges(chart('mid'))).toEqual({ left: 0, top: 0 });
    await page.getByLabel('Log y').check();
    await expect.poll(() => chart('wide').getAttribute('data-logy')).toBe('true');
    // The log scale's labels, once redrawn (the linear axis also ends at 100000: wait for the whole set).
    const labels = async (): Promise<string[]> =>
      (await chart('wide').getAttribute('data-y-ticks'))!.split('|').filter((l) => l !== '');
    await expect.poll(labels).toEqual(['1', '10', '100', '1000', '10000', '100000']);
    await expect.poll(() => chart('mid').getAttribute('data-y-ticks')).toContain('100');
    await expect.poll(() => inkOnEdges(chart('wide'))).toEqual({ left: 0, top: 0 });
    await expect.poll(() => inkOnEdges(chart('mid'))).toEqual({ left: 0, top: 0 });
    await page.getByLabel('Log y').uncheck();
    await expect.poll(() => chart('wide').getAttribute('data-logy')).toBe('false');
  });

  test('ignore outliers: the y-range leaves the spike out, and the setting survives a reload', async () => {
    await ready('spiky');
    const yMax = async (): Promise<number> =>
      Number((await chart('spiky').getAttribute('data-y-range'))!.split(',')[1]);
    expect(await yMax()).toBeGreaterThanOrEqual(1000);
    await page.getByLabel('Ignore outliers').check();
    await expect.poll(yMax).toBeLessThan(10);
    // Settings are saved after a short pause: wait until the backend has the new one.
    await settingsSaved(page.url(), { ignoreOutliers: true });
    await page.reload();
    await page.locator('.run-select[data-run="alpha"]').click();
    await ready('spiky');
    await expect.poll(() => page.getByLabel('Ignore outliers').isChecked()).toBe(true);
    await expect.poll(yMax).toBeLessThan(10);
    await page.getByLabel('Ignore outliers').uncheck();
    await expect.poll(yMax).toBeGreaterThanOrEqual(1000);
  });

  test('double-click on a plot resets its zoom; the chart buttons have tooltips', async () => {
    const c = chart('wide');
    await c.locator('.chart-box').focus();
    await page.keyboard.press('+');
    await expect.poll(() => c.getAttribute('data-zoomed')).toBe('true');
    await c.locator('canvas').dblclick();
    await expect.poll(() => c.getAttribute('data-zoomed')).toBe('false');
    for (const name of ['Reset zoom', 'Pin chart', 'Export chart']) {
      expect(await c.getByRole('button', { name }).getAttribute('title')).toBeTruthy();
    }
  });

  test('an overlay legend lists only the runs drawn on that chart', async () => {
    await page.locator('.run-select[data-run="beta"]').click({ modifiers: ['Control'] });
    await expect.poll(() => chart('flat').getAttribute('data-run')).toBe('alpha,beta');
    await ready('flat');
    await ready('other');
    await expect.poll(() => chart('flat').locator('.chart-legend li').allInnerTexts()).toEqual(['alpha']);
    await expect.poll(() => chart('other').locator('.chart-legend li').allInnerTexts()).toEqual(['beta']);
    expect(errors).toEqual([]);
  });
});

describe('an empty folder', () => {
  test('says which formats rlwatch reads and how to point a trainer at it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-empty-'));
    const { serve, storeDir } = serveIsolated(dir);
    const browser = await launchChromium();
    try {
      const url = (await serve.waitFor(URL_LINE))[1]!;
      const page = await browser.newPage();
      await page.goto(url);
      const screen = page.locator('.empty-folder');
      await screen.waitFor({ timeout: 15000 });
      // Drawn only once the folder is known: its path is there at once, never a placeholder.
      const text = await screen.innerText();
      expect(text).toContain(dir);
      for (const format of ['TensorBoard', 'CSV', 'JSONL', 'trainer_state.json', 'W&B', 'MLflow', 'trackio'])
        expect(text).toContain(format);
    } finally {
      await browser.close();
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
