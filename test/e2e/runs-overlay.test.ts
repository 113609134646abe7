// End to end: two runs in one folder — arrow keys move through the run list, ctrl-click and the checkbox overlay runs.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { runCli, type CliProcess } from './cli-process';
import { servedUrl, serveIsolated, openPage } from './demo-server';
import { seeChart } from './lazy-charts';

describe('several runs: keyboard selection and overlays', () => {
  let dir: string;
  const demos: CliProcess[] = [];
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-runs-'));
    for (const name of ['a', 'b']) {
      const demo = runCli(['demo', join(dir, name), '--rate', '50', '--steps', '120']);
      demos.push(demo);
      await demo.waitFor(/writing a simulated PPO run/);
    }
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    for (const d of demos) await d.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const current = (): Promise<string | null> =>
    page.locator('.run-select[aria-current="true"]').getAttribute('data-run');

  test('arrow keys move the selection through the run list', async () => {
    await page.locator('.run-select[data-run="b/ppo_demo"]').waitFor();
    // The first run is selected once the list is in, not necessarily in the frame its last entry appears.
    await expect.poll(current).toBe('a/ppo_demo');
    await seeChart(page, 'approx_kl');
    await page.locator('.run-select[data-run="a/ppo_demo"]').focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(current).toBe('b/ppo_demo');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-run')))
      .toBe('b/ppo_demo');
    await expect
      .poll(() => page.locator('figure.chart[data-tag="approx_kl"]').getAttribute('data-run'))
      .toBe('b/ppo_demo');
    await page.keyboard.press('ArrowUp');
    await expect.poll(current).toBe('a/ppo_demo');
  });

  test('ctrl-click overlays a run on the same charts with a legend; the checkbox removes it', async () => {
    await page.locator('.run-select[data-run="b/ppo_demo"]').click({ modifiers: ['Control'] });
    expect(await current()).toBe('a/ppo_demo');
    const kl = page.locator('figure.chart[data-tag="approx_kl"]');
    await expect.poll(() => kl.getAttribute('data-run')).toBe('a/ppo_demo,b/ppo_demo');
    await expect
      .poll(() => page.locator('.run-legend li').allInnerTexts())
      .toEqual(['a/ppo_demo', 'b/ppo_demo']);
    await page.getByLabel('overlay b/ppo_demo on the charts').uncheck();
    await expect.poll(() => kl.getAttribute('data-run')).toBe('a/ppo_demo');
    await expect.poll(() => page.locator('.run-legend').count()).toBe(0);
    await page.getByLabel('overlay b/ppo_demo on the charts').check();
    await expect.poll(() => kl.getAttribute('data-run')).toBe('a/ppo_demo,b/ppo_demo');
    await expect.poll(async () => Number(await kl.getAttribute('data-points'))).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
