// End to end in serve mode: a chart exported from its menu as PNG at 2× and as SVG (downloads), and "Export run…".

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pixelsNear } from '../helpers/pixels';
import { launchChromium } from './browser';
import { runCli, type CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
const RUN_BLUE = [0x00, 0x72, 0xb2]; // the first run's colour (#0072b2)
const chart = (tag: string): string => `figure.chart[data-tag="${tag}"]`;

describe('export from the window (serve mode)', () => {
  let dir: string;
  let outDir: string;
  let demo: CliProcess;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-export-'));
    outDir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-export-out-'));
    mkdirSync(RESULTS, { recursive: true });
    demo = runCli(['demo', dir, '--rate', '100', '--steps', '200']);
    await demo.waitFor(/writing a simulated PPO run/);
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, await servedUrl(serve)));
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
    await seeChart(page, 'approx_kl');
    await page.locator(`${chart('approx_kl')}[data-state="ready"]`).waitFor({ timeout: 15000 });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await demo?.stop();
    for (const d of [dir, outDir, storeDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** Opens the chart's export menu and picks `item`; answers the saved download's bytes and name. */
  async function exportFromMenu(item: string, shot?: string): Promise<{ name: string; bytes: Buffer }> {
    const c = page.locator(chart('approx_kl'));
    await c.getByRole('button', { name: 'Export chart' }).click();
    const menu = c.getByRole('menu');
    await menu.waitFor();
    if (shot) await page.screenshot({ path: join(RESULTS, shot), clip: await menuClip(c) });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      menu.getByRole('menuitem', { name: item }).click(),
    ]);
    const path = join(outDir, `download-${download.suggestedFilename()}`);
    await download.saveAs(path);
    return { name: download.suggestedFilename(), bytes: readFileSync(path) };
  }

  /** The chart and its open menu, for a screenshot. */
  async function menuClip(
    c: ReturnType<Page['locator']>,
  ): Promise<{ x: number; y: number; width: number; height: number }> {
    const box = (await c.boundingBox())!;
    return { x: box.x, y: box.y, width: box.width, height: box.height + 120 };
  }

  test('PNG 2× from the chart menu: twice the default size, titled, drawn in the run colour', async () => {
    const { name, bytes } = await exportFromMenu('Export PNG 2×', 'export-menu.png');
    expect(name).toBe('approx_kl.png');
    const img = await loadImage(bytes);
    expect([img.width, img.height]).toEqual([1920, 1080]);
    expect(await pixelsNear(bytes, RUN_BLUE)).toBeGreaterThan(500);
    // The title band (top 56 CSS px = 112 px) holds text: dark pixels on the light background.
    const ctx = createCanvas(img.width, 112).getContext('2d');
    ctx.drawImage(img, 0, 0);
    const band = ctx.getImageData(0, 0, img.width, 112).data;
    let ink = 0;
    for (let i = 0; i < band.length; i += 4) if (band[i]! < 100 && band[i + 1]! < 100) ink++;
    expect(ink).toBeGreaterThan(200);
    copyFileSync(join(outDir, 'download-approx_kl.png'), join(RESULTS, 'export-approx_kl@2x.png'));
    await expect
      .poll(() =>
        page
          .locator(chart('approx_kl'))
          .getByRole('button', { name: 'Export chart' })
          .getAttribute('data-export-state'),
      )
      .toBe('idle');
  });

  test('Paper PNG: one column at 300 dpi; with Health bands off, no shaded healthy range', async () => {
    // The light theme's healthy band (rgba(22, 163, 74, 0.10)) over the white panel, within ±3 (white is not).
    const shaded = async (png: Buffer): Promise<number> => {
      const im = await loadImage(png);
      const ctx = createCanvas(im.width, im.height).getContext('2d');
      ctx.drawImage(im, 0, 0);
      const d = ctx.getImageData(0, 0, im.width, im.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (Math.abs(d[i]! - 232) <= 3 && Math.abs(d[i + 1]! - 246) <= 3 && Math.abs(d[i + 2]! - 237) <= 3)
          n++;
      return n;
    };
    const on = await exportFromMenu('Paper PNG (3.5 in, 300 dpi)');
    const img = await loadImage(on.bytes);
    expect([img.width, img.height]).toEqual([1050, 788]);
    expect(await pixelsNear(on.bytes, RUN_BLUE)).toBeGreaterThan(100);
    expect(await shaded(on.bytes)).toBeGreaterThan(1000);
    const c = page.locator(chart('approx_kl'));
    await c.getByRole('button', { name: 'Export chart' }).click();
    await c.getByRole('menuitemcheckbox', { name: /Health bands/ }).click();
    await expect.poll(() => c.getByRole('menuitemcheckbox').getAttribute('aria-checked')).toBe('false');
    await c.getByRole('button', { name: 'Export chart' }).click();
    const off = await exportFromMenu('Paper PNG (3.5 in, 300 dpi)');
    expect(await pixelsNear(off.bytes, RUN_BLUE)).toBeGreaterThan(100);
    expect(await shaded(off.bytes)).toBeLessThan(50);
  });

  test('PNG at a chosen size from "size…"', async () => {
    const c = page.locator(chart('approx_kl'));
    await c.getByRole('button', { name: 'Export chart' }).click();
    await c.getByRole('menuitem', { name: 'Export PNG size…' }).click();
    await c.getByLabel('Width in pixels').fill('640');
    await c.getByLabel('Height in pixels').fill('360');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      c.getByRole('button', { name: 'Export PNG' }).click(),
    ]);
    const path = join(outDir, 'sized.png');
    await download.saveAs(path);
    const img = await loadImage(readFileSync(path));
    expect([img.width, img.height]).toEqual([640, 360]);
  });

  test('SVG from the chart menu parses and strokes a path in the run colour', async () => {
    const { name, bytes } = await exportFromMenu('Export SVG');
    expect(name).toBe('approx_kl.svg');
    const text = bytes.toString('utf8');
    // Parsed in a page of its own: the app's CSP (style-src 'self') reports the figure's own <style> as inline
    // style when its page parses it, though nothing of it is applied there.
    const blank = await browser.newPage();
    const parsed = await blank.evaluate((svg) => {
      const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
      const strokes = Array.from(doc.querySelectorAll('path'), (p) =>
        (p.getAttribute('stroke') ?? '').toLowerCase(),
      );
      return {
        root: doc.documentElement.nodeName,
        error: doc.querySelector('parsererror') !== null,
        width: doc.documentElement.getAttribute('width'),
        runPaths: strokes.filter((s) => s === '#0072b2').length,
      };
    }, text);
    await blank.close();
    expect(parsed).toMatchObject({ root: 'svg', error: false, width: '960' });
    expect(parsed.runPaths).toBeGreaterThan(0);
  });

  test('"Export run…" writes the run\'s files into the typed folder and the progress finishes', async () => {
    const target = join(outDir, 'run-export');
    await page.getByRole('button', { name: 'Export run…' }).click();
    await page.getByLabel('Export folder').fill(target);
    await page.screenshot({ path: join(RESULTS, 'export-run-ask.png') });
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const status = page.locator('.run-export');
    await expect.poll(() => status.getAttribute('data-export-run'), { timeout: 15000 }).toBe('done');
    // The last progress event may land after the answer that says done.
    await expect
      .poll(() => status.locator('progress').evaluate((p: HTMLProgressElement) => p.value === p.max))
      .toBe(true);
    const wrote = /Wrote (\d+) files to/.exec(await status.getByRole('status').innerText());
    expect(wrote).not.toBeNull();
    await page.screenshot({ path: join(RESULTS, 'export-run.png'), clip: (await status.boundingBox())! });
    await page.screenshot({ path: join(RESULTS, 'export-window.png') });
    // The data and the figures: seed 003's set and one per tag.
    const names = readdirSync(join(target, 'ppo_demo'));
    expect(names).toEqual(
      expect.arrayContaining([
        'metrics_long.csv',
        'metrics_wide.csv',
        'training_metrics.json',
        'training_progress.png',
        'policy_metrics.png',
        'figures',
      ]),
    );
    const figures = readdirSync(join(target, 'ppo_demo', 'figures'));
    expect(figures).toContain('approx_kl.png');
    expect(Number(wrote![1])).toBe(names.length - 1 + figures.length);
    expect(readFileSync(join(target, 'ppo_demo', 'metrics_long.csv'), 'utf8')).toMatch(/approx_kl/);
    // One figure definition, alerts included: headless `rlwatch export` of the same (finished) demo draws the
    // window's figure, alert marker and all (it replays the folder's alerts as the window raised them).
    const headless = join(outDir, 'headless');
    const cli = runCli(['export', dir, '--out', headless, '--png', '--tags', '^approx_kl$'], {
      ...process.env,
      RLWATCH_STORE: 'memory',
    });
    await cli.waitFor(/exported 1 run/, 60_000);
    await cli.stop();
    const fig = join('ppo_demo', 'figures', 'approx_kl.png');
    const [fromWindow, fromCli] = await Promise.all(
      [join(target, fig), join(headless, fig)].map(async (f) => {
        const img = await loadImage(readFileSync(f));
        const ctx = createCanvas(img.width, img.height).getContext('2d');
        ctx.drawImage(img, 0, 0);
        return ctx.getImageData(0, 0, img.width, img.height).data;
      }),
    );
    let differ = 0;
    for (let i = 0; i < fromWindow!.length; i += 4)
      if (fromWindow![i] !== fromCli![i] || fromWindow![i + 1] !== fromCli![i + 1]) differ++;
    expect(differ).toBe(0);
    // The KL alert's marker: a line in the critical (or warning) colour.
    const png = readFileSync(join(headless, fig));
    const marker = (await pixelsNear(png, [0xdc, 0x26, 0x26])) + (await pixelsNear(png, [0xd9, 0x77, 0x06]));
    expect(marker).toBeGreaterThan(20);
    // The folder is remembered: the next "Export run…" offers it.
    await page.getByRole('button', { name: 'Export run…' }).click();
    await expect.poll(() => page.getByLabel('Export folder').inputValue()).toBe(target);
    await page.getByRole('button', { name: 'Cancel' }).click();
    // Into the run folder itself: refused, and the window says why.
    await page.getByRole('button', { name: 'Export run…' }).click();
    await page.getByLabel('Export folder').fill(join(dir, 'exports'));
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await expect.poll(() => status.getAttribute('data-export-run')).toBe('error');
    expect(await status.getByRole('status').innerText()).toMatch(/never writes into a run folder/);
    // Nothing was written into the run folder.
    const inRunFolder = readdirSync(dir, { recursive: true }).map(String);
    expect(inRunFolder.filter((f) => /metrics_(long|wide)\.csv$/.test(f))).toEqual([]);
    expect(errors).toEqual([]);
  });
});
