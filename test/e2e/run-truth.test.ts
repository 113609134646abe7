// End to end: a live SB3 progress.csv looks live, a crashed W&B run shows its crashed dot, a wrapped config.yaml is all in the table.

import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { servedUrl, serveIsolated, openPage } from './demo-server';

const CRASHED_WANDB = fileURLToPath(
  new URL('../fixtures/wandb/480284856__RLHF_Training/run-20230421_071625-4hjc4zce', import.meta.url),
);

describe('the dashboard tells what the files say', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let writer: ReturnType<typeof setInterval>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-truth-'));
    mkdirSync(join(dir, 'sb3'));
    const csv = join(dir, 'sb3', 'progress.csv');
    writeFileSync(csv, 'time/fps,time/total timesteps,rollout/ep_rew_mean\n500,2048,1\n');
    let row = 2;
    writer = setInterval(() => {
      appendFileSync(csv, `500,${row * 2048},${row}\n`);
      row++;
    }, 500);
    const crashed = join(dir, 'wandb-crashed');
    cpSync(CRASHED_WANDB, crashed, { recursive: true });
    writeFileSync(
      join(crashed, 'files', 'config.yaml'),
      'wandb_version: 1\n\nprompt:\n  desc: null\n  value: You are a helpful assistant. Answer the question below as briefly as you\n    can.\nseed:\n  desc: null\n  value: 42\n',
    );
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1280, height: 800 }));
  });

  afterAll(async () => {
    clearInterval(writer);
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const dot = (run: string) => page.locator(`.run-select[data-run="${run}"] .dot`);

  test('a CSV getting rows stays live: green dot, last event seconds ago, steps from its timestep column', async () => {
    await dot('sb3').waitFor();
    // Long enough that a run announced only at load would read "idle" / an old "last event".
    await page.waitForTimeout(5000);
    await expect.poll(() => dot('sb3').getAttribute('class')).toContain('status-live');
    await expect
      .poll(() => page.locator('.run-select[data-run="sb3"] .fresh').innerText())
      .toMatch(/^last event [0-3] s ago$/);
    await page.locator('.run-select[data-run="sb3"]').click();
    const reward = page.locator('figure.chart[data-tag="rollout/ep_rew_mean"]');
    await expect.poll(async () => Number(await reward.getAttribute('data-points'))).toBeGreaterThan(5);
    expect(await page.locator('figure.chart[data-tag="time/total timesteps"]').count()).toBe(0);
  });

  test('a W&B run that exited with code 1 shows the crashed dot (a red ring), and its whole config', async () => {
    await expect.poll(() => dot('wandb-crashed').getAttribute('class')).toContain('status-crashed');
    expect(await dot('wandb-crashed').getAttribute('aria-label')).toBe('crashed');
    const ring = await dot('wandb-crashed').evaluate((el) => {
      const s = getComputedStyle(el);
      return { border: s.borderTopColor, background: s.backgroundColor };
    });
    const crit = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--crit)';
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    expect(ring.border).toBe(crit);
    expect(ring.background).toBe('rgba(0, 0, 0, 0)');
    await page.locator('.run-select[data-run="wandb-crashed"]').click();
    const table = page.locator('.config-table');
    await expect.poll(() => table.innerText()).toContain('seed');
    expect(await table.innerText()).toContain(
      'You are a helpful assistant. Answer the question below as briefly as you can.',
    );
    expect(errors).toEqual([]);
  });
});
