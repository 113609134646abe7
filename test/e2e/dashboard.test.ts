// End to end: the dashboard on the live demo — groups in seed order, bands, toolbar, zoom, filter, the KL alert, ack.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { startDemoServer, type DemoServer, openPage } from './demo-server';
import { seeAllCharts } from './lazy-charts';
import { settingsSaved } from './socket-api';
import { saveScreenshot } from './screenshots';

const chart = (tag: string): string => `figure.chart[data-tag="${tag}"]`;

/** Every chart figure's value of one data attribute. */
const allAttrs = (page: Page, attr: string): Promise<(string | null)[]> =>
  page.$$eval('figure.chart', (els, a) => els.map((e) => e.getAttribute(a)), attr);

describe('the dashboard on the live demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    // 12 steps/s: the KL blow-up (steps 140–420) is under way by the time the alert test runs, and still
    // active for a while after (the test also accepts it among the cleared ones on a slow machine).
    server = await startDemoServer(12);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, server.url));
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('chart groups appear in the seeds order; progress counters are charts too', async () => {
    // Charts are created as they come into view: see each once, as a user scrolling the grid would.
    await page.locator('.charts > [data-tag="System/GPU_Utilization"]').waitFor();
    await seeAllCharts(page);
    await page.locator(chart('approx_kl')).waitFor();
    await page.locator(chart('System/GPU_Utilization')).waitFor();
    const groups = await page.$$eval('.chart-group', (els) => els.map((e) => e.getAttribute('data-group')));
    const order = [
      'Pinned',
      'Reward',
      'Loss',
      'Policy',
      'Optimizer',
      'Performance',
      'Progress',
      'System',
      'Other',
      // The demo's histograms: their distributions follow the scalar groups.
      'Distributions',
    ];
    expect(groups.slice(0, 3)).toEqual(['Reward', 'Loss', 'Policy']);
    expect(groups).toContain('System');
    expect([...groups].sort((a, b) => order.indexOf(a!) - order.indexOf(b!))).toEqual(groups);
    // The group heading names the seed group, and its charts are inside it.
    await expect
      .poll(() => page.locator('.chart-group[data-group="Policy"] h2').innerText())
      .toMatch(/Policy \/ KL/);
    expect(await page.locator(`.chart-group[data-group="Policy"] ${chart('approx_kl')}`).count()).toBe(1);
    expect(await page.locator(`.chart-group[data-group="Reward"] ${chart('Train/AvgReward')}`).count()).toBe(
      1,
    );
    // training_progress.json fields are the sidebar's bar and, like every series inspect lists, charts.
    for (const tag of ['max_steps', 'global_step'])
      expect(await page.locator(`.chart-group[data-group="Progress"] ${chart(tag)}`).count()).toBe(1);
    const run = page.locator('.run-item[data-run="ppo_demo"]');
    await run.locator('progress').waitFor();
    await expect.poll(() => run.getAttribute('data-status')).toMatch(/^(live|warning|critical)$/);
    await expect.poll(() => run.innerText()).toMatch(/last event \d+ s ago/);
    // A group heading collapses and expands its charts.
    const toggle = page.locator('.chart-group[data-group="Performance"] .group-toggle');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false');
    await expect
      .poll(() => page.locator('.chart-group[data-group="Performance"] figure.chart').count())
      .toBe(0);
    await toggle.click();
    await page.locator(`.chart-group[data-group="Performance"] figure.chart`).first().waitFor();
  });

  test('the system panel shows live samples, the NVIDIA status once, and the metrics the run logs itself', async () => {
    const panel = page.locator('.system-panel');
    await expect
      .poll(() => panel.locator('.metric', { hasText: 'CPU' }).first().innerText())
      .toMatch(/\d+ %/);
    await expect.poll(() => panel.locator('.logged').innerText()).toMatch(/System\/GPU_Utilization/);
    const nvidia = panel.locator('[data-nvidia]');
    if ((await nvidia.count()) > 0) {
      // One static line that stays the same element while samples arrive (not re-rendered every second).
      expect(await nvidia.count()).toBe(1);
      const text = await nvidia.innerText();
      const handle = await nvidia.elementHandle();
      await page.waitForTimeout(2500);
      expect(await handle!.evaluate((el) => el.isConnected)).toBe(true);
      expect(await nvidia.innerText()).toBe(text);
    }
  });

  test('charts show the catalog healthy band (clip fraction 0.1–0.3, KL below target_kl)', async () => {
    await expect.poll(() => page.locator(chart('clipfrac')).getAttribute('data-band')).toBe('0.1,0.3');
    await expect
      .poll(() => page.locator(chart('approx_kl')).getAttribute('data-band'))
      .toBe('-Infinity,0.02');
  });

  test('smoothing, x-axis mode and log y follow the toolbar on every chart', async () => {
    await page.getByLabel('Smoothing').evaluate((el: HTMLInputElement) => {
      el.value = '0.9';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect
      .poll(() => allAttrs(page, 'data-smoothing'))
      .toSatisfy((v: unknown[]) => v.every((x) => x === '0.9'));
    await page.locator('.segmented label', { hasText: 'Relative' }).click();
    // Every chart with wall times goes relative; one whose file logged none (the demo's CSV copy, its progress
    // file's counters) says so and stays by step, never an invented time.
    const axes = (): Promise<string[]> =>
      page.$$eval('figure.chart', (els) =>
        els.map(
          (e) => `${e.getAttribute('data-xaxis')}${e.hasAttribute('data-untimed') ? ' (untimed)' : ''}`,
        ),
      );
    await expect
      .poll(axes)
      .toSatisfy((v: string[]) => v.every((x) => x === 'relative' || x === 'step (untimed)'));
    await expect.poll(() => page.locator(chart('approx_kl')).getAttribute('data-xaxis')).toBe('relative');
    await page.locator('.segmented label', { hasText: 'Wall' }).click();
    await expect.poll(() => page.locator(chart('approx_kl')).getAttribute('data-xaxis')).toBe('wall');
    await page.getByLabel('Log y').check();
    await expect.poll(() => page.locator(chart('approx_kl')).getAttribute('data-logy')).toBe('true');
    // Back to the defaults the rest of the tests expect.
    await page.getByLabel('Log y').uncheck();
    await page.locator('.segmented label', { hasText: 'Step' }).click();
    // System metrics are sampled on a clock: under "Step" they are drawn against time.
    await expect
      .poll(() => allAttrs(page, 'data-xaxis'))
      .toSatisfy((v: unknown[]) => v.every((x) => x === 'step' || x === 'relative'));
    await expect
      .poll(() => page.locator(chart('System/GPU_Utilization')).getAttribute('data-xaxis'))
      .toBe('relative');
    await expect.poll(() => page.locator(chart('approx_kl')).getAttribute('data-xaxis')).toBe('step');
    await expect
      .poll(() => allAttrs(page, 'data-logy'))
      .toSatisfy((v: unknown[]) => v.every((x) => x === 'false'));
  });

  test('the mouse wheel zooms a chart and Reset zoom undoes it', async () => {
    const kl = page.locator(chart('approx_kl'));
    await kl.scrollIntoViewIfNeeded();
    await expect.poll(() => kl.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    await expect.poll(async () => Number(await kl.getAttribute('data-points'))).toBeGreaterThan(50);
    expect(await kl.getAttribute('data-zoomed')).toBe('false');
    const box = (await kl.locator('canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -400);
    await expect.poll(() => kl.getAttribute('data-zoomed')).toBe('true');
    await kl.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(() => kl.getAttribute('data-zoomed')).toBe('false');
  });

  test('the regex filter hides non-matching charts; an invalid regex is an inline error', async () => {
    const filter = page.getByLabel('Filter charts by tag (regular expression)');
    const total = await page.locator('figure.chart').count();
    await filter.fill('kl|entropy');
    await expect
      .poll(() => allAttrs(page, 'data-tag'))
      .toSatisfy((tags: unknown[]) => tags.length >= 3 && tags.every((t) => /kl|entropy/i.test(String(t))));
    expect(await page.locator(chart('Train/Loss')).count()).toBe(0);
    await filter.fill('kl|(');
    await page.locator('#filter-error').waitFor();
    expect(await page.locator('#filter-error').innerText()).toMatch(/Not a valid regular expression/);
    expect(await filter.getAttribute('aria-invalid')).toBe('true');
    await filter.fill('');
    await expect.poll(() => page.locator('figure.chart').count()).toBeGreaterThanOrEqual(total);
    await expect.poll(() => page.locator('#filter-error').isVisible()).toBe(false);
  });

  test('after the KL blow-up an alert is listed with advice and marked on the KL chart', async () => {
    const activeKl = page.locator('.alert-list:not(.cleared) .alert[data-rule="kl-above-target"]');
    const clearedKl = page.locator('#cleared-alerts .alert[data-rule="kl-above-target"]');
    // Active, or (on a slow machine) already cleared and kept among the recently cleared alerts.
    let where = 'none';
    await expect
      .poll(
        async () => {
          if ((await activeKl.count()) > 0) return (where = 'active');
          const toggle = page.locator(
            '.alerts-panel [aria-controls="cleared-alerts"][aria-expanded="false"]',
          );
          if ((await toggle.count()) > 0) await toggle.click();
          return (where = (await clearedKl.count()) > 0 ? 'cleared' : 'none');
        },
        { timeout: 90_000, interval: 500 },
      )
      .not.toBe('none');
    const alert = where === 'active' ? activeKl.first() : clearedKl.first();
    if (where === 'active') {
      expect(await alert.locator('.alert-message').innerText()).toMatch(/approx_kl/);
      expect(await alert.locator('.alert-advice').innerText()).not.toBe('');
    }
    expect(await alert.innerText()).toMatch(/step \d+/);
    await expect
      .poll(async () => Number(await page.locator(chart('approx_kl')).getAttribute('data-alert-markers')), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    // Clicking the alert shows its chart, highlighted, at the alert's step (well into the blow-up).
    await expect
      .poll(async () => Number(await page.locator(chart('approx_kl')).getAttribute('data-last-step')), {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(250);
    await page.locator('.content').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await alert.locator('.alert-focus').click();
    const cell = page.locator('.chart-cell.focused[data-tag="approx_kl"]');
    await cell.waitFor();
    await expect
      .poll(() =>
        cell.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= window.innerHeight;
        }),
      )
      .toBe(true);
    await saveScreenshot(page, 'screenshot-alerts.png', { docs: 'screenshot-alerts.png' });
  });

  test('pinned charts come first, in their own group', async () => {
    for (const tag of ['approx_kl', 'entropy']) {
      await page.locator(chart(tag)).getByRole('button', { name: 'Pin chart' }).click();
      await page.locator(`.chart-group[data-group="Pinned"] ${chart(tag)}`).waitFor();
      expect(await page.locator(chart(tag)).getAttribute('data-pinned')).toBe('true');
    }
    expect(await page.$$eval('.chart-group', (els) => els[0]?.getAttribute('data-group'))).toBe('Pinned');
    expect(await page.locator(`.chart-group[data-group="Policy"] ${chart('approx_kl')}`).count()).toBe(0);
    // Past the entropy collapse, for the README's main screenshot (pinned KL and entropy on top).
    // Charts off screen do not redraw (nor update data-last-step): the pinned ones are at the top.
    await page.locator('.content').evaluate((el) => el.scrollTo(0, 0));
    await expect
      .poll(async () => Number(await page.locator(chart('approx_kl')).getAttribute('data-last-step')), {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(360);
    await page.locator('.content').evaluate((el) => el.scrollTo(0, 0));
    // The alert click's highlight fades by itself; the README image shows the plain dashboard.
    await expect.poll(() => page.locator('.chart-cell.focused').count(), { timeout: 30_000 }).toBe(0);
    await saveScreenshot(page, 'screenshot.png', { docs: 'screenshot.png' });
  });

  test('Ack and Snooze act on an active alert through alerts.ack / alerts.snooze', async () => {
    const alert = page.locator('.alert-list:not(.cleared) .alert[data-acknowledged="false"]').first();
    await alert.waitFor();
    const id = await alert.getAttribute('data-alert-id');
    const acked = page.locator(`.alert-list:not(.cleared) .alert[data-alert-id=${JSON.stringify(id)}]`);
    await alert.getByRole('button', { name: /^Acknowledge/ }).click();
    await expect.poll(() => acked.getAttribute('data-acknowledged')).toBe('true');
    expect(await acked.innerText()).toMatch(/acknowledged/);
    // Snooze for 15 minutes through alerts.snooze: the row says until when.
    await acked.getByRole('button', { name: /for 15 minutes$/ }).click();
    await expect.poll(() => acked.innerText()).toMatch(/snoozed until/);
  });

  test('the run config is a searchable table; the epoch summary names the best reward and its epoch', async () => {
    const config = page.locator('.config-panel');
    await config.scrollIntoViewIfNeeded();
    await expect
      .poll(() => config.locator('tr', { hasText: 'target_kl' }).innerText())
      .toMatch(/target_kl\s+0\.02/);
    await config.getByLabel('Search the run config').fill('kl');
    await expect
      .poll(() => config.locator('tbody th').allInnerTexts())
      .toSatisfy((keys: string[]) => keys.length >= 2 && keys.every((k) => /kl/i.test(k)));
    const summary = page.locator('.epoch-summary');
    await expect.poll(() => summary.innerText()).toMatch(/Best reward[\s\S]*epoch \d+/);
    expect(await summary.locator('caption').allInnerTexts()).toContain('Training Metrics');
  });

  test('settings, pins and the theme survive a reload', async () => {
    await page.getByLabel('Theme').selectOption('dark');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await expect
      .poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor))
      .toBe('rgb(15, 18, 22)');
    // Settings are saved after a short pause (a dragged slider is one request): wait until the backend has them.
    await settingsSaved(server.url, { theme: 'dark', smoothing: 0.9 });
    await page.reload();
    await page.locator(chart('approx_kl')).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await expect.poll(() => page.locator(chart('approx_kl')).getAttribute('data-smoothing')).toBe('0.9');
    await page.locator(`.chart-group[data-group="Pinned"] ${chart('entropy')}`).waitFor();
    await page.getByLabel('Theme').selectOption('system');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme ?? null)).toBe(null);
    expect(errors).toEqual([]);
  });
});
