// End to end on the SB3 A2C/DQN/PPO corpus runs (their repository's folder layout): the sweep opens overlaid, a
// composed chart of two tags is kept per folder across a reload, regex run selection overlays the matching runs, the
// composed chart's img and data export its lines, and runs past the third (by their index in the folder's sorted
// names) are dashed in lines, legend and readout.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { svgPaths } from '../helpers/svg-paths';
import { loadImage } from '@napi-rs/canvas';
import { PALETTE, runDash, tagDash } from '../../src/shared/charts/chart-theme';
import { pixelsNear } from '../helpers/pixels';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { RESULTS, saveScreenshot } from './screenshots';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'tfevents', '0pk0__rl4avs');
/** Each corpus file back at its path in 0pk0/rl4avs (test/fixtures/tfevents/ORIGIN.md). */
const LAYOUT: Record<string, string> = {
  'PPO_debug_seed_0/PPO_1': 'events.out.tfevents.1754323433.MacBookPro.75921.0',
  'PPO_debug_seed_0/PPO_2': 'events.out.tfevents.1754327330.MacBookPro.76839.0',
  'PPO_debug_seed_0/PPO_4': 'events.out.tfevents.1754329043.MacBookPro.77185.0',
  'A2C_debug_seed_0/A2C_1': 'events.out.tfevents.1755214641.MacBookPro.1911.0',
  'DQN_debug_seed_0/DQN_1': 'events.out.tfevents.1755302059.MacBookPro.13102.0',
  'projectResults/tensorboard_logs/20250902-164603': 'events.out.tfevents.1756827963.pkMac.local.46956.0',
};
/** The training runs SB3 wrote: alike tags (rollout/*, time/fps, train/*), so the folder's sweep. */
const SWEEP = ['A2C_debug_seed_0/A2C_1', 'DQN_debug_seed_0/DQN_1', 'PPO_debug_seed_0/PPO_1'];
const PPO_RUNS = ['PPO_debug_seed_0/PPO_1', 'PPO_debug_seed_0/PPO_2', 'PPO_debug_seed_0/PPO_4'];
const COMPOSED = 'reward: rollout vs eval';
const COMPOSED_TAGS = ['rollout/ep_rew_mean', 'eval/mean_reward'];

/** A chart's drawn datasets (those with points) as chart.js holds them: label, dash and colour. */
async function datasets(
  page: Page,
  tag: string,
): Promise<{ label: string; dash: number[]; colour: string }[]> {
  return page.evaluate((t) => {
    interface ChartLike {
      canvas: HTMLCanvasElement;
      data: { datasets: { label?: string; borderDash?: number[]; borderColor?: unknown; data: unknown[] }[] };
    }
    const fig = document.querySelector(`figure.chart[data-tag="${CSS.escape(t)}"]`);
    const charts = (window as unknown as { __rlwatchCharts: () => ChartLike[] }).__rlwatchCharts();
    const chart = charts.find((c) => c.canvas.closest('figure.chart') === fig);
    return (chart?.data.datasets ?? [])
      .filter((d) => d.data.length > 0)
      .map((d) => ({ label: d.label ?? '', dash: d.borderDash ?? [], colour: String(d.borderColor) }));
  }, tag);
}

const rgb = (hex: string): number[] => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));

describe('composed charts, sweep overlay, regex selection, line styles', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const chartRuns = (tag: string): Promise<string[]> =>
    page
      .locator(`figure.chart[data-tag="${tag}"]`)
      .first()
      .getAttribute('data-run')
      .then((r) => (r ?? '').split(',').filter(Boolean).sort());
  const figure = (tag: string): ReturnType<Page['locator']> =>
    page.locator(`figure.chart[data-tag="${tag}"]`).first();
  /** Smoothing off, so the lines are drawn as logged (with smoothing on, only the smoothed line carries the dash). */
  const noSmoothing = async (): Promise<void> => {
    await page.getByLabel('Smoothing', { exact: true }).evaluate((el) => {
      (el as HTMLInputElement).value = '0';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect.poll(() => page.locator('figure.chart:not([data-smoothing="0"])').count()).toBe(0);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-compose-'));
    for (const [run, file] of Object.entries(LAYOUT)) {
      mkdirSync(join(dir, run), { recursive: true });
      copyFileSync(join(CORPUS, file), join(dir, run, file));
    }
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, `${url}&check=1`, { width: 1440, height: 900 }));
    await page.locator(`.run-list button[data-run="${SWEEP[2]}"]`).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('the sweep opens overlaid; its toggle turns that off and the choice is kept for the folder', async () => {
    const toggle = page.getByRole('checkbox', { name: /Overlay the sweep \(3 runs\)/ });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await seeChart(page, 'rollout/ep_rew_mean');
    await expect.poll(() => chartRuns('rollout/ep_rew_mean')).toEqual(SWEEP);
    await expect.poll(() => page.locator('.run-legend li').allInnerTexts()).toHaveLength(3);
    // The evaluation script's run is not part of it.
    await expect.poll(() => page.locator('.run-item.overlaid').count()).toBe(2);

    await toggle.uncheck();
    await expect.poll(() => page.locator('.run-item.overlaid').count()).toBe(0);
    await page.reload();
    await page.locator(`.run-list button[data-run="${SWEEP[2]}"]`).waitFor();
    await expect
      .poll(() => page.getByRole('checkbox', { name: /Overlay the sweep/ }).isChecked())
      .toBe(false);
    expect(await page.locator('.run-item.overlaid').count()).toBe(0);
    await page.getByRole('checkbox', { name: /Overlay the sweep/ }).check();
    await expect.poll(() => page.locator('.run-item.overlaid').count()).toBe(2);
  });

  test('a composed chart of two tags: a line per tag × run, missing tags said, kept across a reload', async () => {
    await page.getByRole('button', { name: '+ Compose' }).click();
    const dialog = page.locator('dialog.compose-dialog');
    await dialog.getByLabel('Name').fill(COMPOSED);
    for (const t of COMPOSED_TAGS) {
      await dialog.getByRole('searchbox').fill(t);
      await dialog.locator('.compose-tags label', { hasText: t }).getByRole('checkbox').check();
    }
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    await expect.poll(() => dialog.count()).toBe(0);

    const fig = figure(COMPOSED);
    await fig.and(page.locator('[data-state="ready"]')).waitFor();
    expect(await fig.getAttribute('data-composed')).toBe(COMPOSED_TAGS.join('|'));
    // In its own section, above the catalog groups.
    const order = await page.$$eval('.chart-grid > section.chart-group', (s) =>
      s.map((e) => e.getAttribute('data-group')),
    );
    expect(order[0]).toBe('Composed');
    // The sweep's runs log rollout/ep_rew_mean only: three lines, the eval tag said to be missing for each.
    await expect
      .poll(() => fig.locator('.chart-legend li').allInnerTexts())
      .toEqual(SWEEP.map((r) => `rollout/ep_rew_mean · ${r}`));
    await expect.poll(() => fig.locator('[data-missing]').innerText()).toContain('eval/mean_reward (');
    // Each run's tags arrive on their own: the note names the runs one by one.
    for (const r of SWEEP) await expect.poll(() => fig.locator('[data-missing]').innerText()).toContain(r);

    // The composed chart takes part in the linked hover: hovering it marks the other charts.
    const box = (await fig.locator('canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    await expect.poll(() => figure('rollout/ep_rew_mean').getAttribute('data-hover-x')).not.toBeNull();
    await expect
      .poll(async () => {
        const [other, own] = await Promise.all([
          figure('rollout/ep_rew_mean').getAttribute('data-hover-x'),
          fig.getAttribute('data-hover-x'),
        ]);
        return other === own ? 'same' : `${other} ≠ ${own}`;
      })
      .toBe('same');
    await expect.poll(() => fig.locator('.chart-readout-row').count()).toBe(3);
    await page.mouse.move(5, 5);

    // Stored for this folder in the browser, never in the run folder; back after a reload.
    const stored = await page.evaluate(() =>
      Object.keys(localStorage).filter((k) => k.startsWith('rlwatch.folder:')),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toContain(dir);
    await page.reload();
    await page.locator(`.run-list button[data-run="${SWEEP[2]}"]`).waitFor();
    await figure(COMPOSED).and(page.locator('[data-state="ready"]')).waitFor();
    expect(await figure(COMPOSED).getAttribute('data-composed')).toBe(COMPOSED_TAGS.join('|'));
  });

  test('a composed chart is edited in place and removed; the stored view follows', async () => {
    const stored = (): Promise<string> =>
      page.evaluate(() => {
        const key = Object.keys(localStorage).find((k) => k.startsWith('rlwatch.folder:'))!;
        return localStorage.getItem(key) ?? '';
      });
    const cell = page.locator(`.composed-cell[data-composed-name="${COMPOSED}"]`);
    await cell.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.locator('dialog.compose-dialog');
    await dialog.getByLabel('Name').fill('rewards');
    await dialog.getByRole('searchbox').fill('ep_len');
    await dialog
      .locator('.compose-tags label', { hasText: 'rollout/ep_len_mean' })
      .getByRole('checkbox')
      .check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await figure('rewards').and(page.locator('[data-state="ready"]')).waitFor();
    expect(await figure('rewards').getAttribute('data-composed')).toBe(
      [...COMPOSED_TAGS, 'rollout/ep_len_mean'].join('|'),
    );
    await expect.poll(() => page.locator('.composed-cell').count()).toBe(1);
    expect(JSON.parse(await stored()).composed).toEqual([
      { name: 'rewards', tags: [...COMPOSED_TAGS, 'rollout/ep_len_mean'] },
    ]);
    // A name taken by another composed chart is refused with the reason.
    await page.getByRole('button', { name: '+ Compose' }).click();
    await dialog.getByLabel('Name').fill('rewards');
    await dialog.locator('.compose-tags input[type="checkbox"]').first().check();
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    expect(await dialog.locator('.compose-problem').innerText()).toContain('exists');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page
      .locator('.composed-cell[data-composed-name="rewards"]')
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect.poll(() => page.locator('.composed-cell').count()).toBe(0);
    expect(JSON.parse(await stored()).composed).toEqual([]);
    // Back as it was for the tests below.
    await page.getByRole('button', { name: '+ Compose' }).click();
    await dialog.getByLabel('Name').fill(COMPOSED);
    for (const t of COMPOSED_TAGS) {
      await dialog.getByRole('searchbox').fill(t);
      await dialog.locator('.compose-tags label', { hasText: t }).getByRole('checkbox').check();
    }
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    await figure(COMPOSED).and(page.locator('[data-state="ready"]')).waitFor();
  });

  test('regex selection: /pattern/ filters, "overlay matching" charts them; a bad pattern says why', async () => {
    await noSmoothing();
    const filter = page.getByLabel(/Filter runs by name/);
    await filter.fill('/ppo(/');
    await expect
      .poll(() => page.locator('.run-filter-error').innerText())
      .toMatch(/Invalid regular expression/);
    expect(await page.locator('.run-list .run-item').count()).toBe(0);
    // A pattern that would backtrack exponentially is matched in linear time (re2js), so it is taken, not refused;
    // lookaround, which RE2 cannot run, is refused with a message.
    await filter.fill('/(a+)+$/');
    await expect.poll(() => page.locator('.run-filter-error').count()).toBe(0);
    await filter.fill('/^(?!ppo)/');
    await expect
      .poll(() => page.locator('.run-filter-error').innerText())
      .toMatch(/lookahead and lookbehind/);

    await filter.fill('/^ppo_debug/');
    await expect
      .poll(() => page.$$eval('.run-list .run-item', (li) => li.map((e) => e.getAttribute('data-run'))))
      .toEqual(PPO_RUNS);
    await page.getByRole('button', { name: 'Overlay the 3 matching runs' }).click();
    await expect.poll(() => chartRuns(COMPOSED)).toEqual(PPO_RUNS);
    // PPO_4 logs only the eval tag: the composed chart now draws both tags.
    await expect
      .poll(() => figure(COMPOSED).locator('.chart-legend li').allInnerTexts())
      .toEqual(['rollout/ep_rew_mean · PPO_debug_seed_0/PPO_1', 'eval/mean_reward · PPO_debug_seed_0/PPO_4']);
    const lines = await datasets(page, COMPOSED);
    // Dashed by tag: the second tag's line is dashed, the first's as its run is (PPO_1 is the folder's 3rd: solid).
    expect(lines.find((d) => d.label.startsWith('eval/'))!.dash).toEqual(tagDash(1));
    expect(lines.find((d) => d.label.startsWith('rollout/'))!.dash).toEqual([]);
    await filter.fill('');
    expect(errors).toEqual([]);
  });

  test("a composed chart's img and data: its lines in the window's colours and dashes, rows by run and tag", async () => {
    await noSmoothing();
    // The sweep (A2C_1, DQN_1, PPO_1: the folder's first three, solid) logs both rollout tags.
    const filter = page.getByLabel(/Filter runs by name/);
    await filter.fill('/_1$/');
    await page.getByRole('button', { name: 'Overlay the 3 matching runs' }).click();
    await filter.fill('');
    const name = 'reward & length';
    const tags = ['rollout/ep_rew_mean', 'rollout/ep_len_mean'];
    await page.getByRole('button', { name: '+ Compose' }).click();
    const dialog = page.locator('dialog.compose-dialog');
    await dialog.getByLabel('Name').fill(name);
    for (const t of tags) {
      await dialog.getByRole('searchbox').fill(t);
      await dialog.locator('.compose-tags label', { hasText: t }).getByRole('checkbox').check();
    }
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    await expect.poll(() => chartRuns(name)).toEqual(SWEEP);
    const fig = figure(name);
    await fig.and(page.locator('[data-state="ready"]')).waitFor();
    // Tag-major: each run's reward solid, its length in the second tag's dash; each run in its colour.
    await expect.poll(async () => (await datasets(page, name)).length).toBe(6);
    const drawn = await datasets(page, name);
    // In the chart's run order (the selected run first); colours by the folder's sorted names (SWEEP's order).
    const runs = (await fig.getAttribute('data-run'))!.split(',');
    expect(drawn.map((d) => [d.label, d.dash, d.colour.toLowerCase()])).toEqual(
      tags.flatMap((t, k) => runs.map((r) => [`${t} · ${r}`, tagDash(k), PALETTE[SWEEP.indexOf(r)]!])),
    );

    const exported = async (item: string): Promise<{ name: string; bytes: Buffer }> => {
      await fig.getByRole('button', { name: 'Export chart' }).click();
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        fig.getByRole('menu').getByRole('menuitem', { name: item }).click(),
      ]);
      return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) };
    };
    const png = await exported('Export PNG 2×');
    expect(png.name).toBe('reward & length.png');
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const img = await loadImage(png.bytes);
    expect([img.width, img.height]).toEqual([1920, 1080]);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'compose-export.png'), png.bytes);
    // Each run's lines in its window colour; the runs not charted (PPO_2, PPO_4: the 4th and 5th colours) nowhere.
    for (const i of [0, 1, 2])
      expect(await pixelsNear(png.bytes, rgb(PALETTE[i]!)), SWEEP[i]).toBeGreaterThan(300);
    for (const i of [3, 4])
      expect(await pixelsNear(png.bytes, rgb(PALETTE[i]!)), PALETTE[i]).toBeLessThan(10);

    // The SVG: per run, the reward line one stroked path, the length line a dashed outline (many dashes).
    const svg = await exported('Export SVG');
    expect(svg.name).toBe('reward & length.svg');
    const text = svg.bytes.toString('utf8');
    for (const i of [0, 1, 2])
      expect(svgPaths(text, PALETTE[i]!), SWEEP[i]).toEqual({ stroked: 1, dashed: 1 });
    // The title lists the tags.
    expect(text).toContain(tags.join(', '));

    // Download data: each row named by its line's own run and tag, as a tag's chart writes them.
    await fig.getByRole('button', { name: 'Download data' }).click();
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      fig.getByRole('menuitem', { name: 'Download data (CSV)' }).click(),
    ]);
    expect(csv.suggestedFilename()).toBe('reward & length.csv');
    const rows = readFileSync((await csv.path())!, 'utf8')
      .trimEnd()
      .split('\n');
    expect(rows[0]).toBe('run,tag,step,wall_time,value,session');
    const count = new Map<string, number>();
    for (const r of rows.slice(1)) {
      const key = r.split(',').slice(0, 2).join(',');
      count.set(key, (count.get(key) ?? 0) + 1);
    }
    // Every point as read (inspect: A2C_1 59, DQN_1 727, PPO_1 8 per tag).
    expect(Object.fromEntries(count)).toEqual(
      Object.fromEntries(tags.flatMap((t) => SWEEP.map((r, i) => [`${r},${t}`, [59, 727, 8][i]]))),
    );

    await page
      .locator(`.composed-cell[data-composed-name="${name}"]`)
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect.poll(() => page.locator('.composed-cell').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  test('runs past the third of the folder are dashed, in the line, the legend and the readout', async () => {
    await noSmoothing();
    // Every SB3 run overlaid: the folder's sorted names give A2C 0, DQN 1, PPO_1 2, PPO_2 3, PPO_4 4.
    await page.getByLabel(/Filter runs by name/).fill('/_seed_0\\//');
    await page.getByRole('button', { name: 'Overlay the 5 matching runs' }).click();
    await expect.poll(() => chartRuns(COMPOSED)).toHaveLength(5);
    await seeChart(page, 'eval/mean_reward');
    const fig = figure('eval/mean_reward');
    await expect.poll(() => fig.getAttribute('data-style-indexes')).toMatch(/^(\d,){4}\d$/);
    const indexes = (await fig.getAttribute('data-style-indexes'))!.split(',').map(Number);
    const runs = (await fig.getAttribute('data-run'))!.split(',');
    expect(indexes[runs.indexOf('PPO_debug_seed_0/PPO_4')]).toBe(4);
    // Its only line is PPO_4's, drawn with the 5th run's dash although it is the chart's only line.
    await expect
      .poll(async () => (await datasets(page, 'eval/mean_reward')).map((d) => d.label))
      .toEqual(['PPO_debug_seed_0/PPO_4']);
    expect((await datasets(page, 'eval/mean_reward'))[0]!.dash).toEqual(runDash(4));
    expect(runDash(4).length).toBeGreaterThan(0);
    const swatch = fig.locator('.chart-legend .chart-swatch').first();
    expect(await swatch.evaluate((e) => getComputedStyle(e).backgroundImage)).toMatch(
      /repeating-linear-gradient/,
    );
    // The ep_rew_mean chart: A2C, DQN, PPO_1 are the folder's first three, solid.
    await seeChart(page, 'rollout/ep_rew_mean');
    await expect.poll(async () => (await datasets(page, 'rollout/ep_rew_mean')).length).toBe(3);
    for (const d of await datasets(page, 'rollout/ep_rew_mean')) expect(d.dash, d.label).toEqual([]);
    // The readout's swatch is dashed as the line is.
    const box = (await fig.locator('canvas').boundingBox())!;
    await fig.scrollIntoViewIfNeeded();
    const box2 = (await fig.locator('canvas').boundingBox())!;
    await page.mouse.move(box2.x + box2.width * 0.5, box2.y + box2.height * 0.5);
    const rowSwatch = fig.locator('.chart-readout-row .chart-swatch').first();
    await rowSwatch.waitFor();
    expect(box.width).toBeGreaterThan(0);
    expect(await rowSwatch.evaluate((e) => getComputedStyle(e).backgroundImage)).toMatch(
      /repeating-linear-gradient/,
    );
    await page.mouse.move(5, 5);
    await page.getByLabel(/Filter runs by name/).fill('');

    await page.locator('main.content').evaluate((m) => m.scrollTo(0, 0));
    await saveScreenshot(page, 'compose-charts.png', { docs: 'screenshots/compose-charts.png' });
    expect(errors).toEqual([]);
  });
});
