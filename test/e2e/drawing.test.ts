// End to end on real runs: every series is a chart in the group its own name says, near-flat draws flat, a lone
// value shows in full, x axes end at the data, titles are cut in the middle, view settings stay with their folder.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { runCli, type CliProcess } from './cli-process';
import { openPage, servedUrl } from './demo-server';
import { seeAllCharts, seeChart } from './lazy-charts';
import { settingsSaved } from './socket-api';

const FIXTURES = fileURLToPath(new URL('../fixtures/progress/', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/rlwatch.js', import.meta.url));

/** Real corpus runs (test/fixtures/progress/ORIGIN.md): an HF Seq2SeqTrainer state (epoch, total_flos, a
 * single train_runtime), a TRL GRPO log (rewards/diversity_reward_fn/mean and /std), a baselines progress.csv
 * whose steps end at 42. */
const REAL = {
  whisper: 'P4P4N1CK__whisper-large-v2-japanese-5k-steps',
  chaos: 'Rusheel86__Chaos-Economy',
  her: 'CS15B001__HER_Improvements',
};

/**
 * A disk gauge that moves in its last bits: 722.51797 → 722.51799 GB, as a W&B run's system disk metric did
 * (issue 21 §7). No corpus run has such a series, so this one is written here, in the W&B history's shape.
 */
const DISK = [722.51797, 722.51797, 722.51798, 722.51798, 722.51799, 722.51799, 722.51798, 722.51799]
  .map((v, step) =>
    JSON.stringify({ _step: step, _timestamp: 1_700_000_000 + 10 * step, 'system/disk_used_gb': v }),
  )
  .join('\n');

describe('drawing and grouping real runs', () => {
  let dir: string;
  let otherDir: string;
  let storeDir: string;
  let serve: CliProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const chart = (tag: string): Locator => page.locator(`figure.chart[data-tag="${tag}"]`);
  const ready = async (tag: string): Promise<void> => {
    await seeChart(page, tag);
    await expect.poll(() => chart(tag).getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
  };
  const start = (folder: string): CliProcess =>
    runCli(['serve', folder, '--port', '0'], { ...process.env, RLWATCH_STORE: join(storeDir, 'rlwatch.db') });
  const openRun = async (run: string): Promise<void> => {
    await page.locator(`.run-select[data-run="${run}"]`).click();
    await expect.poll(() => page.locator('.run-item.selected').getAttribute('data-run')).toBe(run);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-drawing-'));
    otherDir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-drawing-other-'));
    storeDir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-store-'));
    for (const [name, fixture] of Object.entries(REAL))
      cpSync(join(FIXTURES, fixture), join(dir, name), { recursive: true });
    mkdirSync(join(dir, 'disk'));
    writeFileSync(join(dir, 'disk', 'metrics.jsonl'), DISK + '\n');
    cpSync(join(FIXTURES, REAL.her), join(otherDir, 'her'), { recursive: true });
    serve = start(dir);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, await servedUrl(serve), { width: 1280, height: 1000 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    for (const d of [dir, otherDir, storeDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test('every series inspect lists is a chart, grouped by its own name', async () => {
    await openRun('whisper');
    const inspected = JSON.parse(
      execFileSync(process.execPath, [CLI, 'inspect', join(dir, 'whisper'), '--json'], {
        encoding: 'utf8',
      }),
    ) as { runs: { scalars: Record<string, unknown> }[] };
    const tags = Object.keys(inspected.runs[0]!.scalars).sort();
    expect(tags).toEqual(expect.arrayContaining(['epoch', 'total_flos', 'learning_rate', 'loss']));
    await chart('loss').waitFor();
    await seeAllCharts(page);
    const shown = await page.$$eval('.charts > [data-tag]', (els) =>
      els.map((e) => e.getAttribute('data-tag')!),
    );
    expect([...new Set(shown)].sort()).toEqual(tags);
    const inGroup = (group: string, tag: string): Locator =>
      page.locator(`.chart-group[data-group="${group}"] figure.chart[data-tag="${tag}"]`);
    // HF Trainer's counters are progress, not losses and not hidden; the learning rate is the optimizer's.
    expect(await inGroup('Progress', 'epoch').count()).toBe(1);
    expect(await inGroup('Progress', 'total_flos').count()).toBe(1);
    expect(await inGroup('Optimizer', 'learning_rate').count()).toBe(1);
    expect(await inGroup('Loss', 'loss').count()).toBe(1);
  });

  test('a value logged once is labelled in full: 77350.9963, not "77350"', async () => {
    await openRun('whisper');
    await ready('train_runtime');
    await expect.poll(() => chart('train_runtime').getAttribute('data-y-ticks')).toBe('77350.9963');
  });

  test("a change below the data's precision draws flat, with one label that says its value", async () => {
    await openRun('disk');
    const tag = 'system/disk_used_gb';
    await ready(tag);
    await expect.poll(() => chart(tag).getAttribute('data-y-ticks')).toBe('722.518');
    // Room around the value (±10 %), not 722.51797 … 722.51799 stretched over the whole plot.
    const [lo, hi] = (await chart(tag).getAttribute('data-y-range'))!.split(',').map(Number);
    expect(lo).toBeLessThan(700);
    expect(hi).toBeGreaterThan(750);
  });

  test('the x axis ends where the data ends (step 42), not at the next round tick', async () => {
    await openRun('her');
    const tag = 'stats_g/mean';
    await ready(tag);
    await expect
      .poll(async () => (await chart(tag).getAttribute('data-x-range'))!.split(',').map(Number))
      .toEqual([0, 42]);
  });

  test("long titles are cut in the middle: the metric's own name shows, the full tag on hover", async () => {
    await openRun('chaos');
    for (const [tag, tail] of [
      ['rewards/diversity_reward_fn/mean', '/mean'],
      ['rewards/diversity_reward_fn/std', '/std'],
    ] as const) {
      await ready(tag);
      const title = chart(tag).locator('h3.chart-title');
      expect(await title.getAttribute('title')).toBe(tag);
      const box = (await title.boundingBox())!;
      const tailBox = (await title.locator('.chart-title-tail').boundingBox())!;
      expect(await title.locator('.chart-title-tail').innerText()).toBe(tail);
      // The tail is drawn whole inside the title; the head is what gives way (with an ellipsis) when narrow.
      expect(tailBox.x + tailBox.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
      expect(tailBox.width).toBeGreaterThan(10);
    }
    // In a narrow cell the head is cut, not the end (the cell narrowed directly: how wide a viewport makes it
    // narrow depends on the layout's breakpoints).
    const cell = chart('rewards/diversity_reward_fn/mean');
    await cell.evaluate((el) => ((el as HTMLElement).style.width = '200px'));
    const head = cell.locator('.chart-title-head');
    await expect.poll(() => head.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const tail = cell.locator('.chart-title-tail');
    expect((await tail.boundingBox())!.width).toBeGreaterThan(10);
    await cell.evaluate((el) => ((el as HTMLElement).style.width = ''));
    expect(errors).toEqual([]);
  });

  test('the x-axis mode and ignore outliers stay with their folder', async () => {
    await page.locator('.segmented label', { hasText: 'Wall' }).click();
    await page.getByLabel('Ignore outliers').check();
    // Settings are saved after a short pause: wait until the backend has both.
    await settingsSaved(page.url(), { xAxis: 'wall', ignoreOutliers: true });
    await serve.stop();
    // Another folder, the same database: it opens with its own (default) view.
    serve = start(otherDir);
    await page.goto(await servedUrl(serve));
    await page.locator('.run-select[data-run="her"]').waitFor();
    await expect.poll(() => page.getByLabel('Ignore outliers').isChecked()).toBe(false);
    await expect.poll(() => page.locator('.segmented input[value="step"]').isChecked()).toBe(true);
    await serve.stop();
    // Back to the first folder: its view is back.
    serve = start(dir);
    await page.goto(await servedUrl(serve));
    await page.locator('.run-select[data-run="whisper"]').waitFor();
    await expect.poll(() => page.getByLabel('Ignore outliers').isChecked()).toBe(true);
    await expect.poll(() => page.locator('.segmented input[value="wall"]').isChecked()).toBe(true);
  });
});
