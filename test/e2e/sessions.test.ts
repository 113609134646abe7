// End to end: a trainer that blew up, was killed and restarted in the same folder keeps its crashed session on the
// chart (faded, with a toggle), and two writers at once (Keras-style train/test files) stay apart.

import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';

const KATIB = fileURLToPath(new URL('../fixtures/tfevents/kubeflow__katib', import.meta.url));

/** Session 1: 44 updates, KL blowing up to 0.65 from update 30 on; killed; session 2 restarts from 0: 31 updates. */
function crashedThenRestarted(dir: string): void {
  const t0 = 1_760_000_000;
  const first = new EventFileWriter(dir, { fileName: `events.out.tfevents.${t0}.box.100.0`, wallTime: t0 });
  for (let k = 1; k <= 44; k++)
    first.scalars(
      k * 1024,
      [{ tag: 'train/approx_kl', value: k < 30 ? 0.01 : 0.01 * 65 }],
      'simple',
      t0 + k * 10,
    );
  first.close();
  const t1 = t0 + 3600;
  const second = new EventFileWriter(dir, { fileName: `events.out.tfevents.${t1}.box.200.0`, wallTime: t1 });
  for (let k = 1; k <= 31; k++)
    second.scalars(k * 1024, [{ tag: 'train/approx_kl', value: 0.008 }], 'simple', t1 + k * 10);
  second.close();
}

/** Every raw line the chart of `tag` draws: label → point count and highest y. */
async function lines(page: Page, tag: string): Promise<Record<string, { n: number; max: number }>> {
  const fig = page.locator(`figure.chart[data-tag="${tag}"]`);
  return fig.evaluate((el) => {
    const chart = window.__rlwatchCharts!().find((c) => c.canvas.closest('figure.chart') === el)!;
    const out: Record<string, { n: number; max: number }> = {};
    for (const ds of chart.data.datasets) {
      if (String(ds.label).endsWith('(smoothed)')) continue;
      const ys = (ds.data as { y: number }[]).map((p) => p.y);
      out[String(ds.label)] = { n: ys.length, max: Math.max(...ys) };
    }
    return out;
  });
}

describe('sessions and writers on the dashboard', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-sessions-'));
    mkdirSync(join(dir, 'restarted'));
    crashedThenRestarted(join(dir, 'restarted'));
    cpSync(KATIB, join(dir, 'keras'), { recursive: true });
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    ({ page } = await openPage(browser, `${await servedUrl(serve)}&check=1`, { width: 1280, height: 900 }));
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test("a restart keeps the crashed session's KL blow-up on the chart, faded, and the toggle hides it", async () => {
    await page.locator('.run-select[data-run="restarted"]').click();
    await expect
      .poll(() => page.locator('.run-select[data-run="restarted"] .restarts').innerText())
      .toBe('· 2 sessions');
    const kl = 'train/approx_kl';
    await expect.poll(async () => Object.keys(await lines(page, kl)).length).toBe(2);
    // The current session (31 points, 0.008) and session 1 whole (44 points, the 0.65 blow-up included).
    await expect
      .poll(async () => (await lines(page, kl))['restarted'])
      .toEqual({ n: 31, max: expect.closeTo(0.008, 6) });
    await expect
      .poll(async () => (await lines(page, kl))['restarted · session 1'])
      .toEqual({ n: 44, max: expect.closeTo(0.65, 6) });
    const fig = page.locator(`figure.chart[data-tag="${kl}"]`);
    await expect
      .poll(() => fig.locator('[data-sessions-note]').innerText())
      .toBe('sessions 1–2 (1 dashed, faded)');
    await page.getByLabel('Earlier sessions').uncheck();
    await expect.poll(async () => Object.keys(await lines(page, kl))).toEqual(['restarted']);
    await expect
      .poll(() => fig.locator('[data-sessions-note]').innerText())
      .toBe('session 2 of 2 (earlier sessions hidden)');
    await page.getByLabel('Earlier sessions').check();
    await expect.poll(async () => Object.keys(await lines(page, kl)).length).toBe(2);
  });

  test('train and test event files written at once are two series, each with its own values, not a restart', async () => {
    await page.locator('.run-select[data-run="keras"]').click();
    await page.locator('figure.chart[data-tag="loss (writer 2)"]').waitFor();
    expect(await page.locator('.run-select[data-run="keras"] .restarts').count()).toBe(0);
    await expect.poll(async () => (await lines(page, 'loss'))['keras']?.n).toBe(10);
    // The train writer's finite values (0.2048 → 0.0360666) are drawn, as inspect reads its file.
    expect((await lines(page, 'loss'))['keras']!.max).toBeCloseTo(0.2048, 4);
    // The second writer's chart is made before its data arrives.
    await expect
      .poll(async () => (await lines(page, 'loss (writer 2)'))['keras']?.max)
      .toBeCloseTo(0.0755185, 6);
  });
});
