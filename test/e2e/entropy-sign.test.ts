// End to end: SB3 runs (train/entropy_loss = −entropy, no target_kl or entropy_min set) in the window: the runs
// table's entropy column holds the entropy and says so, its sort is the entropy's; no default band is drawn where
// the rule derives its own line (entropy, KL), while a band with no derivation (clip fraction) keeps its default.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

/** Two healthy two-action SB3 PPO runs: entropy from ln 2 down to 0.31 (narrow) or 0.55 (wide). */
const RUNS = { 'ppo-narrow': 0.31, 'ppo-wide': 0.55 } as const;

function progressCsv(end: number): string {
  const keys = ['time/total_timesteps', 'train/approx_kl', 'train/clip_fraction', 'train/entropy_loss'];
  const rows = Array.from({ length: 40 }, (_, i) => {
    const entropy = 0.69 - ((0.69 - end) * i) / 39;
    return [2048 * (i + 1), 0.013, 0.12, -Number(entropy.toFixed(4))].join(',');
  });
  return [keys.join(','), ...rows].join('\n') + '\n';
}

describe('entropy in its own sign, bands only where a line is set', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const figure = (tag: string): Locator => page.locator(`figure.chart[data-tag="${tag}"]`).first();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-entropy-'));
    for (const [run, end] of Object.entries(RUNS)) {
      mkdirSync(join(dir, run));
      writeFileSync(join(dir, run, 'progress.csv'), progressCsv(end));
    }
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, await servedUrl(serve), { width: 1440, height: 900 }));
    await page.locator('.run-select[data-run="ppo-narrow"]').click();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('no entropy_min or target_kl band drawn on a run that set neither; the clip band keeps its default', async () => {
    for (const tag of ['train/entropy_loss', 'train/approx_kl', 'train/clip_fraction'])
      await seeChart(page, tag);
    await page
      .locator('figure.chart[data-tag="train/entropy_loss"][data-state="ready"]')
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => figure('train/clip_fraction').getAttribute('data-band')).toBe('0.1,0.3');
    expect(await figure('train/entropy_loss').getAttribute('data-band')).toBeNull();
    expect(await figure('train/approx_kl').getAttribute('data-band')).toBeNull();
    await figure('train/entropy_loss').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'entropy-sign-charts.png') });
  });

  test('the runs table: entropy column positive, its header says entropy_loss was negated, sorted as entropy', async () => {
    await page.locator('.toolbar label', { hasText: 'Table' }).click();
    const header = page.locator('.runs-table th[data-column="entropy.last"]');
    await header.waitFor();
    expect(await header.getAttribute('title')).toBe(
      'train/entropy_loss is −entropy: shown negated, as entropy',
    );
    expect(await header.innerText()).toMatch(/^entropy \(last\)/);
    const column = (): Promise<string[]> =>
      page.$$eval('.runs-table', (tables) => {
        const table = tables[0] as HTMLTableElement;
        const at = Array.from(table.tHead!.rows[0]!.cells).findIndex(
          (c) => c.getAttribute('data-column') === 'entropy.last',
        );
        return Array.from(table.tBodies[0]!.rows).map((r) => r.cells[at]!.textContent!.trim());
      });
    await header.locator('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(column).toEqual(['0.31', '0.55']);
    await page.screenshot({ path: join(RESULTS, 'entropy-sign-table.png') });
    expect(errors).toEqual([]);
  });
});
