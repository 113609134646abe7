// Test helper: charts are created only once scrolled near, so tests that look at a chart scroll its cell into view first.

import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Scrolls the cell of `tag` into view, so its chart is created. The grid may swap the cell (a placeholder for
 * the chart, a re-render as run details arrive) between finding and scrolling it: then it tries again. */
export async function seeChart(page: Page, tag: string): Promise<void> {
  const cell = page.locator(`.charts > [data-tag="${tag}"]`).first();
  // A plain loop, not expect.poll: suites call this from beforeAll too.
  for (let tries = 0; ; tries++) {
    try {
      await cell.waitFor({ timeout: 5_000 });
      await cell.scrollIntoViewIfNeeded({ timeout: 5_000 });
      break;
    } catch (err) {
      if (tries >= 5) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await page.locator(`figure.chart[data-tag="${tag}"]`).first().waitFor();
}

/** Scrolls every not-yet-seen cell into view once (the grid keeps charts it has created), then back to the top.
 * A live run can add cells while this scrolls, and a loaded machine can be slow to create a chart: passes repeat
 * until none is left. */
export async function seeAllCharts(page: Page): Promise<void> {
  const pass = async (): Promise<number> => {
    await page.evaluate(async () => {
      for (let i = 0; i < 500; i++) {
        const el = document.querySelector('[data-lazy]');
        if (!el) break;
        el.scrollIntoView();
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20)));
      }
    });
    return page.locator('[data-lazy]').count();
  };
  await expect.poll(pass, { timeout: 60_000, interval: 500 }).toBe(0);
  await page.evaluate(() => document.querySelector('main.content')?.scrollTo(0, 0));
}
