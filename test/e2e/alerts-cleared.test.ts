// End to end: the demo's story clears several incidents; "Show recently cleared" lists each once, also after a reload.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { startDemoServer, type DemoServer, openPage } from './demo-server';

describe('recently cleared alerts on the demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    // 100 steps/s: the KL incident and others have cleared by step ~460.
    server = await startDemoServer(100);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, server.url));
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('after a reload each cleared incident is listed once (its own id), without a page error', async () => {
    // The page loaded after the story (a reload, a reconnect) gets the alert history: one row per incident, even
    // though the session and the history both know it (a replayed run used to list "recently cleared (3)").
    const show = page.locator('button[aria-controls="cleared-alerts"]');
    const clearedIds = async (): Promise<string[]> => {
      await page.reload();
      await show.waitFor({ timeout: 30_000 });
      await show.click();
      await page.locator('#cleared-alerts li').first().waitFor();
      return page.$$eval('#cleared-alerts li', (els) =>
        els.map((e) => e.getAttribute('data-alert-id') ?? ''),
      );
    };
    await expect
      .poll(async () => (await clearedIds()).length, { timeout: 90_000, interval: 2000 })
      .toBeGreaterThan(1);
    const ids = await clearedIds();
    expect(new Set(ids).size).toBe(ids.length);
    // The label and the list are read one after the other while the demo runs on: compare them as a pair.
    await expect
      .poll(async () => {
        const listed = Number(/\((\d+)\)/.exec(await show.innerText())?.[1]);
        const rows = await page.locator('#cleared-alerts li').count();
        return rows === listed ? 'same' : `${rows} rows, label says ${listed}`;
      })
      .toBe('same');
    expect(errors).toEqual([]);
  });
});
