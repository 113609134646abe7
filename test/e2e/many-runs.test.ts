// End to end: a folder of 450 runs draws 200 rows at first, more as the list's end is scrolled to; keys and filter reach every run.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';

const RUNS = 450;
const name = (i: number): string => `run_${String(i).padStart(3, '0')}`;

describe('a folder of many runs', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-many-'));
    for (let i = 0; i < RUNS; i++) {
      mkdirSync(join(dir, name(i)));
      writeFileSync(join(dir, name(i), 'metrics.csv'), `step,reward\n0,${i}\n1,${i + 1}\n`);
    }
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, await servedUrl(serve), { width: 1440, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const rows = (): Promise<number> => page.locator('.run-select').count();
  const current = (): Promise<string | null> =>
    page.locator('.run-select[aria-current="true"]').getAttribute('data-run');

  test('200 rows are drawn, the count says all 450, and the rest come as the list is scrolled to its end', async () => {
    await expect
      .poll(() => page.locator('.sidebar .panel-title .count').first().textContent())
      .toBe(String(RUNS));
    await expect.poll(rows).toBe(200);
    await expect(page.locator('.more-runs').textContent()).resolves.toContain('250 more runs');
    await page.locator('.more-runs').scrollIntoViewIfNeeded();
    await expect.poll(rows).toBe(400);
    await page.locator('.more-runs').scrollIntoViewIfNeeded();
    await expect.poll(rows).toBe(RUNS);
    expect(await page.locator('.more-runs').count()).toBe(0);
  });

  test('End selects the last run (drawing its row) and the filter finds a run past the first rows', async () => {
    await page.reload();
    await expect.poll(rows).toBe(200);
    await page.locator(`.run-select[data-run="${name(0)}"]`).focus();
    await page.keyboard.press('End');
    await expect.poll(current).toBe(name(RUNS - 1));
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-run')))
      .toBe(name(RUNS - 1));
    await page.locator('.run-filter').fill('run_44');
    await expect.poll(rows).toBe(10);
    expect(errors).toEqual([]);
  });
});
