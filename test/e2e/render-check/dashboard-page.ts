// The served dashboard for the render check: serve a folder, open it with `?check=1`, select runs, read charts.

import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { servedUrl, serveIsolated } from '../demo-server';
import type { CliProcess } from '../cli-process';
import { folderKey } from '../../../src/renderer/src/lib/folder-view';
import type { ChartState } from './chart-state';
import { showsItsRuns } from './invariants';
import { readChart } from './read-chart';

/** Where read errors are looked for: every element whose text names an error's file and kind passes. */
export const READ_ERROR_SELECTOR = '.sidebar, .notices, .read-errors, [data-read-error]';

const TIMEOUT_MS = 20_000;

export interface DashboardPage {
  page: Page;
  /** Selects `run` alone and waits until its charts (or the "no metrics" note) are on the page. */
  select(run: string): Promise<void>;
  /** Every chart figure of the selected run, each scrolled into view and read once drawn (null: never drawn). */
  readCharts(run: string): Promise<{ tag: string; state: ChartState | null }[]>;
  /** Saves a screenshot of one chart's figure. */
  screenshotChart(run: string, tag: string, path: string): Promise<void>;
  /** Scrolls every scrolled pane back to its top (before a screenshot). */
  scrollToTop(): Promise<void>;
  /** The visible texts of the elements READ_ERROR_SELECTOR names. */
  errorTexts(): Promise<string[]>;
  /** Picks the toolbar's x axis (Step, Relative, Wall) for every chart. */
  setXAxis(mode: 'Step' | 'Relative' | 'Wall'): Promise<void>;
  /** The run list's sessions / restarts badge of `run` ("· 2 sessions"), null when it shows none. */
  sessionsBadge(run: string): Promise<string | null>;
  close(): Promise<void>;
}

const runButton = (run: string): string => `.run-list button.run-select[data-run=${JSON.stringify(run)}]`;
const runFigures = (run: string): string => `figure.chart[data-run=${JSON.stringify(run)}]`;

async function until<T>(what: string, probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits for two animation frames, so a chart update queued by the last data has been drawn. */
const frames = (page: Page): Promise<unknown> =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * Scrolls the figure into view and reads its chart once drawn with its own run's lines (null if never drawn;
 * the last state read if it keeps showing another run's). The figure is found afresh on every try: the grid
 * may re-render it while the run's details arrive.
 */
async function readDrawn(page: Page, figure: Locator): Promise<ChartState | null> {
  const deadline = Date.now() + TIMEOUT_MS;
  let last: ChartState | null = null;
  while (Date.now() < deadline) {
    try {
      await figure.scrollIntoViewIfNeeded({ timeout: 2_000 });
      if ((await figure.getAttribute('data-state', { timeout: 2_000 })) !== 'loading') {
        await frames(page);
        last = (await readChart((await figure.elementHandle({ timeout: 2_000 }))!)) ?? last;
        if (last && showsItsRuns(last).length === 0) return last;
      }
    } catch {
      // Detached or re-rendered between steps: try again.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

/** The tags of the run's chart figures, once the same for half a second (the grid has settled). Charts the grid
 * keeps as placeholders until they come near the viewport are scrolled to first, so every chart is judged. */
async function settledTags(page: Page, run: string): Promise<string[]> {
  const deadline0 = Date.now() + 4 * TIMEOUT_MS;
  while (Date.now() < deadline0) {
    const left = await page.$$eval('.chart-placeholder[data-lazy]', (els) => {
      els[els.length - 1]?.scrollIntoView({ block: 'center' });
      return els.length;
    });
    if (left === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  let last = '';
  let since = Date.now();
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const tags = await page.$$eval(runFigures(run), (els) =>
      els.map((e) => e.getAttribute('data-tag') ?? ''),
    );
    const key = tags.join('\n');
    if (key !== last) {
      last = key;
      since = Date.now();
    } else if (Date.now() - since >= 500 || Date.now() > deadline) return tags;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Serves `dir` with its own database and opens it in a fresh page of `browser`. */
export async function openDashboard(browser: Browser, dir: string): Promise<DashboardPage> {
  const { serve, storeDir } = serveIsolated(dir);
  let page: Page | null = null;
  const stop = async (s: CliProcess): Promise<void> => {
    await page?.close();
    await s.stop();
    rmSync(storeDir, { recursive: true, force: true });
  };
  try {
    const url = await servedUrl(serve);
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    // Each run is checked alone: a sweep in the folder is not overlaid when it opens (its per-folder toggle off).
    await page.addInitScript(
      ([key, value]) => localStorage.setItem(key!, value!),
      [folderKey(resolve(dir)), JSON.stringify({ composed: [], sweepOverlay: false })],
    );
    await page.goto(`${url}&check=1`);
    await page.locator('.run-list').waitFor();
  } catch (e) {
    await stop(serve);
    throw e;
  }
  const p = page;
  const figureOf = (run: string, tag: string): Locator =>
    p.locator(`${runFigures(run)}[data-tag=${JSON.stringify(tag)}]`).first();
  return {
    page: p,
    async select(run) {
      const button = p.locator(runButton(run));
      await button.waitFor({ timeout: TIMEOUT_MS });
      await button.click();
      await until(`run ${run} selected with its charts`, async () => {
        if ((await button.getAttribute('aria-current')) !== 'true') return null;
        if ((await p.locator(runFigures(run)).count()) > 0) return true;
        return (await p.locator('.chart-grid .empty').count()) > 0 ? true : null;
      });
    },
    async readCharts(run) {
      const out: { tag: string; state: ChartState | null }[] = [];
      for (const tag of await settledTags(p, run)) {
        const figure = figureOf(run, tag);
        out.push({ tag, state: await readDrawn(p, figure) });
      }
      return out;
    },
    async screenshotChart(run, tag, path) {
      await figureOf(run, tag).screenshot({ path, timeout: 5_000 });
    },
    scrollToTop: () =>
      p.evaluate(() => {
        document.querySelectorAll('*').forEach((el) => {
          if (el.scrollTop > 0) el.scrollTop = 0;
        });
        window.scrollTo(0, 0);
      }),
    errorTexts: () => p.$$eval(READ_ERROR_SELECTOR, (els) => els.map((e) => (e as HTMLElement).innerText)),
    async setXAxis(mode) {
      await p.locator('.toolbar').getByRole('radio', { name: mode, exact: true }).check();
    },
    async sessionsBadge(run) {
      const badge = p.locator(`${runButton(run)} .restarts`);
      return (await badge.count()) > 0 ? (await badge.first().innerText()).trim() : null;
    },
    close: () => stop(serve),
  };
}
