// End to end: seed-group rows in the runs table (3 configs × 3 seeds, n and mean ± 95 % CI of the final reward, kept
// together by sorting, folding, charting a group) and parallel coordinates (brushing an axis filters rows, the chip
// clears it, hovering a line marks its row) on that sweep and on the RLHF W&B corpus runs.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { GROUP_CI_RESAMPLES, GROUP_CI_SEED, groupStatText } from '../../src/shared/compare/group-rows';
import { bootstrapMeanCi, seededRandom } from '../../src/shared/compare/group-stats';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const RLHF = join(import.meta.dirname, '..', 'fixtures', 'wandb', '480284856__RLHF_Training');

const CONFIGS = [
  { name: 'lr0.1', lr: 0.1, clip: 0.2, base: 0 },
  { name: 'lr0.03', lr: 0.03, clip: 0.2, base: 6 },
  { name: 'lr0.01', lr: 0.01, clip: 0.1, base: 11 },
];
const SEEDS = [0, 1, 2];
const LAST = 500;
/** A learning curve per config and seed (the seed moves its level), and a KL that falls with the learning rate. */
const reward = (base: number, seed: number, step: number): number =>
  base + 10 * (1 - Math.exp(-step / 150)) + 1.3 * Math.sin(seed * 2.3 + 1) + seed * 0.4;
/** A group's name: the config keys that set it apart from the other groups, by name. */
const labelOf = (c: (typeof CONFIGS)[number]): string => `clip_range=${c.clip}, lr=${c.lr}`;
const RUNS = CONFIGS.flatMap((c) => SEEDS.map((s) => `${c.name}_seed${s}`));
/** The group row's text for a config's final reward: the runs' last values (float32 in the event file). */
function expectedReward(c: (typeof CONFIGS)[number]): string {
  const xs = SEEDS.map((s) => Math.fround(reward(c.base, s, LAST)));
  const [lower, upper] = bootstrapMeanCi(xs, GROUP_CI_RESAMPLES, seededRandom(GROUP_CI_SEED));
  return groupStatText({ n: 3, mean: xs.reduce((a, b) => a + b, 0) / 3, lower, upper })!;
}

/** Rows of the table body in order: `[group]` or the run's name. */
const bodyRows = (page: Page): Promise<string[]> =>
  page.$$eval('.runs-table-wrap tbody tr', (trs) =>
    trs.map((tr) => (tr.classList.contains('group-row') ? `[${tr.dataset.group}]` : (tr.dataset.run ?? ''))),
  );
const runRows = async (page: Page): Promise<string[]> =>
  (await bodyRows(page)).filter((r) => !r.startsWith('['));

/** Drags along an axis of the parallel coordinates from height t0 to t1 (0 at its bottom, 1 at its top). */
async function brush(page: Page, column: string, t0: number, t1: number): Promise<void> {
  const line = (await page.locator(`.pc-axis[data-column="${column}"] line`).boundingBox())!;
  const x = line.x + line.width / 2;
  const y = (t: number): number => line.y + line.height * (1 - t);
  await page.mouse.move(x, y(t0));
  await page.mouse.down();
  await page.mouse.move(x, (y(t0) + y(t1)) / 2, { steps: 3 });
  await page.mouse.move(x, y(t1), { steps: 3 });
  await page.mouse.up();
}

/** For the pictures: the table scrolled sideways so the metric columns sit next to the (sticky) run names. */
async function scrollToMetrics(page: Page): Promise<void> {
  await page.locator('.runs-table-wrap').evaluate((el) => {
    const run = el.querySelector<HTMLElement>('th[data-column="run"]')!;
    const metric = el.querySelector<HTMLElement>('th[data-column="reward.last"]')!;
    el.scrollLeft += metric.getBoundingClientRect().left - run.getBoundingClientRect().right;
  });
}

async function openTable(
  dir: string,
  last: string,
): Promise<{
  serve: CliProcess;
  storeDir: string;
  browser: Browser;
  page: Page;
  errors: string[];
}> {
  const { serve, storeDir } = serveIsolated(dir);
  const url = await servedUrl(serve);
  const browser = await launchChromium();
  const { page, errors } = await openPage(browser, url, { width: 1440, height: 900 });
  await page.locator(`.run-list button[data-run="${last}"]`).waitFor();
  await page.locator('.toolbar label', { hasText: 'Table' }).click();
  await page.locator('.runs-table-wrap tbody tr').first().waitFor();
  return { serve, storeDir, browser, page, errors };
}

describe('seed-group rows and parallel coordinates on a 3 × 3 seed sweep', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-groups-'));
    for (const c of CONFIGS)
      for (const seed of SEEDS) {
        const runDir = join(dir, `${c.name}_seed${seed}`);
        mkdirSync(runDir);
        writeFileSync(
          join(runDir, 'config.json'),
          JSON.stringify({ lr: c.lr, clip_range: c.clip, env: 'CartPole-v1', seed }),
        );
        const w = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
        for (let step = 0; step <= LAST; step += 10)
          w.scalars(
            step,
            [
              { tag: 'reward', value: reward(c.base, seed, step) },
              { tag: 'approx_kl', value: 0.1 * c.lr * (1 + seed / 10) * Math.exp(-step / 400) },
            ],
            'simple',
            1_700_000_000 + step,
          );
        w.close();
      }
    // A run of its own (no seed twin): a row in no group.
    const solo = join(dir, 'baseline');
    mkdirSync(solo);
    writeFileSync(
      join(solo, 'config.json'),
      JSON.stringify({ lr: 0.3, clip_range: 0.3, env: 'CartPole-v1', seed: 0 }),
    );
    const w = new EventFileWriter(solo, { wallTime: 1_700_000_000 });
    for (let step = 0; step <= 300; step += 10)
      w.scalars(step, [{ tag: 'reward', value: step / 100 }], 'simple', 1_700_000_000 + step);
    w.close();
    ({ serve, storeDir, browser, page, errors } = await openTable(dir, RUNS.at(-1)!));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const group = (label: string): Locator => page.locator(`.runs-table tr.group-row[data-group="${label}"]`);

  test('a group row per config: n = 3 and the mean ± 95 % bootstrap CI of the final reward; runs beneath', async () => {
    await expect.poll(() => page.locator('.runs-table tr.group-row').count()).toBe(3);
    for (const c of CONFIGS) {
      const g = group(labelOf(c));
      // A group's row is made before every run's numbers are in: wait for its figures.
      await expect.poll(() => g.locator('.group-n').innerText()).toBe('n = 3');
      await expect.poll(() => g.locator('td[data-column="reward.last"]').innerText()).toBe(expectedReward(c));
      expect(await g.locator('td[data-column="reward.last"]').innerText()).toMatch(
        /^-?[\d.]+ ± \[-?[\d.]+, -?[\d.]+\]$/,
      );
      // The learning rate its runs share is on its row.
      await expect.poll(() => g.locator('td.shared').allInnerTexts()).toContain(String(c.lr));
    }
    const rows = await bodyRows(page);
    for (const c of CONFIGS) {
      const at = rows.indexOf(`[${labelOf(c)}]`);
      expect(rows.slice(at + 1, at + 4).sort()).toEqual(SEEDS.map((s) => `${c.name}_seed${s}`));
    }
    expect(rows).toContain('baseline');
  });

  test('sorting keeps groups together; folding hides a group’s runs; the filter narrows its runs', async () => {
    const header = page.locator('.runs-table th[data-column="reward.last"] button');
    await header.click();
    await header.click();
    // Descending final reward: the best config's block first, its runs within in order.
    await expect.poll(async () => (await bodyRows(page))[0]).toBe('[clip_range=0.1, lr=0.01]');
    const rows = await bodyRows(page);
    expect(rows.filter((r) => r.startsWith('['))).toEqual([
      '[clip_range=0.1, lr=0.01]',
      '[clip_range=0.2, lr=0.03]',
      '[clip_range=0.2, lr=0.1]',
    ]);
    expect(rows.at(-1)).toBe('baseline');

    await page.getByRole('button', { name: 'Hide the runs of group clip_range=0.2, lr=0.03' }).click();
    await expect.poll(async () => (await runRows(page)).filter((r) => r.startsWith('lr0.03'))).toEqual([]);
    await page.getByRole('button', { name: 'Show the runs of group clip_range=0.2, lr=0.03' }).click();
    await expect
      .poll(async () => (await runRows(page)).filter((r) => r.startsWith('lr0.03')))
      .toHaveLength(3);

    const box = page.getByLabel('Filter runs (name, or an expression on any column)');
    await box.fill('seed != 2');
    await expect.poll(() => runRows(page)).toHaveLength(7);
    expect(await group('clip_range=0.2, lr=0.1').locator('.group-n').innerText()).toBe('n = 3 (2 shown)');
    await box.fill('');
    await expect.poll(() => runRows(page)).toHaveLength(10);
  });

  test('ticking a group row charts its runs', async () => {
    await page.getByLabel('chart group clip_range=0.2, lr=0.1', { exact: true }).check();
    await expect
      .poll(() =>
        page
          .locator('.runs-table tr.drawn[data-run]')
          .evaluateAll((trs) => trs.map((t) => t.dataset.run).sort()),
      )
      .toEqual(expect.arrayContaining(['lr0.1_seed0', 'lr0.1_seed1', 'lr0.1_seed2']));
    expect(await group('clip_range=0.2, lr=0.1').getAttribute('class')).toContain('drawn');
    await page.setViewportSize({ width: 1920, height: 620 });
    await scrollToMetrics(page);
    await saveScreenshot(page, 'runs-table-groups.png', { docs: 'screenshots/runs-table-groups.png' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('parallel coordinates: a line per row coloured on viridis; brushing the lr axis filters rows', async () => {
    await page.getByRole('button', { name: 'Parallel coordinates' }).click();
    const svg = page.locator('.parallel-coords svg');
    await svg.waitFor();
    await expect.poll(() => page.locator('.pc-lines path').count()).toBe(RUNS.length + 1);
    // Axes of the key metrics and the varying config keys, labelled as text.
    const labels = await page.locator('.pc-label').allTextContents();
    expect(labels).toEqual(expect.arrayContaining(['reward (last)', 'lr', 'clip_range', 'seed']));
    expect(await svg.getAttribute('aria-label')).toMatch(/^Parallel coordinates: 10 runs over /);
    // lr from 0.01 to 0.3: the top quarter brushed keeps only lr 0.3 (the baseline).
    await brush(page, 'config.lr', 1, 0.75);
    await expect.poll(() => runRows(page)).toEqual(['baseline']);
    const chip = page.getByRole('button', { name: /^Clear brush lr / });
    expect(await chip.innerText()).toMatch(/^lr 0\.2\d* – 0\.3/);
    // Lines outside the brush are greyed, not removed.
    await expect.poll(() => page.locator('.pc-lines path.out').count()).toBe(RUNS.length);
    await chip.click();
    await expect.poll(() => runRows(page)).toHaveLength(10);
    // The bottom of the lr axis: the two lowest learning rates' six runs.
    await brush(page, 'config.lr', 0, 0.1);
    await expect
      .poll(async () => (await runRows(page)).sort())
      .toEqual(RUNS.filter((r) => !r.startsWith('lr0.1_')).sort());
    await expect.poll(() => page.locator('.runs-table tr.group-row').count()).toBe(2);
    // Hovering a line marks its row.
    const line = page.locator('.pc-lines path[data-run="lr0.01_seed1"]');
    const d = (await line.getAttribute('d'))!;
    // Halfway between its third and fourth points (clear of the axes' drag targets).
    const pts = d
      .slice(1)
      .split('L')
      .map((p) => p.split(' ').map(Number) as [number, number]);
    const box = (await svg.boundingBox())!;
    await page.mouse.move(box.x + (pts[2]![0] + pts[3]![0]) / 2, box.y + (pts[2]![1] + pts[3]![1]) / 2);
    await expect
      .poll(() => page.locator('.runs-table tr.hovered').evaluateAll((trs) => trs.map((t) => t.dataset.run)))
      .toEqual(['lr0.01_seed1']);
    expect(await line.getAttribute('class')).toContain('hover');
    await page.mouse.move(0, 0);
    await scrollToMetrics(page);
    await saveScreenshot(page, 'parallel-coords.png', { docs: 'screenshots/parallel-coords.png' });
    expect(errors).toEqual([]);
  });

  test('the ticked group is drawn as its seed band on the charts when Seed groups is on', async () => {
    await page.locator('.toolbar label', { hasText: 'Charts' }).click();
    await page.getByRole('checkbox', { name: 'Seed groups' }).check();
    await seeChart(page, 'reward');
    await expect
      .poll(() => page.locator('figure.chart[data-tag="reward"] .chart-legend li').allInnerTexts())
      // Named among the runs charted: by its settings, or (charted alone) by its runs' name.
      .toEqual(expect.arrayContaining([expect.stringMatching(/^(lr0\.1|.*lr=0\.1) \(over seed ×3\)$/)]));
    expect(errors).toEqual([]);
  });
});

describe('parallel coordinates on the RLHF W&B corpus runs', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const STEPS: Record<string, number> = {
    'offline-run-20230413_033614-x199n1yz': 15,
    'offline-run-20230413_090116-iotz2fip': 13,
    'run-20230420_073822-clnzftry': 77,
    'run-20230421_071625-4hjc4zce': 4,
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-rlhf-pc-'));
    cpSync(RLHF, dir, { recursive: true });
    ({ serve, storeDir, browser, page, errors } = await openTable(dir, 'run-20230421_071625-4hjc4zce'));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('no seed groups among runs whose configs are W&B bookkeeping alone; brushing steps filters rows', async () => {
    await expect.poll(() => runRows(page)).toHaveLength(4);
    expect(await page.locator('.runs-table tr.group-row').count()).toBe(0);
    await page.getByRole('button', { name: 'Parallel coordinates' }).click();
    await page.locator('.parallel-coords summary', { hasText: 'Axes' }).click();
    await page
      .locator('.pc-axes label', { hasText: /^\s*steps\s*$/ })
      .locator('input')
      .check();
    await page.locator('.parallel-coords summary', { hasText: 'Axes' }).click();
    await page.locator('.pc-axis[data-column="step"]').waitFor();
    // Ticks of the steps axis: 4 to 77 through the shared formatter.
    const ticks = await page.locator('.pc-axis[data-column="step"] .pc-tick').allTextContents();
    expect([ticks[0], ticks.at(-1)]).toEqual(['4', '77']);
    // Steps above 40: only the long SFT run.
    await brush(page, 'step', 1, 0.5);
    await expect.poll(() => runRows(page)).toEqual(['run-20230420_073822-clnzftry']);
    // And then the low end: the three short runs.
    await page.getByRole('button', { name: /^Clear brush steps / }).click();
    await brush(page, 'step', 0, 0.2);
    await expect
      .poll(async () => (await runRows(page)).sort())
      .toEqual(Object.keys(STEPS).filter((r) => STEPS[r]! < 20));
    expect(await page.getByRole('list', { name: 'Axis brushes filtering the rows' }).innerText()).toMatch(
      // A fifth of 4…77 is 18.6, to the pixel the mouse lands on.
      /^steps 4 – 1[89](\.\d+)? ✕$/,
    );
    // From the keyboard: Escape clears the focused axis's brush; ArrowDown lowers its top edge a tenth at a time.
    const axis = page.getByRole('button', { name: /^Brush steps: / });
    await axis.focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => runRows(page)).toHaveLength(4);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
    await expect
      .poll(async () => (await runRows(page)).sort())
      .toEqual(Object.keys(STEPS).filter((r) => STEPS[r]! < 40));
    // The rows already match after the first press: wait for the fifth one's edge.
    await expect
      .poll(() => page.getByRole('button', { name: /^Clear brush steps / }).innerText())
      .toBe('steps 4 – 40.5 ✕');
    expect(errors).toEqual([]);
  });
});
