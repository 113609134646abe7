// End to end: serve mode in Chromium — the demo's KL alert raises a browser Notification (run, advice) that
// focuses its chart when clicked; the tab's title and favicon show the worst active alert and go back when it clears.

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated, startDemoServer, type DemoServer } from './demo-server';

/**
 * Wraps window.Notification before the page's scripts run: every Notification made is recorded with the
 * instance (to click it), and the permission reads "default" until the page asks, so the allow button is
 * what turns notifications on (the context has granted them, so the request resolves "granted"). Source
 * text, so no transpiler helper ends up in the page.
 */
const NOTIFICATION_SPY = `(() => {
  const Real = window.Notification;
  let asked = false;
  const shown = [];
  class Spy extends Real {
    constructor(title, options) {
      super(title, options);
      shown.push({ title, body: (options && options.body) || '', note: this });
    }
    static get permission() { return asked ? Real.permission : 'default'; }
    static requestPermission() { asked = true; return Real.requestPermission(); }
  }
  window.Notification = Spy;
  window.__notes = shown;
})();`;

declare global {
  interface Window {
    __notes: { title: string; body: string; note: Notification }[];
  }
}

/** A page with notifications granted to its origin and the spy installed; errors collected. */
async function openWithSpy(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser, url);
  await opened.page.context().grantPermissions(['notifications'], { origin: new URL(url).origin });
  await opened.page.addInitScript({ content: NOTIFICATION_SPY });
  await opened.page.reload();
  return opened;
}

const iconHref = (page: Page): Promise<string | null> =>
  page.locator('link[rel="icon"]').getAttribute('href');

describe('browser notifications on the live demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    // 10 steps/s: the KL blow-up starts at step 140 (~14 s), after the page is up with notifications on.
    server = await startDemoServer(10);
    browser = await launchChromium();
    ({ page, errors } = await openWithSpy(browser, server.url));
    await page.locator('.run-list button[data-run="ppo_demo"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the KL alert raises a Notification with the run and its advice; title and favicon show it; a click shows the chart', async () => {
    expect(await page.title()).toBe('rlwatch');
    const appIcon = await iconHref(page);
    expect(appIcon).toMatch(/favicon\.png$/);
    // Notifications are off until the user allows them (a click: the API needs a user gesture).
    await page.getByRole('button', { name: /Allow notifications/ }).click();
    await page.locator('[data-notify="granted"]').waitFor();
    expect(await page.evaluate(() => window.__notes.length)).toBe(0);

    const klNote = (): Promise<{ title: string; body: string } | null> =>
      page.evaluate(() => {
        const n = window.__notes.find((x) => /KL above target/.test(x.title));
        return n ? { title: n.title, body: n.body } : null;
      });
    await expect.poll(klNote, { timeout: 90_000, interval: 250 }).not.toBeNull();
    const note = (await klNote())!;
    expect(note.title).toMatch(/ppo_demo/);
    // The body is the alert's message and its advice, as the alerts panel shows them.
    const panelAlert = page.locator('.alert[data-rule="kl-above-target"]').first();
    await panelAlert.waitFor();
    const advice = (await panelAlert.locator('.alert-advice').innerText()).trim();
    expect(advice).not.toBe('');
    expect(note.body).toContain(advice);
    expect(note.body).toMatch(/approx_kl/);

    // A background tab still tells: the worst active alert's mark and count, and a coloured dot icon.
    await expect.poll(() => page.title()).toMatch(/^(⚠|⛔) \d+ · rlwatch$/);
    // The favicon is swapped by its own effect, not necessarily in the title's frame.
    await expect.poll(() => iconHref(page)).toMatch(/^data:image\/svg\+xml,/);
    await expect
      .poll(async () => decodeURIComponent((await iconHref(page)) ?? ''))
      .toMatch(/fill="#(d97706|dc2626)"/);

    // Clicking the notification shows the run at the alert's chart.
    await page.locator('.content').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.evaluate(() => {
      const n = window.__notes.find((x) => /KL above target/.test(x.title))!;
      n.note.dispatchEvent(new Event('click'));
    });
    await page.locator('.chart-cell.focused[data-tag="approx_kl"]').waitFor();
    // One notification per run per 30 s (the desktop's limiter): the alerts that followed are held back, except a
    // critical, which never waits behind a warning (the KL escalating while a loaded machine runs this test).
    const titles = await page.evaluate(() =>
      window.__notes.filter((n) => /ppo_demo/.test(n.title)).map((n) => n.title),
    );
    expect(titles.filter((t) => t.startsWith('Warning:')).length, titles.join(' | ')).toBeLessThanOrEqual(1);
    expect(titles.filter((t) => t.startsWith('Critical:')).length, titles.join(' | ')).toBeLessThanOrEqual(1);
    expect(titles.length, titles.join(' | ')).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
  });
});

describe('the tab title and favicon when the alert clears', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let csv: string;

  /** KL rows: 0.005 is healthy (below 0.8 × target_kl 0.02), 0.1 is over twice the target (critical). */
  const klRows = (from: number, n: number, kl: number): string =>
    Array.from({ length: n }, (_, i) => `${from + i},${kl}\n`).join('');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-notify-'));
    mkdirSync(join(dir, 'kl_run'));
    csv = join(dir, 'kl_run', 'progress.csv');
    writeFileSync(csv, 'step,approx_kl\n' + klRows(0, 10, 0.005));
    // The run's own target: without one KL is judged against the run's level, not a default 0.02.
    writeFileSync(join(dir, 'kl_run', 'config.json'), JSON.stringify({ target_kl: 0.02 }));
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openWithSpy(browser, url));
    await page.locator('.run-list button[data-run="kl_run"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('raised: a red dot and "⛔ 1"; cleared: the plain title and the app icon again', async () => {
    await page.getByRole('button', { name: /Allow notifications/ }).click();
    await page.locator('[data-notify="granted"]').waitFor();
    const appIcon = await iconHref(page);
    expect(await page.title()).toBe('rlwatch');

    appendFileSync(csv, klRows(10, 6, 0.1));
    await expect.poll(() => page.title(), { timeout: 30_000 }).toBe('⛔ 1 · rlwatch');
    await expect.poll(async () => decodeURIComponent((await iconHref(page)) ?? '')).toMatch(/fill="#dc2626"/);
    await expect
      .poll(() => page.evaluate(() => window.__notes.map((n) => n.title)))
      .toEqual([expect.stringMatching(/^Critical: KL above target — kl_run$/)]);

    appendFileSync(csv, klRows(16, 8, 0.005));
    await expect.poll(() => page.title(), { timeout: 30_000 }).toBe('rlwatch');
    await expect.poll(() => iconHref(page)).toBe(appIcon);
    expect(errors).toEqual([]);
  });
});
