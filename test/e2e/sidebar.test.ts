// End to end on real W&B runs: distinguishable run names, the run filter, read errors shown, a resizable sidebar, namespace sections and lazy charts.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { servedUrl, serveIsolated, openPage } from './demo-server';

const WANDB = join(import.meta.dirname, '..', 'fixtures', 'wandb');
const BAD_CRC = 'wandb__wandb/leet-wire';
const SYSTEM_RUN = '480284856__RLHF_Training/run-20230420_073822-clnzftry';

describe('the sidebar and chart grid on the W&B corpus', () => {
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let url: string;

  beforeAll(async () => {
    ({ serve, storeDir } = serveIsolated(WANDB));
    url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
    await page.locator(`.run-list button[data-run="${SYSTEM_RUN}"]`).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('every run name is shown distinct and whole enough to fit; the full path is on hover', async () => {
    const names = await page.$$eval('.run-list .run-name', (els) =>
      els.map((e) => ({ text: e.textContent ?? '', cut: e.scrollWidth > e.clientWidth })),
    );
    expect(names.length).toBeGreaterThan(5);
    expect(new Set(names.map((n) => n.text)).size).toBe(names.length);
    expect(names.filter((n) => n.cut)).toEqual([]);
    const title = await page.locator(`.run-list button[data-run="${SYSTEM_RUN}"]`).getAttribute('title');
    expect(title).toBe(`${WANDB}/${SYSTEM_RUN}`);
  });

  test('the filter box narrows the run list', async () => {
    const all = await page.locator('.run-list .run-item').count();
    await page.getByLabel('Filter runs by name').fill('clnz');
    await expect.poll(() => page.locator('.run-list .run-item').count()).toBe(1);
    await page.getByLabel('Filter runs by name').fill('');
    await expect.poll(() => page.locator('.run-list .run-item').count()).toBe(all);
  });

  test('a run with a bad W&B chunk has a badge, and its view lists the error with what was kept', async () => {
    const item = page.locator(`.run-item[data-run="${BAD_CRC}"]`);
    await expect.poll(() => item.locator('.read-error-badge').innerText()).toMatch(/1 read error/);
    expect(await page.locator(`.run-item[data-run="${SYSTEM_RUN}"] .read-error-badge`).count()).toBe(0);
    await item.locator('button.run-select').click();
    const row = page.locator('.read-errors tr[data-kind="bad-data-crc"]');
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toMatch(/bad-crc\.wandb/);
    expect(text).toMatch(/byte \d+/);
    expect(text).toMatch(/\d+ records? read/);
  });

  test('system stats come in namespace sections; the per-core section starts collapsed; charts exist only once seen', async () => {
    await page.locator(`.run-list button[data-run="${SYSTEM_RUN}"]`).click();
    const cpu = page.locator('.namespace-heading[data-section="System:system/cpu"] button');
    await cpu.waitFor();
    expect(await cpu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('.charts > [data-tag="system/cpu.3.cpu_percent"]').count()).toBe(0);
    // Far below the first screen: a placeholder, no chart.js figure (and so no series request).
    const lastGpu = page.locator('.charts [data-tag="system/proc.memory.rssMB"]');
    await lastGpu.waitFor();
    expect(await lastGpu.getAttribute('data-lazy')).toBe('true');
    expect(await page.locator('figure.chart[data-tag="system/proc.memory.rssMB"]').count()).toBe(0);
    await lastGpu.scrollIntoViewIfNeeded();
    await page.locator('figure.chart[data-tag="system/proc.memory.rssMB"]').waitFor();
    // Opening the collapsed section shows its charts.
    await cpu.click();
    await expect.poll(() => cpu.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.locator('.charts > [data-tag="system/cpu.3.cpu_percent"]').count()).toBe(1);
  });

  test('the sidebar is resizable by dragging its edge, and keeps its width after a reload', async () => {
    const side = page.locator('nav.sidebar');
    const before = (await side.boundingBox())!.width;
    const handle = (await page.locator('.sidebar-resizer').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + 200);
    await page.mouse.down();
    await page.mouse.move(handle.x + 120, handle.y + 200, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await side.boundingBox())!.width).toBeGreaterThan(before + 100);
    const after = (await side.boundingBox())!.width;
    await page.reload();
    await page.locator('.run-list .run-item').first().waitFor();
    expect(Math.round((await side.boundingBox())!.width)).toBe(Math.round(after));
  });

  test('no page errors', () => {
    expect(errors).toEqual([]);
  });
});
