// End to end: a serve following an `rlwatch agent` shows that agent's run's samples (Samples view) and histograms
// (Distributions) in Chromium, answered by the agent through the head, with nothing changed in the renderer.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HOSTILE, writeCompletionsJsonl } from '../helpers/samples-fixtures';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { samplesColumn } from './samples-table';

const TOKEN = 'remote-samples-token-0123456789';
const GAN = 'events.out.tfevents.111.complex.localdomain';
const TAG = 'gradient/D/norm/histogram';

describe('a remote run’s samples and histograms in the window', () => {
  const dirs: string[] = [];
  let agent: CliProcess;
  let hub: CliProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let host: string;
  /** Step 30's samples as written (the independent truth for sorting). */
  let big: Record<string, unknown>[];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-remote-samples-'));
    const fx = writeCompletionsJsonl(join(dir, 'grpo'), 300);
    big = readFileSync(fx.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => o.step === 30);
    mkdirSync(join(dir, 'gan'));
    copyFileSync(
      join(import.meta.dirname, '..', 'fixtures', 'tfevents', 'wandb__wandb', GAN),
      join(dir, 'gan', GAN),
    );
    const ag = serveIsolated(dir, { command: 'agent', env: { RLWATCH_TOKEN: TOKEN } });
    agent = ag.serve;
    const agentUrl = await servedUrl(agent);
    host = new URL(agentUrl).host;
    // The hub's own folder is empty: every run it shows is the agent's.
    const own = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-remote-samples-hub-'));
    const hb = serveIsolated(own, { args: ['--remote', agentUrl] });
    hub = hb.serve;
    dirs.push(dir, own, ag.storeDir, hb.storeDir);
    const hubUrl = await servedUrl(hub);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, hubUrl, { width: 1440, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    await agent?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const pane = () => page.locator('.samples-pane').first();
  const count = () => pane().locator('.count').innerText();
  const column = (name: string): Promise<string[]> => samplesColumn(pane(), name);

  test('the Samples view on the remote run: its newest step paged, sorted on the agent, hostile text inert', async () => {
    await page.locator(`.run-select[data-run="${host}//grpo"]`).click();
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await expect.poll(() => count()).toBe('300 samples');
    await expect.poll(() => page.locator('select[aria-label="step"]').inputValue()).toBe('30');
    // The rows and the pager may land a moment after the count.
    await expect.poll(() => pane().locator('.samples-table tbody tr').count()).toBe(100);
    await expect.poll(() => pane().locator('.pager').innerText()).toContain('1–100 of 300');

    const adv = pane().locator('th button', { hasText: 'advantage' });
    await adv.click();
    await expect.poll(() => adv.locator('.arrow').innerText()).toBe('▲');
    await adv.click();
    await expect.poll(() => adv.locator('.arrow').innerText()).toBe('▼');
    const byAdv = [...big].sort((a, b) => (b.advantage as number) - (a.advantage as number));
    await expect
      .poll(async () => (await column('advantage')).map(Number))
      .toEqual(byAdv.slice(0, 100).map((o) => o.advantage));

    await page.locator('select[aria-label="step"]').selectOption('20');
    await expect.poll(() => count()).toBe('8 samples');
    const html = pane()
      .locator('tbody tr', { has: page.locator('td', { hasText: 'hostile html' }) })
      .locator('td.text .cell-text')
      .nth(1);
    expect(await html.innerText()).toBe(HOSTILE.html);
    expect(await pane().locator('.samples-table script, .samples-table img, .samples-table b').count()).toBe(
      0,
    );
    const huge = pane().locator('tbody tr', { has: page.locator('td', { hasText: 'hostile huge' }) });
    expect(await huge.locator('.note').innerText()).toBe('cut at 1 MB when read');
    expect(errors).toEqual([]);
  });

  test('the Distributions section on the remote run draws the agent’s histograms', async () => {
    await page.locator('.toolbar label', { hasText: 'Charts' }).click();
    await page.locator(`.run-select[data-run="${host}//gan"]`).click();
    const cell = page.locator(`.distribution-cell[data-tag="${TAG}"]`);
    await cell.scrollIntoViewIfNeeded();
    await expect.poll(() => cell.getAttribute('data-step')).toBe('900');
    await expect.poll(() => cell.locator('.note').innerText()).toBe('12 of 12 step(s) shown');
    expect(errors).toEqual([]);
  });
});
