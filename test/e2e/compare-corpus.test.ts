// End to end: comparing real runs — the SB3 A2C/DQN/PPO corpus folder in its original layout and the RLHF W&B runs —
// through the runs table, ticked rows overlaid, and the linked hover, checked against what `rlwatch inspect` and
// `rlwatch export --csv` (the command line's own pipeline) say the files hold.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatNumber } from '../../src/shared/format';
import { launchChromium } from './browser';
import { CLI, type CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { seeChart } from './lazy-charts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
/** 0pk0/rl4avs's SB3 logs as the repository holds them (../shared/corpus/MANIFEST.tsv): run folder → event file. */
const SB3: Record<string, string> = {
  'A2C_debug_seed_0/A2C_1': 'events.out.tfevents.1755214641.MacBookPro.1911.0',
  'DQN_debug_seed_0/DQN_1': 'events.out.tfevents.1755302059.MacBookPro.13102.0',
  'PPO_debug_seed_0/PPO_1': 'events.out.tfevents.1754323433.MacBookPro.75921.0',
  'PPO_debug_seed_0/PPO_4': 'events.out.tfevents.1754329043.MacBookPro.77185.0',
};
const REWARD = 'rollout/ep_rew_mean';
const RLHF = join(FIXTURES, 'wandb', '480284856__RLHF_Training');

/** `rlwatch ARGS`, run to its end; its stdout. */
function cli(...args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`rlwatch ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Each run's steps as `inspect --json` reports them: the current session's newest step. */
function inspectedSteps(dir: string): Record<string, number | null> {
  const report = JSON.parse(cli('inspect', dir, '--json')) as {
    runs: { run: string; sessions: { endStep: number }[] }[];
  };
  return Object.fromEntries(report.runs.map((r) => [r.run, r.sessions.at(-1)?.endStep ?? null]));
}

/** Every (run, tag) series as `export --csv` writes it (metrics_long.csv): steps and values in step order. */
function exported(dir: string, out: string): Map<string, { steps: number[]; values: number[] }> {
  cli('export', dir, '--out', out, '--csv');
  const series = new Map<string, { steps: number[]; values: number[] }>();
  for (const run of Object.keys(SB3)) {
    const lines = readFileSync(join(out, run.replace('/', '__'), 'metrics_long.csv'), 'utf8')
      .trim()
      .split('\n');
    for (const line of lines.slice(1)) {
      const [r, tag, step, , value] = line.split(',');
      const key = `${r}\u0000${tag}`;
      const s = series.get(key) ?? { steps: [], values: [] };
      s.steps.push(Number(step));
      s.values.push(Number(value));
      series.set(key, s);
    }
  }
  return series;
}

interface Session {
  serve: CliProcess;
  storeDir: string;
  page: Page;
  errors: string[];
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function open(dir: string): Promise<Session> {
  const { serve, storeDir } = serveIsolated(dir);
  const { page, errors } = await openPage(browser, await servedUrl(serve), { width: 1600, height: 1200 });
  return { serve, storeDir, page, errors };
}

async function close(s: Session | undefined): Promise<void> {
  await s?.page.close();
  await s?.serve.stop();
  if (s?.storeDir) rmSync(s.storeDir, { recursive: true, force: true });
}

/** The table's rows as { run → steps cell }, once it lists `n` rows. */
async function tableSteps(page: Page, n: number): Promise<Record<string, string>> {
  await page.locator('.toolbar label', { hasText: 'Table' }).click();
  await expect
    .poll(() => page.locator('.runs-table tbody tr[data-run]').count(), { timeout: 30_000 })
    .toBe(n);
  const steps = await page
    .locator('.runs-table')
    .evaluate((t) =>
      Array.from(t.querySelectorAll('thead th')).findIndex((th) => th.getAttribute('data-column') === 'step'),
    );
  expect(steps).toBeGreaterThan(0);
  return page
    .locator('.runs-table tbody tr[data-run]')
    .evaluateAll(
      (trs, col) =>
        Object.fromEntries(
          trs.map((tr) => [tr.getAttribute('data-run')!, tr.children[col]!.textContent!.trim()]),
        ),
      steps,
    );
}

/** Ticks every row of the table, then shows the charts. */
async function tickAllAndChart(page: Page): Promise<void> {
  for (const box of await page.locator('.runs-table tbody input[type=checkbox]').all())
    if (!(await box.isChecked())) await box.check();
  await page.locator('.toolbar label', { hasText: 'Charts' }).click();
}

describe('comparing the SB3 A2C / DQN / PPO corpus runs', () => {
  let dir: string;
  let s: Session | undefined;
  const chart = (tag: string): Locator => s!.page.locator(`figure.chart[data-tag="${tag}"]`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-sb3-'));
    for (const [run, file] of Object.entries(SB3)) {
      mkdirSync(join(dir, run), { recursive: true });
      copyFileSync(join(FIXTURES, 'tfevents', '0pk0__rl4avs', file), join(dir, run, file));
    }
    s = await open(dir);
  });
  afterAll(async () => {
    await close(s);
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (dir) rmSync(`${dir}-export`, { recursive: true, force: true });
  });

  test('the table has a row per run with the steps its event file reached', async () => {
    const shown = await tableSteps(s!.page, Object.keys(SB3).length);
    const want = inspectedSteps(dir);
    expect(Object.keys(want).sort()).toEqual(Object.keys(SB3).sort());
    for (const run of Object.keys(SB3)) expect(shown[run], run).toBe(formatNumber(want[run]!));
  });

  test('every run ticked is drawn on the reward chart; hovering it reads each run’s value at its nearest step', async () => {
    const page = s!.page;
    const files = exported(dir, join(dir, '..', `${dir.split('/').pop()}-export`));
    await tickAllAndChart(page);
    await seeChart(page, REWARD);
    const runs = Object.keys(SB3);
    await expect
      .poll(async () => ((await chart(REWARD).getAttribute('data-run')) ?? '').split(',').sort(), {
        timeout: 30_000,
      })
      .toEqual([...runs].sort());
    await expect.poll(() => chart(REWARD).getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    const box = (await chart(REWARD).locator('canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await expect.poll(() => chart(REWARD).getAttribute('data-hover-x')).not.toBeNull();
    const x = Number(await chart(REWARD).getAttribute('data-hover-x'));
    // Every other drawn chart on screen marks the same step.
    const onScreen = await page
      .locator('figure.chart[data-state="ready"][data-xaxis="step"]')
      .evaluateAll((fs) =>
        fs
          .filter((f) => {
            const r = f.getBoundingClientRect();
            return r.bottom > 0 && r.top < innerHeight;
          })
          .map((f) => f.getAttribute('data-tag')!),
      );
    expect(onScreen.length).toBeGreaterThan(1);
    const marks = (): Promise<Record<string, string | null>> =>
      Promise.all(onScreen.map(async (t) => [t, await chart(t).getAttribute('data-hover-x')] as const)).then(
        Object.fromEntries,
      );
    // A chart marks x when its runs' points span it (eval/mean_reward is one point at step 1000: no mark).
    const spans = (tag: string): boolean => {
      let lo = Infinity;
      let hi = -Infinity;
      for (const run of Object.keys(SB3)) {
        const t = files.get(`${run}\u0000${tag}`);
        if (!t) continue;
        lo = Math.min(lo, t.steps[0]!);
        hi = Math.max(hi, t.steps.at(-1)!);
      }
      return lo <= x && x <= hi;
    };
    const want = Object.fromEntries(onScreen.map((t) => [t, spans(t) ? String(x) : null]));
    expect(Object.values(want).filter((v) => v !== null).length).toBeGreaterThan(1);
    await expect.poll(marks).toEqual(want);
    const readRows = (): Promise<string[]> =>
      chart(REWARD)
        .locator('.chart-readout-row')
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.row ?? ''));
    // Runs that logged the reward: each row is the run's own point nearest x, as its event file holds it. (The DOM
    // readout lists them once the pointer rests; moving, the hovered chart draws them on a canvas.)
    const withReward = runs.filter((run) => files.has(`${run}\u0000${REWARD}`));
    await expect.poll(readRows).toHaveLength(withReward.length);
    const rows = await readRows();
    const smoothed: number[] = [];
    for (const run of withReward) {
      const series = files.get(`${run}\u0000${REWARD}`)!;
      const row = rows.find((r) => r.startsWith(`${run}: `));
      expect(row, run).toBeDefined();
      const m = /^.+: raw (\S+), smoothed (\S+)(?: @ step (\d+))?$/.exec(row!)!;
      expect(m, row).not.toBeNull();
      const step = m[3] === undefined ? x : Number(m[3]);
      const best = Math.min(...series.steps.map((k) => Math.abs(k - x)));
      const at = series.steps.indexOf(step);
      expect(at, `${run} has a point at step ${step}`).toBeGreaterThanOrEqual(0);
      expect(Math.abs(step - x), `${run}: step ${step} is nearest ${x}`).toBe(best);
      expect(m[1]).toBe(formatNumber(series.values[at]!));
      smoothed.push(Number(m[2]!.replace(/,/g, '')));
    }
    // Highest (smoothed) value first.
    const order = rows.map((r) => Number(/smoothed (\S+)/.exec(r)![1]!.replace(/,/g, '')));
    expect(order).toEqual([...order].sort((a, b) => b - a));
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'compare-corpus-sb3.png') });
    await page.mouse.move(5, 5);
    expect(s!.errors).toEqual([]);
  });
});

describe('comparing the RLHF W&B corpus runs', () => {
  let s: Session | undefined;
  beforeAll(async () => {
    s = await open(RLHF);
  });
  afterAll(async () => close(s));

  test('the window’s table and `inspect` agree on every run’s steps; two ticked runs share the loss chart', async () => {
    const want = inspectedSteps(RLHF);
    const shown = await tableSteps(s!.page, Object.keys(want).length);
    for (const [run, step] of Object.entries(want))
      expect(shown[run], run).toBe(step === null ? '—' : formatNumber(step));
    const page = s!.page;
    for (const run of ['run-20230420_073822-clnzftry', 'run-20230421_071625-4hjc4zce'])
      await page.locator(`.runs-table tr[data-run="${run}"] input[type=checkbox]`).check();
    await page.locator('.toolbar label', { hasText: 'Charts' }).click();
    await seeChart(page, 'loss');
    await expect
      .poll(
        async () =>
          ((await page.locator('figure.chart[data-tag="loss"]').getAttribute('data-run')) ?? '').split(','),
        {
          timeout: 30_000,
        },
      )
      .toEqual(expect.arrayContaining(['run-20230420_073822-clnzftry', 'run-20230421_071625-4hjc4zce']));
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'compare-corpus-rlhf.png') });
    expect(s!.errors).toEqual([]);
  });
});
