// End to end: the Distributions section on real event files with histograms (a TF1 GAN's gradient norms, a PyTorch action distribution) and a W&B run's histogram records — bands and a picked step's bars drawn, percentiles as numpy computes them; a model's many per-layer histograms made only once scrolled near, and kept to the tag filter.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { collectErrors, openPage, servedUrl, serveIsolated } from './demo-server';
import { saveScreenshot } from './screenshots';
import { wandbHistogramLog } from '../core/wandb/histogram-run';
import { TrackioDb, trackioHistogram } from '../helpers/tracker-dbs';

const TFEVENTS = join(import.meta.dirname, '..', 'fixtures', 'tfevents');
const ORACLE = join(import.meta.dirname, '..', 'core', 'tfevents', 'histogram_oracle.py');
const GAN = 'events.out.tfevents.111.complex.localdomain';
const RL = 'events.out.tfevents.1756827963.pkMac.local.46956.0';
const TAG = 'gradient/D/norm/histogram';

interface OracleHisto {
  tag: string;
  step: number;
  percentiles: number[];
}

describe('the distributions view', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let want: OracleHisto[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-distributions-'));
    mkdirSync(join(dir, 'histograms'));
    copyFileSync(join(TFEVENTS, 'wandb__wandb', GAN), join(dir, 'histograms', GAN));
    copyFileSync(join(TFEVENTS, '0pk0__rl4avs', RL), join(dir, 'histograms', RL));
    const files = [join(dir, 'histograms', GAN), join(dir, 'histograms', RL)];
    const out = JSON.parse(execFileSync('python3', [ORACLE, ...files]).toString()) as Record<
      string,
      OracleHisto[]
    >;
    want = files.flatMap((f) => out[f]!);
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1280, height: 1000 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const cell = (tag: string): Locator => page.locator(`.distribution-cell[data-tag="${tag}"]`);
  /** Scrolls to a tag's place in the section (a cell past the first ones is made once near) and gives its cell. */
  const reveal = async (tag: string): Promise<Locator> => {
    await page.locator(`.distributions [data-tag="${tag}"]`).scrollIntoViewIfNeeded();
    await cell(tag).waitFor();
    return cell(tag);
  };
  const shownPercentiles = (tag: string): Promise<number[]> =>
    cell(tag)
      .locator('.distribution-percentiles td')
      .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
  /** Pixels of a canvas that are not blank. */
  const inked = (canvas: Locator): Promise<number> =>
    canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
  const expectClose = (got: number[], wanted: number[]): void => {
    expect(got).toHaveLength(9);
    got.forEach((g, i) =>
      expect(Math.abs(g - wanted[i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(wanted[i]!))),
    );
  };

  test('a cell per histogram tag; bands and the newest step drawn, its percentiles as numpy computes them', async () => {
    const section = page.locator('.chart-group.distributions');
    await section.waitFor();
    const tags = [...new Set(want.map((h) => h.tag))].sort();
    // Every tag has its place; only the first few cells exist before any scrolling.
    await expect
      .poll(() =>
        page.$$eval('.distributions [data-tag]', (cells) =>
          cells.map((c) => c.getAttribute('data-tag')).sort(),
        ),
      )
      .toEqual(tags);
    expect(await section.locator('.count').innerText()).toBe(String(tags.length));
    await reveal(TAG);
    const steps = want.filter((h) => h.tag === TAG);
    const newest = steps.at(-1)!;
    await expect.poll(() => cell(TAG).getAttribute('data-step')).toBe(String(newest.step));
    await expect.poll(() => inked(cell(TAG).locator('canvas.distribution-bands'))).toBeGreaterThan(2000);
    await expect.poll(() => inked(cell(TAG).locator('canvas.distribution-bars'))).toBeGreaterThan(200);
    expectClose(await shownPercentiles(TAG), newest.percentiles);
    await expect
      .poll(() => cell(TAG).locator('.note').innerText())
      .toBe(`${steps.length} of ${steps.length} step(s) shown`);
  });

  test('the slider picks a step: its bars redraw, its percentiles match', async () => {
    const steps = want.filter((h) => h.tag === TAG);
    const slider = cell(TAG).getByLabel(`Step of ${TAG}`);
    const bars = cell(TAG).locator('canvas.distribution-bars');
    const before = await bars.evaluate((c: HTMLCanvasElement) => c.toDataURL());
    await slider.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => cell(TAG).getAttribute('data-step')).toBe(String(steps[0]!.step));
    expectClose(await shownPercentiles(TAG), steps[0]!.percentiles);
    // The bars are redrawn a frame after the step changes.
    await expect.poll(() => bars.evaluate((c: HTMLCanvasElement) => c.toDataURL())).not.toBe(before);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => cell(TAG).getAttribute('data-step')).toBe(String(steps[1]!.step));
    expectClose(await shownPercentiles(TAG), steps[1]!.percentiles);
  });

  test('a click on the bands picks the nearest step; the action distribution (one step) draws too', async () => {
    const steps = want.filter((h) => h.tag === TAG);
    const bands = cell(TAG).locator('canvas.distribution-bands');
    const box = (await bands.boundingBox())!;
    // The right edge of the plot: the newest step.
    await bands.click({ position: { x: box.width - 12, y: box.height / 2 } });
    await expect.poll(() => cell(TAG).getAttribute('data-step')).toBe(String(steps.at(-1)!.step));
    const rl = 'PPO/action_distribution';
    await reveal(rl);
    await expect.poll(() => inked(cell(rl).locator('canvas.distribution-bars'))).toBeGreaterThan(100);
    expectClose(await shownPercentiles(rl), want.find((h) => h.tag === rl)!.percentiles);
  });

  test('screenshot', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await cell(TAG).evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect.poll(() => inked(cell(TAG).locator('canvas.distribution-bands'))).toBeGreaterThan(2000);
    await saveScreenshot(page, 'distributions.png', { docs: 'screenshots/distributions.png' });
    expect(errors).toEqual([]);
  });
});

describe('the distributions view of a W&B run', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-distributions-wandb-'));
    const runDir = join(dir, 'wandb', 'run-20260101_000000-histo1');
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, 'run-histo1.wandb'), wandbHistogramLog());
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1280, height: 1000 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test("bins and packedBins histograms draw, the newest step's percentiles as numpy computes them", async () => {
    const log = join(dir, 'wandb', 'run-20260101_000000-histo1', 'run-histo1.wandb');
    const out = JSON.parse(execFileSync('python3', [ORACLE, log]).toString()) as Record<
      string,
      OracleHisto[]
    >;
    const want = out[log]!;
    await page.locator('.chart-group.distributions').waitFor();
    await expect
      .poll(() => page.$$eval('.distribution-cell', (cells) => cells.map((c) => c.getAttribute('data-tag'))))
      .toEqual(['actions', 'grads', 'policy/logits']);
    for (const tag of ['actions', 'grads']) {
      const cell = page.locator(`.distribution-cell[data-tag="${tag}"]`);
      await cell.scrollIntoViewIfNeeded();
      const newest = want.filter((h) => h.tag === tag).at(-1)!;
      await expect.poll(() => cell.getAttribute('data-step')).toBe(String(newest.step));
      const shown = await cell
        .locator('.distribution-percentiles td')
        .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
      shown.forEach((g, i) =>
        expect(Math.abs(g - newest.percentiles[i]!)).toBeLessThanOrEqual(
          1e-9 * Math.max(1, Math.abs(newest.percentiles[i]!)),
        ),
      );
      const inked = (): Promise<number> =>
        cell.locator('canvas.distribution-bars').evaluate((c: HTMLCanvasElement) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
          return n;
        });
      await expect.poll(inked).toBeGreaterThan(200);
    }
    expect(errors).toEqual([]);
  });
});

describe("a model's per-layer histograms", () => {
  const LAYERS = 40;
  const tagOf = (i: number): string => `model/layer_${String(i).padStart(2, '0')}/weights`;
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let histogramGets: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-distributions-layers-'));
    const db = new TrackioDb(join(dir, 'layers.db'));
    const run = { id: 'run-1', name: 'probe' };
    for (let step = 1; step <= 3; step++) {
      const values: Record<string, unknown> = { 'train/loss': 1 / step };
      for (let i = 0; i < LAYERS; i++) values[tagOf(i)] = trackioHistogram([-1, 0, 1], [step + i, 10 - step]);
      db.log(run, step, values, 1_745_000_000_000_000 + step * 1_000_000);
    }
    db.close();
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    // Counted from the page's first load: the listener is on before the page exists, so no socket opened by an
    // earlier load (one still connecting when a reload began) is counted with it.
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    errors = collectErrors(page);
    histogramGets = 0;
    page.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        if (String(f.payload).includes('"histograms.get"')) histogramGets++;
      }),
    );
    await page.goto(url);
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('every layer has its place; cells are made (and ask for their histograms) only once scrolled near', async () => {
    const section = page.locator('.chart-group.distributions');
    await section.waitFor({ timeout: 15_000 });
    await expect.poll(() => section.locator('.count').innerText()).toBe(String(LAYERS));
    expect(await section.locator('[data-tag]').count()).toBe(LAYERS);
    const made = (): Promise<number> => section.locator('.distribution-cell').count();
    expect(await made()).toBeLessThan(LAYERS / 2);
    const last = tagOf(LAYERS - 1);
    await section.locator(`[data-tag="${last}"]`).scrollIntoViewIfNeeded();
    const cell = section.locator(`.distribution-cell[data-tag="${last}"]`);
    await expect.poll(() => cell.getAttribute('data-step')).toBe('3');
    await expect.poll(() => cell.locator('.note').innerText()).toBe('3 of 3 step(s) shown');
    // The cells made are those looked at, not all of them; each asked once (once every made cell has drawn its view).
    await expect.poll(() => section.locator('.distribution-cell:not([data-step])').count()).toBe(0);
    expect(await made()).toBeLessThan(LAYERS);
    await expect.poll(async () => histogramGets - (await made())).toBe(0);
    expect(errors).toEqual([]);
  });

  test('the tag filter keeps the same tags in Distributions as in the charts', async () => {
    const section = page.locator('.chart-group.distributions');
    await page.getByLabel('Filter charts by tag (regular expression)').fill('layer_3');
    await expect.poll(() => section.locator('.count').innerText()).toBe('10');
    const tags = await section
      .locator('[data-tag]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(Array.from({ length: 10 }, (_, i) => tagOf(30 + i)));
    await page.getByLabel('Filter charts by tag (regular expression)').fill('no such tag');
    await expect.poll(() => section.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
