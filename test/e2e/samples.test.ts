// End to end: the samples view in Chromium on a TRL-like completions JSONL (a 10,000-sample step, hostile text), a W&B run with tables and a verl rollout dump.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HOSTILE, writeCompletionsJsonl, writeWandbTables } from '../helpers/samples-fixtures';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { samplesColumn } from './samples-table';
import { saveScreenshot } from './screenshots';

const WANDB_RUN = 'wandb/run-20260101_000000-smp00001';

describe('the samples view', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  /** The 10,000 samples of step 30 as written (the independent truth for sorting). */
  let big: Record<string, unknown>[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-samples-'));
    const fx = writeCompletionsJsonl(join(dir, 'grpo'));
    big = readFileSync(fx.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => o.step === 30);
    writeWandbTables(join(dir, 'wandb'));
    // Five long completions in one step: more text than one page answers (SAMPLE_PAGE_CHARS, 2 Mi characters).
    mkdirSync(join(dir, 'long'));
    writeFileSync(
      join(dir, 'long', 'completions.jsonl'),
      [0, 1, 2, 3, 4]
        .map((i) =>
          JSON.stringify({ step: 1, prompt: `long ${i}`, completion: 'w'.repeat(700_000), reward: i }),
        )
        .join('\n') + '\n',
    );
    // verl's rollout dump: rollouts/{step}.jsonl, the same four questions at each step, the answers changing.
    for (const step of [1, 2, 3]) {
      mkdirSync(join(dir, 'verl_run', 'rollouts'), { recursive: true });
      writeFileSync(
        join(dir, 'verl_run', 'rollouts', `${step}.jsonl`),
        [0, 1, 2, 3]
          .map((q) =>
            JSON.stringify({
              input: `Question ${q}: what is 6 times 7?`,
              output: `Let me think. ${'Six sevens '.repeat(step)}make ${40 + step}. The answer is ${40 + step}.`,
              gts: '42',
              score: step === 2 ? 1 : 0,
              step,
              acc: step === 2,
            }),
          )
          .join('\n') + '\n',
      );
    }
    // A dump carrying per-token log-probs and entropies beside the completion's tokens.
    mkdirSync(join(dir, 'tokens_run'));
    writeFileSync(
      join(dir, 'tokens_run', 'completions.jsonl'),
      JSON.stringify({
        step: 1,
        prompt: 'What is 6 times 7?',
        completion: 'The answer is 42',
        tokens: ['The', ' answer', ' is', ' 42'],
        logprobs: [-0.05, -1.2, -0.1, -3.5],
        entropy: [0.2, 2.5, 0.3, 1.1],
      }) + '\n',
    );
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, url, { width: 1440, height: 900 }));
    await page.locator('.run-list button[data-run="grpo"]').first().click();
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await page.locator('.samples-table tbody tr').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const pane = (i = 0) => page.locator('.samples-pane').nth(i);
  const count = (i = 0) => pane(i).locator('.count').innerText();
  const column = (name: string, i = 0): Promise<string[]> => samplesColumn(pane(i), name);
  const waitText = async (fn: () => Promise<string>, want: string | RegExp): Promise<void> => {
    if (typeof want === 'string') await expect.poll(fn, { timeout: 15_000 }).toBe(want);
    else await expect.poll(fn, { timeout: 15_000 }).toMatch(want);
  };
  const arrowOf = (name: string, nth = 0) =>
    pane().locator('th button', { hasText: name }).nth(nth).locator('.arrow').innerText();

  test('follows the newest step: 10,000 samples paged 100 at a time, every reward column, advantage, length', async () => {
    await waitText(() => count(), /^10000 samples$/);
    expect(await page.locator('select[aria-label="step"]').inputValue()).toBe('30');
    // The count, the rows, the pager, the per-step bars and the histograms may each land a moment apart.
    await expect.poll(() => pane().locator('.samples-table tbody tr').count()).toBe(100);
    await expect.poll(() => pane().locator('.pager').innerText()).toContain('1–100 of 10000');
    const heads = async (): Promise<string[]> =>
      (await pane().locator('.samples-table thead th').allInnerTexts()).map((h) => h.trim());
    await expect
      .poll(heads)
      .toEqual([
        '#',
        'step',
        'prompt',
        'len',
        'completion',
        'len',
        'rewards/correctness_reward',
        'rewards/format_reward',
        'reward',
        'advantage',
      ]);
    // Samples per step: a bar per step.
    await expect.poll(() => page.locator('.per-step rect').count()).toBe(3);
    // Histograms of the step: each number column's values and each text column's lengths.
    // (the step column holds one value: no histogram of it).
    await expect
      .poll(() => pane().locator('.sample-hist figcaption .name').allInnerTexts())
      .toEqual([
        'length of prompt',
        'length of completion',
        'rewards/correctness_reward',
        'rewards/format_reward',
        'reward',
        'advantage',
      ]);
  });

  test('sorts all 10,000 on the server, by value and by length, across pages', async () => {
    await pane().locator('th button', { hasText: 'advantage' }).click();
    await waitText(() => arrowOf('advantage'), '▲');
    await pane().locator('th button', { hasText: 'advantage' }).click(); // descending
    await waitText(() => arrowOf('advantage'), '▼');
    const byAdv = [...big].sort((a, b) => (b.advantage as number) - (a.advantage as number));
    await waitText(async () => (await column('advantage'))[0] ?? '', String(byAdv[0]!.advantage));
    await pane().locator('.pager button', { hasText: 'next' }).click();
    await waitText(() => pane().locator('.pager').innerText(), /101–200 of 10000/);
    // The pager moves on the click; the rows come from the server after.
    await expect
      .poll(async () => (await column('advantage')).map(Number))
      .toEqual(byAdv.slice(100, 200).map((o) => o.advantage));
    // By the completion's length, longest first (the len column right of it).
    const lenButtons = pane().locator('th button', { hasText: 'len' });
    await lenButtons.nth(1).click();
    await waitText(() => arrowOf('len', 1), '▲');
    await lenButtons.nth(1).click();
    await waitText(() => arrowOf('len', 1), '▼');
    const longest = Math.max(...big.map((o) => (o.completion as string).length));
    await waitText(() => pane().locator('.pager').innerText(), /1–100 of 10000/);
    await waitText(
      async () => (await pane().locator('tbody tr').first().locator('td').nth(5).innerText()).trim(),
      String(longest),
    );
  });

  test('search filters the text server-side', async () => {
    await page.locator('input[aria-label="search samples"]').fill('answer 9999');
    await waitText(() => count(), /^1 of 10000 samples match$/);
    await expect.poll(() => column('completion')).toEqual([expect.stringContaining('answer 9999')]);
    await page.locator('input[aria-label="search samples"]').fill('');
    await waitText(() => count(), /^10000 samples$/);
  });

  test('hostile text is shown as inert text; the 1 MB item is folded; the page stays usable', async () => {
    await page.locator('select[aria-label="step"]').selectOption('20');
    await waitText(() => count(), /^8 samples$/);
    expect(await page.locator('label.check', { hasText: 'follow latest' }).locator('input').isChecked()).toBe(
      false,
    ); // follow stopped
    const cellOf = (prompt: string) =>
      pane()
        .locator('tbody tr', { has: page.locator('td', { hasText: prompt }) })
        .locator('td.text .cell-text')
        .nth(1);
    expect(await cellOf('hostile html').innerText()).toBe(HOSTILE.html);
    expect(await pane().locator('.samples-table script, .samples-table img, .samples-table b').count()).toBe(
      0,
    );
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await cellOf('hostile ansi').innerText()).toBe(
      '\\e[31mRED\\e[0m \\e]0;title\\x07 \\e[2J cleared?',
    );
    expect(await cellOf('hostile bidi').innerText()).toBe(
      'abc \\u202eevil.exe\\u202c \\u2066isolated\\u2069 \u200F rtl',
    );
    const huge = cellOf('hostile huge');
    expect((await huge.innerText()).length).toBe(401); // 400 characters and "…"
    const row = pane().locator('tbody tr', { has: page.locator('td', { hasText: 'hostile huge' }) });
    expect(await row.locator('.note').innerText()).toBe('cut at 1 MB when read');
    await row.locator('button.fold').click();
    const whole = row.locator('textarea.cell-big');
    await expect.poll(async () => (await whole.inputValue()).length, { timeout: 15_000 }).toBe(1024 * 1024);
    await row.locator('button.fold').click();
    await expect.poll(async () => (await huge.innerText()).length).toBe(401);
    // Still usable: sorting answers.
    await pane().locator('th button', { hasText: 'reward' }).first().click();
    await waitText(() => count(), /^8 samples$/);
  });

  test('every step: a regex searched across the run, each match with its step', async () => {
    await page.locator('input[aria-label="every step"]').check();
    await page.locator('input[aria-label="search samples"]').fill('/answer 999\\d$/');
    await waitText(() => count(), /^10 of \d+ samples match$/);
    const total = Number(/of (\d+)/.exec(await count())![1]);
    expect(total).toBe(big.length + 8 + 4 + Object.keys(HOSTILE).length);
    expect(await pane().locator('h3').innerText()).toBe('every step');
    await expect.poll(() => column('step')).toEqual(Array(10).fill('30'));
    // One step column: the row's step, not beside it the samples' own `step` column too.
    const heads = await pane().locator('.samples-table thead th').allInnerTexts();
    expect(heads.map((h) => h.replace(/[▲▼]/, '').trim()).filter((h) => /step/.test(h))).toEqual(['step']);
    // In the pane's order (sorted by length in a test above): the ten answers 9990…9999 of step 30.
    await expect
      .poll(async () => (await column('completion')).map((c) => /answer (\d+)$/.exec(c)?.[1]).sort())
      .toEqual(Array.from({ length: 10 }, (_, k) => `999${k}`));
    await pane()
      .locator('.samples-wrap')
      .evaluate((el) => (el.scrollLeft = 0));
    await saveScreenshot(page, 'samples-search.png');
    // A pattern RE2 cannot run is refused with the filter's message.
    await page.locator('input[aria-label="search samples"]').fill('/(?=x)/');
    await waitText(() => pane().locator('.error').innerText(), /lookahead/);
    await page.locator('input[aria-label="search samples"]').fill('');
    await page.locator('input[aria-label="every step"]').uncheck();
    await waitText(() => pane().locator('h3').innerText(), 'step 20'); // as the test above left it
    await waitText(() => count(), /^8 samples$/);
  });

  test('two steps side by side, each pane showing its reward column and whole completions', async () => {
    await page.locator('select[aria-label="step"]').selectOption('20');
    await page.locator('label.check', { hasText: 'compare with' }).locator('input').check();
    await page.locator('select[aria-label="compare step"]').selectOption('10');
    await waitText(() => count(1), /^8 samples$/);
    expect(await pane(0).locator('h3').innerText()).toBe('step 20');
    expect(await pane(1).locator('h3').innerText()).toBe('step 10');
    for (const i of [0, 1]) {
      // Nothing past the pane's right edge: the reward header inside the visible table, no cell cut sideways.
      const fits = await pane(i)
        .locator('.samples-wrap')
        .evaluate((wrap) => {
          const box = wrap.getBoundingClientRect();
          const reward = Array.from(wrap.querySelectorAll('th')).find(
            (th) => th.textContent!.trim() === 'reward',
          )!;
          const cells = Array.from(wrap.querySelectorAll<HTMLElement>('td.text .cell-text'));
          return {
            reward: reward.getBoundingClientRect().right <= box.right + 1,
            scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
            cut: cells.filter(
              (c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > box.right + 1,
            ).length,
          };
        });
      expect(fits).toEqual({ reward: true, scrolls: false, cut: 0 });
    }
    await saveScreenshot(page, 'samples-compare.png');
    await page.locator('label.check', { hasText: 'compare with' }).locator('input').uncheck();
    await expect.poll(() => page.locator('.samples-pane').count()).toBe(1);
    // The README's picture: the 10,000-sample step, best rewards first.
    await page.locator('select[aria-label="step"]').selectOption('30');
    await waitText(() => count(0), /^10000 samples$/);
    const reward = pane()
      .locator('th button')
      .filter({ hasText: /^reward[▲▼]?$/ });
    for (let i = 0; i < 3 && (await reward.locator('.arrow').innerText()) !== '▼'; i++) await reward.click();
    await waitText(() => reward.locator('.arrow').innerText(), '▼');
    const best = Math.max(...big.map((o) => o.reward as number));
    await waitText(async () => (await column('reward'))[0] ?? '', String(best));
    for (const wrap of await page.locator('.samples-wrap').all())
      await wrap.evaluate((el) => (el.scrollLeft = 0));
    await page.setViewportSize({ width: 1920, height: 1000 });
    await saveScreenshot(page, 'samples.png', { docs: 'screenshots/samples.png' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('the Charts view’s samples row: samples per step of the run, and a step opens the Samples view there', async () => {
    await page.locator('.toolbar label', { hasText: 'Charts' }).click();
    const row = page.locator('section.samples-row');
    await waitText(
      () => row.locator('.muted').innerText(),
      /^completions\.jsonl: \d+ samples over \d+ steps$/,
    );
    // One bar per step, the newest marked.
    const bars = row.locator('rect[data-step]');
    const steps = await bars.evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-step'))));
    expect(steps).toContain(10);
    expect(await row.locator('rect.current').getAttribute('data-step')).toBe(String(Math.max(...steps)));
    await saveScreenshot(page, 'samples-row.png');
    await row.locator('rect[data-step="10"]').click({ force: true });
    await page.locator('.samples-view').waitFor();
    await waitText(() => count(0), /^8 samples$/);
    // Step 20 has 8 samples too: wait for the step itself.
    await expect.poll(() => pane(0).locator('h3').innerText()).toBe('step 10');
    // Opened at a step: it does not follow the latest.
    expect(await page.locator('label.check', { hasText: 'follow latest' }).locator('input').isChecked()).toBe(
      false,
    );
    expect(errors).toEqual([]);
  });

  test('a page of long completions holds fewer rows; next and prev step by the rows shown', async () => {
    await page.locator('.run-list button[data-run="long"]').first().click();
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await waitText(() => count(), /^5 samples$/);
    const pager = () => pane().locator('.pager').innerText();
    const button = (name: string) => pane().locator('.pager button', { hasText: name });
    await waitText(pager, /1–2 of 5/);
    await expect.poll(() => column('prompt')).toEqual(['long 0', 'long 1']);
    await button('next').click();
    await waitText(pager, /3–4 of 5/);
    await expect.poll(() => column('prompt')).toEqual(['long 2', 'long 3']);
    await button('next').click();
    await waitText(pager, /5–5 of 5/);
    expect(await button('next').isDisabled()).toBe(true);
    await button('prev').click();
    await waitText(pager, /3–4 of 5/);
    await button('prev').click();
    await waitText(pager, /1–2 of 5/);
    expect(await button('prev').isDisabled()).toBe(true);
    expect(errors).toEqual([]);
  });

  test('a verl rollout dump is one sample source of its run; one prompt across steps, word-diffed', async () => {
    expect(await page.locator('.run-list button[data-run="verl_run/rollouts"]').count()).toBe(0);
    await page.locator('.run-list button[data-run="verl_run"]').first().click();
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await waitText(() => page.locator('select[aria-label="sample source"]').inputValue(), 'rollouts');
    await expect
      .poll(() => page.locator('select[aria-label="step"] option').allInnerTexts())
      .toEqual(['1 (4)', '2 (4)', '3 (4)']);
    await waitText(() => count(), /^4 samples$/);
    await pane()
      .locator('tbody tr', { has: page.locator('td', { hasText: 'Question 2:' }) })
      .locator('button.across')
      .click();
    const across = page.locator('.samples-across');
    await waitText(() => across.locator('.count').innerText(), '3 samples over 3 steps');
    const cards = across.locator('.card');
    await expect
      .poll(() => cards.locator('header strong').allInnerTexts())
      .toEqual(['step 1', 'step 2', 'step 3']);
    // Each card is its completion; after the first, what changed since the card before is marked.
    await expect
      .poll(() =>
        cards
          .nth(1)
          .locator('.diff')
          .evaluate((d) => (d as HTMLElement).innerText),
      )
      .toContain('make 41.'); // the removed words stay, struck through
    expect(await cards.nth(1).locator('.add').allInnerTexts()).toEqual(['Six sevens ', '42. ', '42.']);
    expect(await cards.nth(1).locator('.del').allInnerTexts()).toEqual(['41. ', '41.']);
    expect(await cards.nth(0).locator('.add, .del').count()).toBe(0);
    await expect.poll(() => cards.nth(1).locator('header').innerText()).toContain('score 1');
    await saveScreenshot(page, 'samples-diff.png');
    await across.locator('button.close').click();
    await expect.poll(() => page.locator('.samples-across').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('tokens coloured by their log-prob, then by entropy: the hottest token is the least likely, then the most uncertain', async () => {
    await page.locator('.run-list button[data-run="tokens_run"]').first().click();
    await page.locator('.toolbar label', { hasText: 'Samples' }).click();
    await waitText(() => count(), /^1 sample$/);
    const tokens = pane().locator('.tokens .tok');
    await expect.poll(() => tokens.allInnerTexts()).toEqual(['The', ' answer', ' is', ' 42']);
    const hottest = (): Promise<string> =>
      tokens.evaluateAll((spans) => {
        const alpha = (s: Element): number =>
          Number(/rgba\([^)]*,\s*([\d.]+)\)/.exec((s as HTMLElement).style.backgroundColor)?.[1] ?? 0);
        return [...spans].sort((a, b) => alpha(b) - alpha(a))[0]!.textContent!;
      });
    expect(await page.locator('select[aria-label="colour tokens by"]').inputValue()).toBe('logprobs');
    await waitText(hottest, ' 42');
    expect(await tokens.nth(3).getAttribute('title')).toBe('logprobs -3.5');
    await page.locator('select[aria-label="colour tokens by"]').selectOption('entropy');
    await waitText(hottest, ' answer');
    await saveScreenshot(page, 'samples-tokens.png');
    expect(errors).toEqual([]);
  });

  test('a W&B run’s completions tables', async () => {
    await page.locator(`.run-list button[data-run="${WANDB_RUN}"]`).first().click();
    await waitText(() => page.locator('select[aria-label="sample source"]').inputValue(), 'completions');
    await waitText(() => count(), /^7 samples$/);
    await expect
      .poll(() => page.locator('select[aria-label="step"] option').allInnerTexts())
      .toEqual(['5 (7)', '10 (7)']);
    await expect.poll(() => column('completion')).toContain('naïve café — 日本語 🚀 \\u202eright-to-left');
    expect(errors).toEqual([]);
  });
});
