// End to end: a Keras-style run whose validation loss went NaN: the epoch summary shows the last finite value, says the rest were NaN, and never wraps a number.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { servedUrl, serveIsolated, openPage } from './demo-server';

const LONG_TAG = 'epoch_mean_episode_reward_over_all_parallel_environments_and_seeds_of_this_run';

describe('the epoch summary of a run with NaN validation loss', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-epoch-'));
    mkdirSync(join(dir, 'keras'));
    writeFileSync(
      join(dir, 'keras', 'metrics.csv'),
      // A long tag name beside a long number: the table squeezed the number's column and broke it.
      `step,epoch_loss,epoch_val_loss,epoch_accuracy,${LONG_TAG}\n` +
        '0,0.9,0.8,0.5,1234567.25\n1,0.7,0.7512345678,0.6,1234568.5\n' +
        '2,0.6,nan,0.7,1234569.75\n3,0.5512345678,nan,0.72,-12345678.125\n',
    );
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    // Narrow: the summary's tables get little room, where numbers used to break mid-number.
    ({ page, errors } = await openPage(browser, url, { width: 900, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('the NaN row shows its last finite value and how many NaN followed', async () => {
    const row = page.locator('.epoch-summary tr[data-tag="epoch_val_loss"]');
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toMatch(/0\.751/);
    expect(text).toMatch(/2 values NaN/);
    expect(text).not.toMatch(/^\s*epoch_val_loss\s+NaN\s*$/);
  });

  test('no number is broken across lines', async () => {
    const heights = await page.$$eval('.epoch-summary td.num', (cells) =>
      cells.map((td) => {
        const text = td.firstChild!;
        const range = document.createRange();
        range.selectNodeContents(text);
        return range.getClientRects().length;
      }),
    );
    expect(heights.length).toBeGreaterThan(0);
    expect(heights.every((lines) => lines === 1)).toBe(true);
    expect(errors).toEqual([]);
  });
});
