// End to end: `rlwatch demo` writes a live run, `rlwatch serve` hosts it, Chromium shows a chart that grows.

import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { runCli, type CliProcess } from './cli-process';

const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

describe('serve a live demo run in Chromium', () => {
  let demo: CliProcess;
  let serve: CliProcess;
  let browser: Browser;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-'));
    demo = runCli(['demo', dir, '--rate', '40', '--steps', '100000']);
    await demo.waitFor(/writing a simulated PPO run/);
    serve = runCli(['serve', dir, '--port', '0']);
    url = (await serve.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/))[1]!;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await demo?.stop();
  });

  test('the page lists the demo run and a chart gains points while the demo writes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(url);
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
    const card = page.locator('.chart-card[data-tag="approx_kl"]');
    await card.waitFor();
    await page.waitForFunction(
      () =>
        Number(document.querySelector('.chart-card[data-tag="approx_kl"]')?.getAttribute('data-points')) > 0,
    );
    const first = Number(await card.getAttribute('data-points'));
    await page.waitForFunction(
      (n) =>
        Number(document.querySelector('.chart-card[data-tag="approx_kl"]')?.getAttribute('data-points')) >=
        n + 10,
      first,
      { timeout: 30_000 },
    );
    const later = Number(await card.getAttribute('data-points'));
    expect(later).toBeGreaterThanOrEqual(first + 10);
    // Every event-file tag of the demo has its own chart.
    for (const tag of ['Train/Loss', 'Train/KLPenalty', 'entropy', 'clipfrac', 'System/GPU_Utilization']) {
      await page.locator(`.chart-card[data-tag="${tag}"]`).waitFor();
    }
    // The chart's canvas really has pixels drawn (not a blank box).
    const inked = await card.locator('canvas').evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext('2d')!;
      const { data } = ctx.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(100);
    // Let the demo get past its KL blow-up and entropy collapse so the screenshot shows them.
    await page.waitForFunction(
      () =>
        Number(document.querySelector('.chart-card[data-tag="approx_kl"]')?.getAttribute('data-points')) >=
        360,
      undefined,
      { timeout: 60_000 },
    );
    await page.locator('.chart-card[data-tag="approx_kl"]').scrollIntoViewIfNeeded();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard.png') });
    if (process.env.UPDATE_SCREENSHOTS) {
      copyFileSync(
        join(SCREENSHOT_DIR, 'dashboard.png'),
        join(import.meta.dirname, '..', '..', 'docs', 'screenshot.png'),
      );
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  test('without the token the page is refused with 401 and says what to do', async () => {
    const bare = new URL(url);
    bare.search = '';
    const res = await fetch(bare);
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/token/);
    const wrong = new URL(url);
    wrong.searchParams.set('token', 'not-the-token');
    expect((await fetch(wrong)).status).toBe(401);
  });
});
