// End to end: the run list's selection rules, stated in a hint — click charts one run, ctrl/⌘-click adds or
// removes one, shift-click adds a range — on a five-seed sweep (opened overlaid), as in issue #35.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RUN_SELECTION_HINT } from '../../src/shared/run-selection';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const RUNS = ['PPO_1', 'PPO_2', 'PPO_3', 'PPO_4', 'PPO_5'];

describe('run selection a user can predict', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-selection-'));
    RUNS.forEach((run, seed) => {
      mkdirSync(join(dir, run));
      const rows = Array.from({ length: 30 }, (_, k) => `${k + 1},${(k * (seed + 1)) / 10},${1 / (k + 1)}`);
      writeFileSync(join(dir, run, 'metrics.csv'), ['step,reward,loss', ...rows].join('\n') + '\n');
    });
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, await servedUrl(serve), { width: 1440, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const charted = (): Promise<string | null> =>
    page.locator('figure.chart[data-tag="reward"]').getAttribute('data-run');
  const focused = (): Promise<string | null> =>
    page.locator('.run-select[aria-current="true"]').getAttribute('data-run');
  const row = (run: string) => page.locator(`.run-select[data-run="${run}"]`);

  test('the hint states the rules; click, ctrl-click and shift-click do what it says, dropping no run unasked', async () => {
    await row('PPO_5').waitFor();
    const hint = page.locator('nav.sidebar .selection-hint');
    expect((await hint.textContent())?.trim()).toBe(RUN_SELECTION_HINT);
    await seeChart(page, 'reward');
    // The sweep opens overlaid: all five, PPO_1 focused.
    await expect.poll(charted).toBe(RUNS.join(','));

    // Click: PPO_5 alone (before: PPO_5 with PPO_2..4, PPO_1 silently gone).
    await row('PPO_5').click();
    await expect.poll(focused).toBe('PPO_5');
    await expect.poll(charted).toBe('PPO_5');

    // Ctrl-click adds PPO_1 and keeps PPO_5 focused.
    await row('PPO_1').click({ modifiers: ['Control'] });
    await expect.poll(charted).toBe('PPO_5,PPO_1');
    expect(await focused()).toBe('PPO_5');

    // Shift-click adds the range from the last clicked run (PPO_1) to PPO_3 (before: PPO_3 alone toggled).
    await row('PPO_3').click({ modifiers: ['Shift'] });
    await expect.poll(charted).toBe('PPO_5,PPO_1,PPO_2,PPO_3');

    // Ctrl-click on a charted run removes it, and only it.
    await row('PPO_2').click({ modifiers: ['Control'] });
    await expect.poll(charted).toBe('PPO_5,PPO_1,PPO_3');
    expect(await focused()).toBe('PPO_5');

    await saveScreenshot(page.locator('nav.sidebar'), 'run-selection.png', {
      docs: 'screenshots/run-selection.png',
    });
    expect(errors).toEqual([]);
  });
});
