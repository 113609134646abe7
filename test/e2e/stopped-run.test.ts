// End to end (issue 34 §1, §2): three SB3 seeds writing progress.csv live, one killed: in Chromium the dead seed reads
// `exited` in words within 40 s, whether the page was open before the kill or served after it, with `tail -f` on its file;
// a trainer that dies with a traceback in its log reads `crashed`, citing it.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import type { CliProcess } from './cli-process';

/** An SB3-style writer: a progress.csv row every 0.5 s (no wall-time column, as SB3 writes none), opened per row. */
const WRITER = `
const fs = require('fs');
const file = process.argv[1];
fs.writeFileSync(file, 'rollout/ep_rew_mean,time/fps,time/iterations,time/time_elapsed,time/total_timesteps,train/value_loss\\n');
let i = 0;
setInterval(() => {
  i++;
  fs.appendFileSync(file, [20 + i, 900, i, i / 2, i * 2048, 1 / i].join(',') + '\\n');
}, 500);
`;

/** The same writer until `argv[2]` exists (the test says when: after the window has seen it write), then it dies
 * with a traceback in train.log beside its progress.csv. */
const CRASHING_WRITER = `
const fs = require('fs');
const path = require('path');
const [file, trigger] = process.argv.slice(1);
fs.writeFileSync(file, 'rollout/ep_rew_mean,time/iterations,train/value_loss\\n');
let i = 0;
setInterval(() => {
  i++;
  fs.appendFileSync(file, [20 + i, i, 1 / i].join(',') + '\\n');
  if (fs.existsSync(trigger)) {
    fs.writeFileSync(path.join(path.dirname(file), 'train.log'), 'step ' + i + '\\nTraceback (most recent call last):\\n' +
      '  File "train.py", line 40, in <module>\\n    loss.backward()\\n' +
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\\n');
    process.exit(1);
  }
}, 500);
`;

const SEEDS = ['seed_1', 'seed_2', 'seed_3'];
const SHOTS = process.env.RLWATCH_SHOTS ?? join(tmpdir(), 'rlwatch-stopped-shots');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Folder {
  dir: string;
  writers: Map<string, ChildProcess>;
  tail: ChildProcess | null;
}

/** Three seeds of one config (the seed apart) writing live. */
function startSeeds(): Folder {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-seeds-'));
  const writers = new Map<string, ChildProcess>();
  SEEDS.forEach((run, i) => {
    mkdirSync(join(dir, run));
    writeFileSync(
      join(dir, run, 'config.json'),
      JSON.stringify({ algo: 'PPO', env: 'CartPole-v1', learning_rate: 3e-4, n_steps: 2048, seed: i + 1 }),
    );
    writers.set(
      run,
      spawn(process.execPath, ['-e', WRITER, join(dir, run, 'progress.csv')], { stdio: 'ignore' }),
    );
  });
  return { dir, writers, tail: null };
}

/** Kills seed_2 (SIGKILL, no goodbye) and starts `tail -f` on its file, which must change nothing. */
function killSeed2(f: Folder): void {
  f.writers.get('seed_2')!.kill('SIGKILL');
  f.tail = spawn('tail', ['-f', join(f.dir, 'seed_2', 'progress.csv')], { stdio: 'ignore' });
}

function stopFolder(f: Folder): void {
  for (const w of f.writers.values()) w.kill('SIGKILL');
  f.tail?.kill('SIGKILL');
  rmSync(f.dir, { recursive: true, force: true });
}

const word = (page: Page, run: string): Promise<string | null> =>
  page.locator(`.run-item[data-run="${run}"] .status-word`).textContent();

/** Polls until `run`'s status word is `want`; returns the seconds it took. */
async function waitForWord(page: Page, run: string, want: string, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  let last: string | null = null;
  while (Date.now() - t0 < timeoutMs) {
    last = await word(page, run).catch(() => null);
    if (last === want) return (Date.now() - t0) / 1000;
    await sleep(500);
  }
  throw new Error(`${run} reads "${last}", not "${want}", after ${timeoutMs / 1000} s`);
}

describe('a killed seed among three live ones reads exited in the window', () => {
  let browser: Browser;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function serve(dir: string): Promise<{ serve: CliProcess; page: Page; errors: string[] }> {
    const { serve, storeDir } = serveIsolated(dir);
    cleanups.push(async () => {
      await serve.stop();
      rmSync(storeDir, { recursive: true, force: true });
    });
    const { page, errors } = await openPage(browser, await servedUrl(serve));
    cleanups.push(() => page.close());
    for (const run of SEEDS) await page.locator(`.run-item[data-run="${run}"]`).waitFor();
    return { serve, page, errors };
  }

  test('page open before the kill: exited within 40 s, named in the run header; the live seeds read live', async () => {
    const f = startSeeds();
    cleanups.push(() => stopFolder(f));
    await sleep(2000);
    const { page, errors } = await serve(f.dir);
    for (const run of SEEDS) await waitForWord(page, run, 'live', 20_000);
    await sleep(8000);
    killSeed2(f);
    const took = await waitForWord(page, 'seed_2', 'exited', 40_000);
    process.stdout.write(`seed_2 read exited ${took.toFixed(1)} s after the kill (page open before)\n`);
    expect(await word(page, 'seed_1')).toBe('live');
    expect(await word(page, 'seed_3')).toBe('live');
    await page.locator('.run-item[data-run="seed_2"] button.run-select').click();
    const header = page.locator('.run-header');
    await expect.poll(() => header.locator('.status-word').textContent(), { timeout: 10_000 }).toBe('exited');
    // Its siblings kept writing past its step: a stop before its end, raised (critical) by the stop deadline.
    const alert = page.locator('.alert-list li[data-rule="trainer-exited"]');
    await alert.waitFor({ timeout: 40_000 });
    expect(await alert.locator('.alert-message').textContent()).toMatch(/its siblings seed_1, seed_3/);
    expect(await header.locator('.run-header-reason').textContent()).toMatch(/exited before its end/);
    await page.screenshot({ path: join(SHOTS, 'open-before-kill.png') });
    expect(errors).toEqual([]);
  }, 120_000);

  test('served 10 s after the kill: the dead seed reads exited (not idle) within 40 s, with tail -f on its file', async () => {
    const f = startSeeds();
    cleanups.push(() => stopFolder(f));
    await sleep(6000);
    killSeed2(f);
    await sleep(10_000);
    const t0 = Date.now();
    const { page, errors } = await serve(f.dir);
    await waitForWord(page, 'seed_2', 'exited', 40_000 - (Date.now() - t0));
    process.stdout.write(
      `seed_2 read exited ${((Date.now() - t0) / 1000).toFixed(1)} s after serve started (opened after the kill)\n`,
    );
    expect(await word(page, 'seed_1')).toBe('live');
    expect(await page.locator('.run-item[data-run="seed_2"] .status-word').getAttribute('title')).toMatch(
      /exited before its end: stopped writing while its siblings seed_1, seed_3/,
    );
    await page.locator('.run-item[data-run="seed_2"] button.run-select').click();
    await expect
      .poll(() => page.locator('.run-header .run-header-reason').textContent(), { timeout: 10_000 })
      .toMatch(/exited before its end/);
    await page.screenshot({ path: join(SHOTS, 'served-after-kill.png') });
    expect(errors).toEqual([]);
  }, 120_000);

  test('a trainer that dies with a traceback in train.log reads crashed, the header citing its last line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-crash-'));
    mkdirSync(join(dir, 'oom'));
    // Outside the served folder: the test's word to crash.
    const trigger = join(mkdtempSync(join(tmpdir(), 'rlwatch-e2e-trigger-')), 'crash-now');
    const writer = spawn(
      process.execPath,
      ['-e', CRASHING_WRITER, join(dir, 'oom', 'progress.csv'), trigger],
      {
        stdio: 'ignore',
      },
    );
    cleanups.push(() => {
      writer.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      rmSync(dirname(trigger), { recursive: true, force: true });
    });
    await sleep(1500);
    const { serve: served, storeDir } = serveIsolated(dir);
    cleanups.push(async () => {
      await served.stop();
      rmSync(storeDir, { recursive: true, force: true });
    });
    const { page, errors } = await openPage(browser, await servedUrl(served));
    cleanups.push(() => page.close());
    await page.locator('.run-item[data-run="oom"]').waitFor();
    await page.locator('.run-item[data-run="oom"] button.run-select').click();
    // It dies once the window has seen it write a few rows live (its rhythm: 0.5 s), however slow serve was to start.
    await sleep(3000);
    writeFileSync(trigger, '');
    const header = page.locator('.run-header');
    await expect
      .poll(() => header.locator('.status-word').textContent(), { timeout: 60_000 })
      .toBe('crashed');
    expect(await header.locator('.run-header-reason').textContent()).toMatch(
      /its log "train\.log" ends in a traceback: torch\.OutOfMemoryError: CUDA out of memory/,
    );
    const alert = page.locator('.alert-list li[data-rule="trainer-exited"]');
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.locator('.alert-message').textContent()).toMatch(/torch\.OutOfMemoryError/);
    await page.screenshot({ path: join(SHOTS, 'crashed-traceback.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});
