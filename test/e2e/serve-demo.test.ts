// End to end: `rlwatch demo` writes a live run, `rlwatch serve` hosts it, Chromium shows a chart that grows.

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { collectErrors, startDemoServer, type DemoServer } from './demo-server';
import { seeAllCharts, seeChart } from './lazy-charts';

describe('serve a live demo run in Chromium', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startDemoServer(40);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the page lists the demo run and a chart gains points while the demo writes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors = collectErrors(page);
    await page.goto(server.url);
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
    await seeChart(page, 'approx_kl');
    const chart = page.locator('figure.chart[data-tag="approx_kl"]');
    await chart.waitFor();
    // Charts off screen do not redraw, so their data-points waits until they are visible.
    await chart.scrollIntoViewIfNeeded();
    // (Polled from the test: the page's CSP forbids evaluating strings, so no string waitForFunction.)
    const points = async (): Promise<number> => Number(await chart.getAttribute('data-points'));
    await expect.poll(points, { timeout: 30_000 }).toBeGreaterThan(0);
    const first = await points();
    await expect.poll(points, { timeout: 30_000 }).toBeGreaterThanOrEqual(first + 10);
    // Every event-file tag of the demo has its own chart (created once scrolled to).
    await seeAllCharts(page);
    for (const tag of ['Train/Loss', 'Train/KLPenalty', 'entropy', 'clipfrac', 'System/GPU_Utilization']) {
      await page.locator(`figure.chart[data-tag="${tag}"]`).waitFor();
    }
    // The chart's canvas really has pixels drawn (not a blank box).
    await chart.scrollIntoViewIfNeeded();
    await expect.poll(() => chart.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    await expect
      .poll(
        () =>
          chart.locator('canvas').evaluate((c: HTMLCanvasElement) => {
            const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
            let n = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
            return n;
          }),
        { timeout: 10_000 },
      )
      .toBeGreaterThan(100);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('without the token the page is refused with 401 and says what to do', async () => {
    const bare = new URL(server.url);
    bare.search = '';
    const res = await fetch(bare);
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/token/);
    const wrong = new URL(server.url);
    wrong.searchParams.set('token', 'not-the-token');
    expect((await fetch(wrong)).status).toBe(401);
  });
});
