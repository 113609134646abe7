// End to end: hovering one chart puts the same x crosshair on every chart on screen, each reading its runs' values there.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatNumber } from '../../src/shared/format';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';
import { saveScreenshot } from './screenshots';

const RUNS = ['alpha', 'beta', 'gamma'] as const;
const TAGS = ['reward', 'loss', 'kl'] as const;
/** Logged every 10 steps, 5 s apart; gamma logs twice as fast (its points fall on other steps by time). */
const STEPS = Array.from({ length: 41 }, (_, i) => i * 10);
const WALL0 = 1_700_000_000;

/** The value a run logs: each run a fixed offset above the last, so their order at any step is known. */
function value(run: number, tag: (typeof TAGS)[number], step: number): number {
  const base = tag === 'reward' ? Math.sqrt(step) : tag === 'loss' ? 5 / (1 + step / 50) : 0.01 + step / 4000;
  return Number((base + run * (tag === 'kl' ? 0.003 : 0.5) + 0.001 * ((step * 7) % 13)).toPrecision(6));
}

function jsonl(run: number): string {
  const secondsPerStep = run === 2 ? 0.25 : 0.5;
  return STEPS.map((step) =>
    JSON.stringify({
      _step: step,
      _timestamp: WALL0 + step * secondsPerStep,
      ...Object.fromEntries(TAGS.map((t) => [t, value(run, t, step)])),
    }),
  ).join('\n');
}

describe('linked hover across charts', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const chart = (tag: string): Locator => page.locator(`figure.chart[data-tag="${tag}"]`);
  const hoverX = (tag: string): Promise<string | null> => chart(tag).getAttribute('data-hover-x');
  /** The readout's rows in words (each row's data-row), top to bottom. */
  const rows = (tag: string): Promise<string[]> =>
    chart(tag)
      .locator('.chart-readout-row')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.row ?? ''));

  /** Moves the pointer over `tag`'s plot at `fraction` of its width (the canvas's middle row). */
  async function hover(tag: string, fraction: number): Promise<void> {
    const box = (await chart(tag).locator('canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2);
  }

  /** The crosshair's page x and the pixel of data x `x` on the chart's own x scale (chart.js, through ?check=1). */
  async function crosshairAndPixel(
    tag: string,
    x: number,
  ): Promise<{ line: number; want: number; shown: boolean }> {
    return chart(tag).evaluate((figure, at) => {
      const w = window as unknown as {
        __rlwatchCharts(): {
          canvas: HTMLCanvasElement;
          scales: { x: { getPixelForValue(v: number): number } };
        }[];
      };
      const c = w.__rlwatchCharts().find((ch) => ch.canvas.closest('figure.chart') === figure)!;
      const line = figure.querySelector<HTMLElement>('.chart-crosshair')!;
      const r = line.getBoundingClientRect();
      const style = getComputedStyle(line);
      return {
        line: r.left,
        want: c.canvas.getBoundingClientRect().left + c.scales.x.getPixelForValue(at),
        shown:
          !line.hidden &&
          style.display !== 'none' &&
          r.height > 50 &&
          style.backgroundColor !== 'rgba(0, 0, 0, 0)',
      };
    }, x);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-hover-'));
    RUNS.forEach((run, i) => {
      mkdirSync(join(dir, run));
      writeFileSync(join(dir, run, 'metrics.jsonl'), jsonl(i) + '\n');
    });
    ({ serve, storeDir } = serveIsolated(dir));
    browser = await launchChromium();
    const url = `${await servedUrl(serve)}&check=1`;
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
    await page.locator('.run-select[data-run="alpha"]').click();
    for (const run of ['beta', 'gamma']) await page.getByLabel(`overlay ${run} on the charts`).check();
    for (const tag of TAGS) {
      await seeChart(page, tag);
      await page
        .locator(`figure.chart[data-tag="${tag}"][data-run="alpha,beta,gamma"][data-state="ready"]`)
        .waitFor({ timeout: 30_000 });
    }
    await chart('reward').scrollIntoViewIfNeeded();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test('hovering reward puts the same step on loss and kl, each listing every run’s value there, highest first', async () => {
    await hover('reward', 0.45);
    await expect.poll(() => hoverX('reward')).not.toBeNull();
    const step = Number(await hoverX('reward'));
    expect(STEPS).toContain(step);
    for (const tag of TAGS) {
      await expect.poll(() => hoverX(tag)).toBe(String(step));
      await expect
        .poll(() => chart(tag).locator('.chart-readout-x').innerText())
        .toMatch(new RegExp(`^step ${step} · `));
      // Every run logs at this step: three rows, the values the files hold, sorted by value (gamma highest).
      // (Smoothing is on: each row says the smoothed value after the raw one, and the rows sort by it.)
      const want = [2, 1, 0].map((i) => `${RUNS[i]}: raw ${formatNumber(value(i, tag, step))}, smoothed`);
      await expect.poll(async () => (await rows(tag)).map((r) => r.replace(/ [^ ]+$/, ''))).toEqual(want);
      // The crosshair is placed by the chart's own hover handler, not necessarily in the readout's frame.
      await expect
        .poll(async () => {
          const at = await crosshairAndPixel(tag, step);
          return at.shown && Math.abs(at.line - at.want) <= 1;
        })
        .toBe(true);
      const c = await crosshairAndPixel(tag, step);
      expect(c.shown).toBe(true);
      expect(Math.abs(c.line - c.want)).toBeLessThanOrEqual(1);
    }
    await saveScreenshot(page, 'linked-hover.png', { docs: 'screenshots/linked-hover.png' });
  });

  test('moving along one chart moves every crosshair; leaving the chart clears them all', async () => {
    await hover('loss', 0.2);
    await expect.poll(() => hoverX('loss')).not.toBeNull();
    const first = await hoverX('loss');
    await hover('loss', 0.8);
    await expect.poll(() => hoverX('loss')).not.toBe(first);
    const step = await hoverX('loss');
    expect(Number(step)).toBeGreaterThan(Number(first));
    await expect.poll(() => hoverX('reward')).toBe(step);
    await expect.poll(() => hoverX('kl')).toBe(step);
    await page.mouse.move(5, 5);
    for (const tag of TAGS) {
      await expect.poll(() => hoverX(tag)).toBeNull();
      await expect.poll(() => chart(tag).locator('.chart-readout-row').count()).toBe(0);
      await expect.poll(async () => (await crosshairAndPixel(tag, 0)).shown).toBe(false);
    }
  });

  test('while the pointer moves the hovered chart draws its readout without DOM rows; at rest its DOM lists them', async () => {
    const box = (await chart('loss').locator('canvas').boundingBox())!;
    const [x, y] = [box.x + box.width * 0.3, box.y + box.height / 2];
    await page.mouse.move(x, y);
    // Never at rest: the pointer goes back and forth between two points (a move every 30 ms, under SETTLE_MS).
    await page.evaluate(
      ([x0, y0]: [number, number]) => {
        const canvas = document.querySelector('figure.chart[data-tag="loss"] canvas')!;
        let k = 0;
        (window as unknown as { jiggle: number }).jiggle = window.setInterval(() => {
          k ^= 1;
          canvas.dispatchEvent(
            new PointerEvent('pointermove', { clientX: x0 + k * 40, clientY: y0, bubbles: true }),
          );
        }, 30);
      },
      [x, y] as [number, number],
    );
    try {
      const layer = chart('loss').locator('.chart-readout-layer');
      await expect.poll(() => layer.evaluate((el) => (el as HTMLElement).hidden)).toBe(false);
      expect(await chart('loss').locator('.chart-readout-row').count()).toBe(0);
      await saveScreenshot(chart('loss'), 'linked-hover-moving.png');
      // The other charts follow with their crosshairs alone.
      await expect.poll(() => hoverX('kl')).not.toBeNull();
      expect(await chart('kl').locator('.chart-readout-row').count()).toBe(0);
    } finally {
      await page.evaluate(() => clearInterval((window as unknown as { jiggle: number }).jiggle));
    }
    // At rest: the canvas goes, the DOM readout (what screen readers read) lists every run.
    await expect.poll(async () => (await rows('loss')).length).toBe(3);
    expect(
      await chart('loss')
        .locator('.chart-readout-layer')
        .evaluate((el) => (el as HTMLElement).hidden),
    ).toBe(true);
    await page.mouse.move(5, 5);
    await expect.poll(() => hoverX('loss')).toBeNull();
  });

  test('the keyboard reads too: Shift+arrows step every chart’s x point by point from the newest, Escape ends it', async () => {
    const box = chart('loss').locator('.chart-box');
    await box.focus();
    await page.keyboard.press('Shift+ArrowLeft');
    const last = STEPS.at(-1)!;
    await expect.poll(() => hoverX('loss')).toBe(String(last));
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    const step = STEPS.at(-3)!;
    for (const tag of TAGS) await expect.poll(() => hoverX(tag)).toBe(String(step));
    // The focused chart's readout is announced; it lists every run at that step.
    await expect.poll(() => chart('loss').locator('.chart-readout').getAttribute('aria-live')).toBe('polite');
    await expect.poll(async () => (await rows('loss')).length).toBe(3);
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => hoverX('kl')).toBe(String(STEPS.at(-2)!));
    await page.keyboard.press('Escape');
    for (const tag of TAGS) await expect.poll(() => hoverX(tag)).toBeNull();
  });

  test('on a time axis the charts share the time: a run logged faster reads its own step there', async () => {
    await page.locator('.toolbar label', { hasText: 'Relative' }).click();
    for (const tag of TAGS) await expect.poll(() => chart(tag).getAttribute('data-xaxis')).toBe('relative');
    await expect.poll(() => chart('kl').getAttribute('data-state')).toBe('ready');
    await hover('kl', 0.3);
    await expect.poll(() => hoverX('kl')).not.toBeNull();
    // alpha (the first run) sets the time read: 0.5 s a step, so its step is twice the seconds.
    const seconds = Number(await hoverX('kl'));
    const step = seconds * 2;
    await expect.poll(() => hoverX('reward')).toBe(String(seconds));
    // reward is not the hovered chart: it lists its values once the pointer rests.
    await expect.poll(() => rows('reward')).toHaveLength(3);
    const rewardRows = await rows('reward');
    // gamma logs 0.25 s a step: at that time it is at twice alpha's step (when it has logged that far).
    const gammaStep = Math.min(step * 2, STEPS.at(-1)!);
    const gamma = rewardRows.find((r) => r.startsWith('gamma: '))!;
    expect(gamma).toMatch(
      new RegExp(
        `^gamma: raw ${formatNumber(value(2, 'reward', gammaStep))}, smoothed [-\\d.]+${gammaStep === step ? '' : ` @ step ${gammaStep}`}$`,
      ),
    );
    expect(rewardRows.find((r) => r.startsWith('alpha: '))).toMatch(
      new RegExp(`^alpha: raw ${formatNumber(value(0, 'reward', step))}, smoothed [-\\d.]+$`),
    );
    await page.mouse.move(5, 5);
    await expect.poll(() => hoverX('reward')).toBeNull();
    expect(errors).toEqual([]);
  });
});
