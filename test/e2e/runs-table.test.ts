// End to end: the runs table view on the tfevents corpus (a copy, each run given a config.json) — a row per run,
// sorting, filter expressions and their errors, equal config keys folded, CSV, and ticked rows overlaid on the charts.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const TFEVENTS = join(import.meta.dirname, '..', 'fixtures', 'tfevents');
/** The corpus runs (inspect's names) with the steps each reached. */
const STEPS: Record<string, number> = {
  '0pk0__rl4avs': 49999,
  'epistoteles__dreamer-goal-conditioned': 5000,
  'gradio-app__trackio': 9,
  'janosh__tensorboard-reducer': 199,
  kubeflow__katib: 9,
  'tensorboard-writer/small': 999,
  'tensorboard-writer/small_perstep': 999,
  'tensorboard-writer/small_tensor': 999,
  wandb__wandb: 16,
};
const RUNS = Object.keys(STEPS);

describe('the runs table view', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-table-'));
    cpSync(TFEVENTS, dir, { recursive: true });
    // Two keys every run shares (folded), two that vary (columns); a text value that is markup stays text.
    RUNS.forEach((run, i) =>
      writeFileSync(
        join(dir, run, 'config.json'),
        JSON.stringify({
          gamma: 0.99,
          optimizer: { name: 'adam' },
          lr: [3e-4, 1e-4, 1e-3][i % 3],
          note: i === 0 ? '<b>baseline</b>' : `seed ${i}`,
        }),
      ),
    );
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
    await page.locator(`.run-list button[data-run="${RUNS.at(-1)}"]`).waitFor();
    await page.locator('.toolbar label', { hasText: 'Table' }).click();
    await page.locator('.runs-table tbody tr').first().waitFor();
    // The three tensorboard-writer runs are a sweep, opened overlaid (#24 part 5): these tests start from one run.
    await page.getByRole('checkbox', { name: /Overlay the sweep/ }).uncheck();
    await page.locator('.run-select[data-run="0pk0__rl4avs"]').click();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const shownRuns = (): Promise<string[]> =>
    page.$$eval('.runs-table tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run') ?? ''));
  const columnTexts = (id: string): Promise<string[]> =>
    page.$$eval(
      '.runs-table',
      (tables, col) => {
        const table = tables[0] as HTMLTableElement;
        const at = Array.from(table.tHead!.rows[0]!.cells).findIndex(
          (c) => c.getAttribute('data-column') === col,
        );
        return Array.from(table.tBodies[0]!.rows).map((r) => r.cells[at]!.textContent!.trim());
      },
      id,
    );
  const header = (id: string): Locator => page.locator(`.runs-table th[data-column="${id}"]`);

  test('one row per run, with its status, steps, key metrics and the varying config keys', async () => {
    await expect.poll(async () => (await shownRuns()).sort()).toEqual([...RUNS].sort());
    const rl = page.locator('.runs-table tr[data-run="0pk0__rl4avs"]');
    // The run list's word for it (just copied: live, as the sidebar's dot says).
    const dot = page.locator('.run-select[data-run="0pk0__rl4avs"] .dot');
    await expect.poll(() => columnTexts('status')).toContain('live');
    await expect
      .poll(async () => {
        const statuses = await columnTexts('status');
        return (
          statuses[(await shownRuns()).indexOf('0pk0__rl4avs')] === (await dot.getAttribute('aria-label'))
        );
      })
      .toBe(true);
    // The config columns may come a moment after the rows.
    await expect.poll(() => header('config.lr').count()).toBe(1);
    expect(await header('config.gamma').count()).toBe(0);
    // Markup in a config value is shown as its text.
    await expect.poll(() => rl.locator('td', { hasText: '<b>baseline</b>' }).count()).toBe(1);
    expect(await rl.locator('b').count()).toBe(0);
    // The header stays on screen while the rows scroll under it.
    expect(await header('run').evaluate((th) => getComputedStyle(th).position)).toBe('sticky');
  });

  test('a header click sorts numbers numerically, again reverses; empty cells stay last', async () => {
    await header('step').locator('button').click();
    await expect.poll(() => header('step').getAttribute('aria-sort')).toBe('ascending');
    await expect
      .poll(async () => (await columnTexts('step')).map(Number))
      .toEqual(Object.values(STEPS).sort((a, b) => a - b));
    await header('step').locator('button').click();
    await expect.poll(() => header('step').getAttribute('aria-sort')).toBe('descending');
    await expect
      .poll(async () => (await columnTexts('step')).map(Number))
      .toEqual(Object.values(STEPS).sort((a, b) => b - a));
    expect(await header('run').getAttribute('aria-sort')).toBe('none');
    // Only one run has a reward: first in both directions, the empty cells after it.
    for (const dir of ['ascending', 'descending']) {
      await header('reward.best').locator('button').click();
      await expect.poll(() => header('reward.best').getAttribute('aria-sort')).toBe(dir);
      await expect.poll(async () => (await shownRuns())[0]).toBe('0pk0__rl4avs');
      expect((await columnTexts('reward.best')).slice(1)).toEqual(Array(RUNS.length - 1).fill('—'));
    }
  });

  test('the filter takes run-name text or an expression on any column; an invalid one says why', async () => {
    const box = page.getByLabel('Filter runs (name, or an expression on any column)');
    await box.fill('TensorBoard');
    await expect.poll(shownRuns).toHaveLength(4);
    await box.fill('tensorboard-writer/');
    await expect.poll(shownRuns).toHaveLength(3);
    await box.fill('steps > 500 && format == tfevents');
    await expect
      .poll(async () => (await shownRuns()).sort())
      .toEqual(RUNS.filter((r) => STEPS[r]! > 500).sort());
    await box.fill('lr < 2e-4 || note ~ "<b>"');
    await expect
      .poll(async () => (await shownRuns()).sort())
      .toEqual(RUNS.filter((_, i) => i % 3 === 1 || i === 0).sort());
    await box.fill('steps >');
    const error = page.locator('#table-filter-error');
    await expect.poll(() => error.innerText()).toBe('Not a filter: expected a value after ">" at the end');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(await shownRuns()).toHaveLength(RUNS.length);
    await box.fill('');
    await expect.poll(() => error.isHidden()).toBe(true);
  });

  test('config keys equal in every run are folded behind a button that lists them', async () => {
    const fold = page.getByRole('button', { name: '2 config keys equal in every run' });
    expect(await fold.getAttribute('aria-expanded')).toBe('false');
    await fold.click();
    await expect.poll(() => fold.getAttribute('aria-expanded')).toBe('true');
    await expect
      .poll(() => page.locator('#equal-keys-list tr').allInnerTexts())
      .toEqual(['gamma\t0.99', 'optimizer.name\tadam']);
  });

  test('CSV saves the rows shown as a spreadsheet-safe table', async () => {
    await page.getByLabel('Filter runs (name, or an expression on any column)').fill('tensorboard-writer');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^rlwatch-e2e-table-\w+-runs\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toMatch(/^run,status,format,steps,points,sessions,start,duration \(s\),/);
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual([
      'tensorboard-writer/small',
      'tensorboard-writer/small_perstep',
      'tensorboard-writer/small_tensor',
    ]);
    await page.getByLabel('Filter runs (name, or an expression on any column)').fill('');
  });

  test('ticked rows are what the charts draw: two runs overlaid', async () => {
    // The first run is selected when the page opens: its row is ticked, and it cannot be the last one unticked.
    const first = page.getByLabel('chart 0pk0__rl4avs', { exact: true });
    expect(await first.isChecked()).toBe(true);
    expect(await first.isDisabled()).toBe(true);
    await page.getByLabel('chart tensorboard-writer/small', { exact: true }).check();
    await page.getByLabel('chart tensorboard-writer/small_perstep', { exact: true }).check();
    await first.uncheck();
    await expect
      .poll(() => page.locator('.runs-table tr.drawn').evaluateAll((trs) => trs.map((t) => t.dataset.run)))
      .toEqual(['tensorboard-writer/small', 'tensorboard-writer/small_perstep']);
    // The README's picture: the longest runs first.
    await header('step').locator('button').click();
    await header('step').locator('button').click();
    await page.setViewportSize({ width: 1920, height: 820 });
    // Scrolled to the config columns: the checkbox and the run's name stay.
    await page.locator('.runs-table-wrap').evaluate((el) => (el.scrollLeft = el.scrollWidth));
    expect(await page.locator('.runs-table tr[data-run="0pk0__rl4avs"] .run-cell').isVisible()).toBe(true);
    await saveScreenshot(page, 'runs-table.png', { docs: 'screenshots/runs-table.png' });
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.locator('.toolbar label', { hasText: 'Charts' }).click();
    await expect.poll(() => page.locator('.runs-table').count()).toBe(0);
    await expect
      .poll(() => page.locator('.run-legend li').allInnerTexts())
      .toEqual(['tensorboard-writer/small', 'tensorboard-writer/small_perstep']);
    await seeChart(page, 'train/metric_00');
    const chart = page.locator('figure.chart[data-tag="train/metric_00"]');
    await expect
      .poll(() => chart.getAttribute('data-run'))
      .toBe('tensorboard-writer/small,tensorboard-writer/small_perstep');
    await expect.poll(async () => Number(await chart.getAttribute('data-points'))).toBeGreaterThan(0);
    // The sidebar agrees: the first is selected, the second overlaid.
    expect(await page.locator('.run-select[aria-current="true"]').getAttribute('data-run')).toBe(
      'tensorboard-writer/small',
    );
    expect(await page.getByLabel('overlay tensorboard-writer/small_perstep on the charts').isChecked()).toBe(
      true,
    );
  });

  test('no page errors', () => {
    expect(errors).toEqual([]);
  });
});
