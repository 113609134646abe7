// End to end: a trackio project database in Chromium: the Samples view on TRL's completions table (image cells, hostile
// text) and on a trace key, and the Distributions section on a trackio histogram.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TrackioDb, trackioHistogram, trackioTable, trackioTrace } from '../helpers/tracker-dbs';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { samplesColumn } from './samples-table';

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
const RUN = 'project.db#grpo-trl';
const HTML = '<img src=x onerror="window.__pwned=1"><b>bold</b>';

/** TRL's GRPO logging to trackio: a `completions` table (step as text, prompt, completion, each reward, advantage)
 * every 10 steps, an SFT-style trace and a histogram of advantages. */
function writeProject(path: string): void {
  const db = new TrackioDb(path);
  const run = { id: 'run-1', name: 'grpo-trl' };
  db.config(run, { learning_rate: 1e-6, num_generations: 8 });
  const t0 = 1_745_000_000_000_000;
  for (let step = 10; step <= 30; step += 10) {
    db.log(
      run,
      step,
      {
        'train/loss': 1 / step,
        'train/reward': step / 30,
        completions: trackioTable(
          Array.from({ length: 8 }, (_, i) => ({
            step: String(step),
            prompt: i === 0 ? `hostile html ${HTML}` : `Question ${step}.${i}: what is ${i} + ${i}?`,
            completion: `The answer is ${2 * i}.`,
            'rewards/accuracy_reward': i % 2,
            'rewards/format_reward': 0.5,
            advantage: (i - 3.5) / 4,
            image:
              i === 1
                ? { _type: 'trackio.image', file_path: `media/grpo/${step}/chart.png`, caption: 'c' }
                : null,
          })),
        ),
        trace: trackioTrace(
          [
            { role: 'system', content: 'You are a demo model.' },
            { role: 'user', content: `What is ${step} + 2?` },
            { role: 'assistant', content: `${step + 2}.` },
          ],
          { trainer: 'trl-sft', loss: 0.25, global_step: step },
        ),
        advantages: trackioHistogram(
          Array.from({ length: 9 }, (_, i) => -2 + i * 0.5),
          Array.from({ length: 8 }, (_, i) => (i + 1) * (8 - i) + step),
        ),
      },
      t0 + step * 1_000_000,
    );
  }
  db.close();
}

describe('a trackio database in the browser', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-trackio-'));
    writeProject(join(dir, 'project.db'));
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
    await page.locator(`.run-list button[data-run="${RUN}"]`).first().click();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const pane = () => page.locator('.samples-pane').first();
  const count = () => pane().locator('.count').innerText();
  const column = (name: string): Promise<string[]> => samplesColumn(pane(), name);

  test('the Distributions section draws the trackio histogram', async () => {
    const cell = page.locator('.distribution-cell[data-tag="advantages"]');
    await cell.scrollIntoViewIfNeeded();
    await expect.poll(() => cell.getAttribute('data-step'), { timeout: 15_000 }).toBe('30');
    await expect.poll(() => cell.locator('.note').innerText()).toBe('3 of 3 step(s) shown');
    mkdirSync(RESULTS, { recursive: true });
    await cell.screenshot({ path: join(RESULTS, 'trackio-distributions.png') });
  });

  test('the Samples view shows the completions table: every step, reward columns, an image cell as text, inert HTML', async () => {
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await expect
      .poll(() => page.locator('select[aria-label="sample source"]').inputValue(), { timeout: 15_000 })
      .toBe('completions');
    await expect.poll(count, { timeout: 15_000 }).toBe('8 samples');
    // The sources, the steps and the rows may each land a moment apart.
    await expect
      .poll(() => page.locator('select[aria-label="sample source"] option').allInnerTexts())
      .toEqual(['completions (trackio, 24)', 'trace (trackio, 3)']);
    await expect
      .poll(() => page.locator('select[aria-label="step"] option').allInnerTexts())
      .toEqual(['10 (8)', '20 (8)', '30 (8)']);
    await expect.poll(() => page.locator('select[aria-label="step"]').inputValue()).toBe('30');
    await expect
      .poll(async () =>
        (await pane().locator('.samples-table thead th').allInnerTexts()).map((h) => h.trim()),
      )
      .toEqual(expect.arrayContaining(['rewards/accuracy_reward', 'rewards/format_reward', 'advantage']));
    await expect.poll(() => column('image')).toContain('[image chart.png]');
    await expect.poll(() => column('advantage')).toContain('-0.875');
    await expect.poll(() => column('prompt')).toContain(`hostile html ${HTML}`);
    expect(await pane().locator('.samples-table img, .samples-table b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'trackio-samples.png') });
  });

  test('a trace key: its messages as role lines, its metadata as columns', async () => {
    await page.locator('select[aria-label="sample source"]').selectOption('trace');
    await expect.poll(count, { timeout: 15_000 }).toBe('1 sample');
    // The count can change before the previous source's rows and columns are replaced.
    await expect
      .poll(() => column('messages'))
      .toEqual(['system: You are a demo model.\nuser: What is 30 + 2?\nassistant: 32.']);
    await expect.poll(() => column('trainer')).toEqual(['trl-sft']);
    await expect.poll(() => column('global_step')).toEqual(['30']);
    await page.screenshot({ path: join(RESULTS, 'trackio-trace.png') });
    expect(errors).toEqual([]);
  });
});
