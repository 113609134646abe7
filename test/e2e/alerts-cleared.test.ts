// End to end: the demo's story ends with an alert cleared, raised again and cleared again; "Show recently cleared" lists both.

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
    // 100 steps/s: kl-high-reward-falling is raised, cleared, raised and cleared again by step ~460.
    server = await startDemoServer(100);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, server.url));
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('an alert id cleared twice shows as two cleared rows, without a page error', async () => {
    // The page loaded after the story (a reload, a reconnect) gets the alert history with the id twice.
    const show = page.locator('button[aria-controls="cleared-alerts"]');
    const repeatedId = async (): Promise<boolean> => {
      await page.reload();
      await show.waitFor({ timeout: 30_000 });
      await show.click();
      await page.locator('#cleared-alerts li').first().waitFor();
      const ids = await page.$$eval('#cleared-alerts li', (els) =>
        els.map((e) => e.getAttribute('data-alert-id')),
      );
      return new Set(ids).size < ids.length;
    };
    await expect.poll(repeatedId, { timeout: 90_000, interval: 2000 }).toBe(true);
    const label = await show.innerText();
    const listed = Number(/\((\d+)\)/.exec(label)?.[1]);
    expect(await page.locator('#cleared-alerts li').count()).toBe(listed);
    expect(errors).toEqual([]);
  });
});
