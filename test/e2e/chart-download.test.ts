// End to end: a chart's "Download data" in serve mode — the CSV and JSON parse back to the chart's points
// (every overlaid run, raw values, NaN and ±Infinity spelled out), and only the visible window when zoomed.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';

/** What each run's `loss` column holds, as written (text) — 40 and 25 rows with a NaN and both infinities. */
function lossColumn(n: number, scale: number): string[] {
  return Array.from({ length: n }, (_, k) =>
    k === 5
      ? 'nan'
      : k === 10
        ? 'inf'
        : k === 15
          ? '-inf'
          : String(Number((scale * Math.sin(k + 1)).toFixed(9))),
  );
}
const RUNS = { alpha: lossColumn(40, 0.123456789), beta: lossColumn(25, 3.3) };

declare global {
  interface Window {
    /** chart-setup.ts's render-check hook (pages opened with `?check=1`): the live chart.js instances. */
    __rlwatchCharts?: () => {
      canvas: HTMLCanvasElement;
      data: { datasets: { label?: string; data: unknown[] }[] };
    }[];
  }
}

interface Row {
  run: string;
  tag: string;
  step: number;
  /** null where the file logged no wall time (an empty cell, never an invented one). */
  wall: number | null;
  value: string;
}

/** The long CSV, split naively: these run and tag names need no quoting. */
function parseCsv(text: string): Row[] {
  const [header, ...lines] = text.trimEnd().split('\n');
  expect(header).toBe('run,tag,step,wall_time,value,session');
  return lines.map((l) => {
    const [run, tag, step, wall, value] = l.split(',');
    return {
      run: run!,
      tag: tag!,
      step: Number(step),
      wall: wall === '' ? null : Number(wall),
      value: value!,
    };
  });
}

/** The chart.js points of each run's raw line (through the `?check=1` hook), as [x, y]. */
async function chartPoints(figure: Locator): Promise<Record<string, [number, number][]>> {
  return figure.evaluate((fig) => {
    const chart = window.__rlwatchCharts!().find((c) => c.canvas.closest('figure.chart') === fig)!;
    const out: Record<string, [number, number][]> = {};
    for (const ds of chart.data.datasets) {
      if (String(ds.label).endsWith('(smoothed)')) continue;
      out[String(ds.label)] = (ds.data as { x: number; y: number }[]).map((p) => [p.x, p.y]);
    }
    return out;
  });
}

/** Clicks a Download data item of the chart and returns the downloaded file's name and text. */
async function download(
  page: Page,
  figure: Locator,
  format: 'CSV' | 'JSON',
): Promise<{ name: string; text: string }> {
  await figure.getByRole('button', { name: 'Download data' }).click();
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    figure.getByRole('menuitem', { name: `Download data (${format})` }).click(),
  ]);
  return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
}

/** A row's value against the chart's y: the same number, or (where the chart draws a gap) the non-finite value written. */
function sameAsChart(value: string, y: number, source: string): boolean {
  if (Number.isFinite(y)) return Number(value) === y;
  return value === { nan: 'NaN', inf: 'Infinity', '-inf': '-Infinity' }[source];
}

describe("a chart's Download data", () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let figure: Locator;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-download-'));
    for (const [run, values] of Object.entries(RUNS)) {
      mkdirSync(join(dir, run));
      const rows = values.map((v, k) => `${k + 1},${v}`);
      writeFileSync(join(dir, run, 'progress.csv'), ['step,loss', ...rows].join('\n') + '\n');
    }
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, `${url}&check=1`));
    // Two runs logging the same tags are a sweep: the folder opens with both overlaid.
    await page.locator('input[aria-label="overlay beta on the charts"]:checked').waitFor({ timeout: 30_000 });
    await seeChart(page, 'loss');
    figure = page.locator('figure.chart[data-tag="loss"]');
    // Both runs drawn, every point loaded.
    await page.locator('figure.chart[data-tag="loss"][data-run="alpha,beta"][data-points="65"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  test("CSV: every overlaid run, the chart's points exactly, NaN and ±Infinity spelled out", async () => {
    const { name, text } = await download(page, figure, 'CSV');
    expect(name).toBe('loss.csv');
    const rows = parseCsv(text);
    const points = await chartPoints(figure);
    expect(Object.keys(points)).toEqual(['alpha', 'beta']);
    for (const [run, source] of Object.entries(RUNS)) {
      const mine = rows.filter((r) => r.run === run);
      expect(mine.map((r) => r.step)).toEqual(points[run]!.map(([x]) => x));
      mine.forEach((r, i) => {
        expect(r.tag).toBe('loss');
        // The CSV logs no wall time: the cell is empty, never a time made up from the file's mtime.
        expect(r.wall).toBeNull();
        expect(
          sameAsChart(r.value, points[run]![i]![1], source[i]!),
          `${run} step ${r.step}: ${r.value}`,
        ).toBe(true);
      });
    }
    expect(rows.length).toBe(65);
  });

  test('JSON: the same rows as objects', async () => {
    const csv = parseCsv((await download(page, figure, 'CSV')).text);
    const { name, text } = await download(page, figure, 'JSON');
    expect(name).toBe('loss.json');
    const rows = JSON.parse(text) as {
      run: string;
      tag: string;
      step: number;
      wall_time: number | null;
      value: number | string;
    }[];
    expect(rows.map((r) => [r.run, r.tag, r.step, r.wall_time, String(r.value)])).toEqual(
      csv.map((r) => [r.run, r.tag, r.step, r.wall, r.value]),
    );
  });

  test('zoomed: only the visible x-window', async () => {
    await figure.locator('.chart-box').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await expect.poll(() => figure.getAttribute('data-zoomed')).toBe('true');
    // The zoomed window (the visible range plus margins) has replaced the whole series.
    await expect.poll(async () => Number(await figure.getAttribute('data-points'))).toBeLessThan(65);
    const [min, max] = (await figure.getAttribute('data-x-range'))!.split(',').map(Number) as [
      number,
      number,
    ];
    const rows = parseCsv((await download(page, figure, 'CSV')).text);
    const points = await chartPoints(figure);
    const visible = Object.entries(points).flatMap(([run, pts]) =>
      pts.filter(([x]) => x >= min && x <= max).map(([x]) => `${run}@${x}`),
    );
    expect(rows.map((r) => `${r.run}@${r.step}`)).toEqual(visible);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(65);
    expect(errors).toEqual([]);
  });
});
