// The page asks for its first charts' series without waiting for settings.get, and before the grid makes its charts;
// settings arriving later (another theme, earlier sessions) fetch no series again (#36).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { launchChromium } from './browser';
import { FIRST_CHART_INKED_FN } from './first-chart-ink';
import type { CliProcess } from './cli-process';
import { collectErrors, serveIsolated, servedUrl } from './demo-server';
import { apiOf } from './socket-api';

/**
 * In the page, before its script: every request sent on the socket is logged (channel, args, time), and the answer to
 * settings.get is held back until a series.get has been sent (or 5 s have passed), as a slow settings store would.
 */
const HOLD_SETTINGS = `(() => {
  window.__sent = [];
  const W = window.WebSocket;
  window.WebSocket = class extends W {
    constructor(...a) {
      super(...a);
      let settingsId = null;
      let release = null;
      const send = this.send.bind(this);
      this.send = (text) => {
        const m = JSON.parse(text);
        window.__sent.push({ channel: m.channel, args: m.args, heldSettings: release !== null });
        if (m.channel === 'settings.get') settingsId = m.id;
        if (m.channel === 'series.get' && release) release();
        return send(text);
      };
      let handler = null;
      super.onmessage = (ev) => {
        const id = /^\\{"id":(\\d+)/.exec(String(ev.data));
        if (id && Number(id[1]) === settingsId && !window.__sent.some((s) => s.channel === 'series.get')) {
          const timer = setTimeout(() => release(), 5000);
          release = () => { clearTimeout(timer); release = null; window.__settingsAnsweredAt = window.__sent.length; handler?.(ev); };
          return;
        }
        if (id && Number(id[1]) === settingsId) window.__settingsAnsweredAt = window.__sent.length;
        handler?.(ev);
      };
      Object.defineProperty(this, 'onmessage', { set: (f) => (handler = f), get: () => handler });
    }
  };
})()`;

let dir: string;
let serve: CliProcess;
let url: string;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-first-requests-'));
  mkdirSync(join(dir, 'run'));
  const w = new EventFileWriter(join(dir, 'run'), {
    fileName: 'events.out.tfevents.1700000000.e2e',
    wallTime: 1.7e9,
  });
  const tags = ['train/reward', 'train/loss', 'train/kl', 'train/entropy'];
  for (let s = 0; s < 500; s++)
    w.scalars(
      s,
      tags.map((tag, i) => ({ tag, value: Math.sin(s / 40 + i) + i })),
      'simple',
      1.7e9 + s,
    );
  w.close();
  ({ serve } = serveIsolated(dir));
  url = await servedUrl(serve);
  // Saved settings this browser has never seen: dark differs from the page's default ('system'), smoothing from its 0.6.
  const api = await apiOf(url);
  try {
    expect((await api.ask('settings.set', { patch: { theme: 'dark', smoothing: 0.2 } })).ok).toBe(true);
  } finally {
    api.close();
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('series are asked while settings.get is unanswered; settings applied later fetch none again (#36)', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(HOLD_SETTINGS);
  await page.goto(url);
  await page
    .locator('figure.chart[data-tag="train/reward"][data-state="ready"]')
    .waitFor({ timeout: 30_000 });
  // The saved settings are applied: the dark theme, the smoothing.
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  await expect.poll(() => page.locator('figure.chart[data-state="ready"]').count()).toBe(4);
  await page.waitForTimeout(500);
  const sent = (await page.evaluate('window.__sent')) as {
    channel: string;
    args: unknown;
    heldSettings: boolean;
  }[];
  const series = sent.filter((s) => s.channel === 'series.get');
  // The first series were asked while the settings' answer was still held back.
  expect(series.length).toBeGreaterThan(0);
  expect(series[0]!.heldSettings).toBe(true);
  // Each series is asked once: the settings that came after changed no request.
  const keys = series.map((s) => JSON.stringify(s.args));
  expect(new Set(keys).size).toBe(keys.length);
  expect(new Set(series.map((s) => (s.args as { tag: string }).tag))).toEqual(
    new Set(['train/reward', 'train/loss', 'train/kl', 'train/entropy']),
  );
  expect(errors).toEqual([]);
  await page.close();
});

/** In the page, before its script: each series.get sent, with whether a chart was in the page when it was sent. */
const LOG_SERIES = `(() => {
  window.__series = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (text) {
    const m = JSON.parse(text);
    if (m.channel === 'series.get')
      window.__series.push({ args: m.args, chartInPage: document.querySelector('figure.chart') !== null });
    return send.call(this, text);
  };
})()`;

test("the first screen's series are asked before the grid makes its charts, each once (#36)", async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(LOG_SERIES);
  await page.goto(url);
  await expect.poll(() => page.locator('figure.chart[data-state="ready"]').count()).toBe(4);
  await page.waitForTimeout(500);
  const series = (await page.evaluate('window.__series')) as {
    args: { run: string; tag: string; pixels: number };
    chartInPage: boolean;
  }[];
  // Asked as the grid first renders, not by each chart once it is made (≈ 0.3 s of mounting later at load).
  expect(series.length).toBeGreaterThan(0);
  expect(series.every((s) => !s.chartInPage)).toBe(true);
  // Each chart took the answer asked for it (the width guessed before layout fits the plot): none asked again.
  const keys = series.map((s) => `${s.args.run}/${s.args.tag}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys.length).toBe(4);
  // The answer taken is the one drawn: each chart's points are there.
  for (const n of await page
    .locator('figure.chart')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-points')))))
    expect(n).toBeGreaterThan(0);
  expect(errors).toEqual([]);
  await page.close();
});

/** In the page, before its script: each app.firstScreen sent, with how many charts were drawn with data then. */
const LOG_FIRST_SCREEN = `(() => {
  window.__firstScreen = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (text) {
    const m = JSON.parse(text);
    if (m.channel === 'app.firstScreen')
      window.__firstScreen.push({ ready: document.querySelectorAll('figure.chart[data-state="ready"]').length });
    return send.call(this, text);
  };
})()`;

test('the page tells serve once, after its first chart is drawn with its data (app.firstScreen, #36)', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(LOG_FIRST_SCREEN);
  await page.goto(url);
  await expect.poll(() => page.locator('figure.chart[data-state="ready"]').count()).toBe(4);
  await page.waitForTimeout(500);
  const told = (await page.evaluate('window.__firstScreen')) as { ready: number }[];
  // serve's held work (first reads' judging) starts on this notice, not while the first chart is still to be drawn.
  expect(told).toHaveLength(1);
  expect(told[0]!.ready).toBeGreaterThan(0);
  expect(errors).toEqual([]);
  await page.close();
});

/** In the page, before its script: whether Svelte's runtime (it marks `window.__svelte` as it is evaluated) had run
 * when the page made its socket. */
const SOCKET_BEFORE_SVELTE = `(() => {
  window.__socketMade = [];
  const W = window.WebSocket;
  window.WebSocket = class extends W {
    constructor(...a) {
      window.__socketMade.push({ svelteEvaluated: window.__svelte !== undefined });
      super(...a);
    }
  };
})()`;

test("the page opens its socket before the dashboard's code is evaluated, so the handshake overlaps it (#36)", async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(SOCKET_BEFORE_SVELTE);
  await page.goto(url);
  await page.locator('figure.chart[data-state="ready"]').first().waitFor({ timeout: 30_000 });
  // One socket, made before Svelte, chart.js and the dashboard's modules ran (before: after all of them, just
  // before the mount, so the handshake waited for the whole script).
  expect(await page.evaluate('window.__socketMade')).toEqual([{ svelteEvaluated: false }]);
  expect(errors).toEqual([]);
  await page.close();
});

/** In the page, before its script: each time charts are added to the page, how many, and whether the first chart's
 * canvas had its data drawn then (pixels in a run colour, the bench's probe). */
const LOG_CHARTS_MADE = `(() => {
  window.__made = [];
  const inked = ${FIRST_CHART_INKED_FN};
  new MutationObserver((records) => {
    let added = 0;
    for (const r of records)
      for (const n of r.addedNodes)
        if (n instanceof Element) added += (n.matches('figure.chart') ? 1 : 0) + n.querySelectorAll('figure.chart').length;
    if (added > 0) window.__made.push({ added, inked: inked() });
  }).observe(document, { childList: true, subtree: true });
})()`;

test('the first chart is made alone; the rest of the first screen once it is drawn with its data (#36)', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(LOG_CHARTS_MADE);
  await page.goto(url);
  await expect.poll(() => page.locator('figure.chart[data-state="ready"]').count()).toBe(4);
  const made = (await page.evaluate('window.__made')) as { added: number; inked: boolean }[];
  // Before: the grid made its four charts at once, and the first was drawn behind all four's mounting.
  expect(made.filter((m) => !m.inked).reduce((n, m) => n + m.added, 0)).toBe(1);
  expect(made.reduce((n, m) => n + m.added, 0)).toBe(4);
  expect(errors).toEqual([]);
  await page.close();
});
