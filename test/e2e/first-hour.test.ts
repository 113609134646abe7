// End to end: what a newcomer sees first in a browser: the empty states say what to do next, "Open folder…" says how to serve another folder.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, serveIsolated, servedUrl } from './demo-server';
import { saveScreenshot } from './screenshots';

/** Serves `dir` in a fresh Chromium page; `stop` ends both. */
async function served(dir: string): Promise<{ page: Page; errors: string[]; stop: () => Promise<void> }> {
  const { serve, storeDir }: { serve: CliProcess; storeDir: string } = serveIsolated(dir);
  const browser: Browser = await launchChromium();
  const { page, errors } = await openPage(browser, await servedUrl(serve), { width: 1280, height: 800 });
  return {
    page,
    errors,
    async stop() {
      await browser.close();
      await serve.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

describe('a folder with no runs, served to a browser', () => {
  // A space and a quote in the name: the command shown must still be pasteable.
  let parent: string;
  let dir: string;
  let s: Awaited<ReturnType<typeof served>>;

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-first-'));
    dir = join(parent, 'my runs');
    mkdirSync(dir);
    s = await served(dir);
  });

  afterAll(async () => {
    await s?.stop();
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  test('the empty screen says in one line what to do next', async () => {
    const next = s.page.locator('.empty-folder [data-empty-next]');
    await next.waitFor({ timeout: 15_000 });
    expect((await next.innerText()).trim()).toBe(
      'rlwatch is watching this folder: start a trainer that writes TensorBoard, CSV or JSONL logs under it, or open another folder (“Open folder…” above).',
    );
    // The run list agrees, and the demo command to try is pasteable despite the space in the folder's name.
    expect((await s.page.locator('.sidebar [data-empty-next]').innerText()).trim()).toBe(
      'No runs found yet — each appears here as its trainer writes.',
    );
    expect(await s.page.locator('.empty-folder [data-try-demo] code').innerText()).toBe(
      `rlwatch demo '${dir}/demo'`,
    );
    await saveScreenshot(s.page, 'first-hour-empty-folder.png');
    expect(s.errors).toEqual([]);
  });

  test('"Open folder…" says the page serves one folder and builds the command for another, quoted for the shell', async () => {
    await s.page.locator('.topbar button[data-serve-open]').click();
    const dialog = s.page.locator('dialog.serve-folder-dialog');
    await dialog.waitFor();
    expect(await dialog.locator('[data-serve-root]').innerText()).toBe(
      `This page serves ${dir} and only that folder: a browser page cannot open another one.`,
    );
    // The path field starts beside the served folder.
    const field = dialog.locator('#serve-folder-dir');
    expect(await field.inputValue()).toBe(`${parent}/`);
    const command = dialog.locator('[data-serve-command]');
    expect(await command.innerText()).toBe(`rlwatch serve ${parent}/`);
    await field.fill(`${parent}/other run's logs`);
    await expect.poll(() => command.innerText()).toBe(`rlwatch serve '${parent}/other run'\\''s logs'`);
    await field.fill(`${parent}/exp2`);
    await expect.poll(() => command.innerText()).toBe(`rlwatch serve ${parent}/exp2`);
    // The copy button answers either way (clipboard written, or the command selected for Ctrl+C).
    await dialog.locator('button[type="submit"]').click();
    await expect
      .poll(() => dialog.locator('[role="status"]').innerText())
      .toMatch(/^(Copied|Selected: press Ctrl\+C)$/);
    await saveScreenshot(s.page, 'serve-open-folder.png', { docs: 'screenshots/serve-open-folder.png' });
    await dialog.locator('button', { hasText: 'Close' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(s.errors).toEqual([]);
  });
});

describe('a healthy run with no completions, served to a browser', () => {
  let dir: string;
  let s: Awaited<ReturnType<typeof served>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-first-run-'));
    mkdirSync(join(dir, 'calm'));
    const rows = Array.from({ length: 30 }, (_, k) => `${k + 1},${(0.5 + k * 0.01).toFixed(3)}`);
    writeFileSync(join(dir, 'calm', 'metrics.csv'), ['step,reward', ...rows].join('\n') + '\n');
    s = await served(dir);
    await s.page.locator('.run-list button[data-run="calm"]').first().click();
  });

  afterAll(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('no alerts: the panel says every rule holds', async () => {
    const line = s.page.locator('.alerts-panel [data-empty-next]');
    await line.waitFor({ timeout: 15_000 });
    expect((await line.innerText()).trim()).toBe(
      'No alerts — every rule holds; a metric leaving its healthy band shows here.',
    );
    await saveScreenshot(s.page, 'first-hour-no-alerts.png');
  });

  test('no samples: the view says this run logs none and which files count', async () => {
    await s.page.locator('.toolbar label', { hasText: 'Samples' }).click();
    const line = s.page.locator('.samples-view [data-empty-next]');
    await line.waitFor({ timeout: 15_000 });
    expect((await line.innerText()).trim()).toBe(
      'No samples — this run logs no completions: a JSONL file with prompt / completion fields, W&B or trackio tables, trackio traces or TensorBoard text summaries in its folder show here.',
    );
    await saveScreenshot(s.page, 'first-hour-no-samples.png');
    expect(s.errors).toEqual([]);
  });

  test('a view whose script cannot be loaded says so and what to do, never a blank page', async () => {
    // The runs table is a script of its own, loaded when first shown: here its request fails (serve gone, say).
    await s.page.route('**/RunsTable-*.js', (route) => route.abort());
    await s.page.locator('.toolbar label', { hasText: 'Table' }).click();
    const failed = s.page.locator('[data-part-failed]');
    await failed.waitFor({ timeout: 15_000 });
    expect(await failed.innerText()).toMatch(
      /^Could not load the runs table \(.+\)\. Reload the page; if it fails again, check that rlwatch is still running\.$/,
    );
    await saveScreenshot(s.page, 'first-hour-part-failed.png');
    // The rest of the page goes on: back to the charts, the run's chart is there.
    await s.page.locator('.toolbar label', { hasText: 'Charts' }).click();
    await s.page.locator('figure.chart[data-tag="reward"]').waitFor({ timeout: 15_000 });
  });
});
