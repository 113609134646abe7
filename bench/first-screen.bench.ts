// First screen in Chromium over the built `rlwatch serve`: page open → first chart drawn with its data as seen from outside the page (40 tags × 25k steps, a corpus run), serve start → first screen for 10k runs, and a 50-run sweep overlaid with the table open.
// Run: npm run bench first-screen   (env: N loads per case, default 7; RUNS for the many-runs case, default 10000;
// CASES=tags,corpus,runs,overlay picks the cases; COMPARE=1 adds a warm second load and the old in-page mark;
// PROFILE=DIR writes a --cpu-prof of each many-runs serve into DIR; the many-runs case also prints serve's CPU and the
// page's main-thread task time up to its first screen)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser';
import { FIRST_CHART_INKED_FN } from '../test/e2e/first-chart-ink';
import { EventFileWriter } from '../src/core/tfevents/writer';
import { envNumber } from './lib/log-folder';
import { serveFolder } from './lib/serve';
import { median } from './lib/stats';
import { waitIn } from './lib/page-wait';

const ROOT = join(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', '.data');
const N = envNumber('N', 7);
const RUNS = envNumber('RUNS', 10_000);
const CASES = new Set((process.env.CASES ?? 'tags,corpus,runs,overlay').split(','));
/** COMPARE=1: each load of the first-chart cases also opens a second page, on the warm server (see pageOpen). */
const COMPARE = process.env.COMPARE === '1';
const SWEEP_RUNS = 50;
const CORPUS_RUN = join(ROOT, '..', 'shared', 'corpus', 'tfevents', '0pk0__rl4avs');

/** In-page, polled every frame: ms since navigation start once `n` charts (or every one on screen, if fewer) are drawn. */
const CHARTS_READY = `(n) => {
  const cells = [...document.querySelectorAll('figure.chart, .chart-placeholder')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  const ready = cells.filter((el) => el.matches('figure.chart[data-state="ready"]')).length;
  return ready > 0 && ready >= Math.min(n, cells.length) ? performance.now() : false;
}`;

/** In-page, polled every frame: ms since navigation start once the run list shows at least `n` rows and a chart is drawn. */
const LIST_AND_CHART = `(n) =>
  document.querySelectorAll('[data-run]').length >= n && document.querySelector('figure.chart[data-state="ready"]')
    ? performance.now() : false`;

/** Page milestones: DOMContentLoaded and the script bytes transferred, from the Navigation/Resource Timing entries. */
const MILESTONES = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const scripts = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
  return { dcl: nav.domContentLoadedEventEnd, js: scripts.reduce((a, r) => a + r.transferSize, 0), jsFiles: scripts.length };
})()`;

/** A run of 40 random-walk tags × 25k steps in one event file, cached under bench/.data/. */
function manyTagsRun(): string {
  const dir = join(DATA, 'first-screen-40x25k');
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'run'), { recursive: true });
  const wall0 = 1_700_000_000;
  const w = new EventFileWriter(join(dir, 'run'), {
    fileName: 'events.out.tfevents.1700000000.bench',
    wallTime: wall0,
  });
  const names = Array.from({ length: 40 }, (_, i) => `train/metric_${String(i).padStart(2, '0')}`);
  for (let s = 0; s < 25_000; s++)
    w.scalars(
      s,
      names.map((tag, i) => ({ tag, value: Math.sin(s / (200 + i * 7)) + i })),
      'simple',
      wall0 + s * 0.1,
    );
  w.close();
  writeFileSync(join(dir, '.done'), '');
  return dir;
}

/** 10k (RUNS) folders of a 3-row CSV each, cached under bench/.data/. */
function manyRuns(): string {
  const dir = join(DATA, `first-screen-${RUNS}-runs`);
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < RUNS; i++) {
    const d = join(dir, `run_${String(i).padStart(5, '0')}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, 'metrics.csv'),
      `step,reward,kl\n0,${i % 7},0.01\n1,${(i % 7) + 1},0.02\n2,${(i % 7) + 2},0.03\n`,
    );
  }
  writeFileSync(join(dir, '.done'), '');
  return dir;
}

/** A sweep of 50 runs (config.json with lr and seed; 12 tags × 2000 steps in one event file each), cached under bench/.data/. */
function sweep(): string {
  const dir = join(DATA, `first-screen-sweep-${SWEEP_RUNS}`);
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const names = Array.from({ length: 12 }, (_, i) => `train/metric_${String(i).padStart(2, '0')}`);
  const wall0 = 1_700_000_000;
  for (let r = 0; r < SWEEP_RUNS; r++) {
    const d = join(dir, `lr${(r % 5) + 1}e-4_seed${Math.floor(r / 5)}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, 'config.json'),
      JSON.stringify({ lr: ((r % 5) + 1) * 1e-4, seed: Math.floor(r / 5) }),
    );
    const w = new EventFileWriter(d, {
      fileName: `events.out.tfevents.${wall0 + r}.bench`,
      wallTime: wall0 + r,
    });
    for (let s = 0; s < 2000; s++)
      w.scalars(
        s,
        names.map((tag, i) => ({ tag, value: Math.sin(s / (150 + i * 9) + r) + i + r * 0.01 })),
        'simple',
        wall0 + r + s * 0.5,
      );
    w.close();
  }
  writeFileSync(join(dir, '.done'), '');
  return dir;
}

/** In-page: ms since navigation start once the runs table shows `n` rows. */
const TABLE_ROWS = `(n) => document.querySelectorAll('.runs-table tbody tr[data-run]').length >= n ? performance.now() : false`;

/** In-page: ms since navigation start once one (`all` false) or every on-screen chart is drawn with `n` runs. */
const CHARTS_WITH_RUNS = `(n, all) => {
  const cells = [...document.querySelectorAll('figure.chart, .chart-placeholder')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  const ok = cells.filter((el) => el.matches('figure.chart[data-state="ready"]') && (el.dataset.run ?? '').split(',').length >= n);
  return ok.length > 0 && (!all || ok.length === cells.length) ? performance.now() : false;
}`;

/** In-page: ticks every unticked run row of the runs table (not the seed-group rows; a user's clicks, one change event each). */
const TICK_ALL = `(() => { for (const b of document.querySelectorAll('.runs-table tbody tr[data-run] input[type=checkbox]')) if (!b.checked) b.click(); return true; })()`;

/**
 * A 50-run sweep: page open → Table view chosen at once → 50 rows shown; then every row ticked and Charts chosen →
 * every on-screen chart drawn with the 50 runs overlaid; N loads after one warm-up.
 */
async function sweepOverlaid(browser: Browser): Promise<void> {
  const s = await serveFolder(sweep());
  try {
    const table: number[] = [];
    const chosen: number[] = [];
    const overlaid: number[] = [];
    const firstOverlaid: number[] = [];
    for (let i = 0; i <= N; i++) {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      await page.goto(s.url, { waitUntil: 'commit' });
      await page.locator('input[name="view"][value="table"]').check();
      const t0 = (await page.evaluate('performance.now()')) as number;
      const t = await waitIn<number>(page, TABLE_ROWS, [SWEEP_RUNS], 60_000);
      await page.evaluate(TICK_ALL);
      const t1 = (await page.evaluate('performance.now()')) as number;
      await page.locator('input[name="view"][value="charts"]').check();
      const f = await waitIn<number>(page, CHARTS_WITH_RUNS, [SWEEP_RUNS, false], 60_000);
      const c = await waitIn<number>(page, CHARTS_WITH_RUNS, [SWEEP_RUNS, true], 60_000);
      await page.close();
      if (i === 0) continue;
      table.push(t);
      chosen.push(t - t0);
      overlaid.push(c - t1);
      firstOverlaid.push(f - t1);
    }
    console.log(
      `${SWEEP_RUNS}-run sweep: page open → table of ${SWEEP_RUNS} rows median ${fmt(median(table))} (best ` +
        `${fmt(Math.min(...table))}, worst ${fmt(Math.max(...table))}; Table chosen → rows ${fmt(median(chosen))}); all rows ticked → Charts chosen → first chart with ${SWEEP_RUNS} runs ` +
        `${fmt(median(firstOverlaid))}, every chart on screen drawn ` +
        `with ${SWEEP_RUNS} runs median ${fmt(median(overlaid))} (best ${fmt(Math.min(...overlaid))}, worst ${fmt(Math.max(...overlaid))})`,
    );
    console.log(`figure first_screen.sweep50_table_ms ${median(table).toFixed(0)}`);
    console.log(`figure first_screen.sweep50_first_chart_ms ${median(firstOverlaid).toFixed(0)}`);
    console.log(`figure first_screen.sweep50_overlaid_ms ${median(overlaid).toFixed(0)}`);
  } finally {
    await s.stop();
  }
}

const fmt = (x: number): string => `${x.toFixed(0)} ms`;

/** The outside probe of the first chart (first-chart-ink.ts), as an expression evaluated in the page. */
const FIRST_CHART_INKED = `(${FIRST_CHART_INKED_FN})()`;

/** Polls FIRST_CHART_INKED from outside (one evaluate every ~10 ms) until it holds; resolves at that moment. */
async function firstChartInked(page: Page, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await page.evaluate(FIRST_CHART_INKED))) {
    if (performance.now() > end) throw new Error('timed out waiting for the first chart to be drawn');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Page open → first chart drawn with its data, as a user sees it: each of N loads starts a fresh `serve` (so the
 * server reads the folder as it does for a user), opens the printed URL at once, and times page.goto → the first
 * chart's canvas showing its data, polled from outside the page. A second page on the same (now warm) server gives
 * the same figure with the folder already read, and the in-page mark the budget used before (#36: ms from navigation
 * start to the first frame with a chart whose data-state is "ready", after a warm-up load) for comparison.
 */
async function pageOpen(browser: Browser, label: string, dir: string, key: string): Promise<void> {
  const cold: number[] = [];
  const warm: number[] = [];
  const inPage: number[] = [];
  const urls: number[] = [];
  let m = { dcl: 0, js: 0, jsFiles: 0 };
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const s = await serveFolder(dir);
    urls.push(performance.now() - t0);
    try {
      for (const c of COMPARE ? [cold, warm] : [cold]) {
        const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
        const t1 = performance.now();
        await page.goto(s.url, { waitUntil: 'commit' });
        const mark = c === warm ? waitIn<number>(page, CHARTS_READY, [1], 60_000) : null;
        await firstChartInked(page, 60_000);
        c.push(performance.now() - t1);
        if (mark) inPage.push(await mark);
        if (c === cold) m = (await page.evaluate(MILESTONES)) as typeof m;
        await page.close();
      }
    } finally {
      await s.stop();
    }
  }
  const compared = COMPARE
    ? `; a second load, folder already read: outside ${fmt(median(warm))}, in-page mark ${fmt(median(inPage))}`
    : '';
  console.log(
    `${label}: page open → first chart drawn with its data, seen from outside, fresh serve each load: median ` +
      `${fmt(median(cold))} (best ${fmt(Math.min(...cold))}, worst ${fmt(Math.max(...cold))}); DOMContentLoaded ` +
      `${fmt(m.dcl)}; serve start → URL ${fmt(median(urls))}${compared}; script ${(m.js / 1024).toFixed(0)} KB in ` +
      `${m.jsFiles} file(s)`,
  );
  console.log(`figure ${key} ${median(cold).toFixed(0)}`);
  if (!COMPARE) return;
  console.log(`figure ${key.replace(/_ms$/, '_warm_ms')} ${median(warm).toFixed(0)}`);
  console.log(`figure ${key.replace(/_ms$/, '_in_page_ms')} ${median(inPage).toFixed(0)}`);
}

/** serve start → URL → page shows 1000 run rows (or all, if fewer) and a drawn chart, on RUNS tiny runs, N/2 times. */
async function manyRunsFirstScreen(browser: Browser): Promise<void> {
  const dir = manyRuns();
  const times: number[] = [];
  const urls: number[] = [];
  /** serve's CPU (user + system) and the page's main-thread task time up to the first screen: less moved by the
   * machine's other load than the wall figure. */
  const serveCpu: number[] = [];
  const pageTasks: number[] = [];
  const profile = process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE}`] : [];
  for (let i = 0; i < Math.max(1, Math.ceil(N / 2)); i++) {
    const t0 = performance.now();
    const s = await serveFolder(dir, profile);
    urls.push(performance.now() - t0);
    try {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.goto(s.url, { waitUntil: 'commit' });
      await waitIn<number>(page, LIST_AND_CHART, [Math.min(RUNS, 20)], 120_000);
      times.push(performance.now() - t0);
      const cpu = processCpuMs(s.pid);
      if (cpu !== null) serveCpu.push(cpu);
      const metrics = (await cdp.send('Performance.getMetrics')).metrics;
      pageTasks.push((metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000);
      await page.close();
    } finally {
      await s.stop();
    }
  }
  console.log(
    `${RUNS} runs: serve start → URL median ${fmt(median(urls))}; → first screen (run rows and a chart drawn) ` +
      `median ${fmt(median(times))} (best ${fmt(Math.min(...times))}, worst ${fmt(Math.max(...times))})`,
  );
  console.log(
    `  at the first screen: serve's CPU median ${fmt(median(serveCpu))}, the page's main-thread tasks median ` +
      `${fmt(median(pageTasks))}`,
  );
  console.log(`figure first_screen.runs_10k_ms ${median(times).toFixed(0)}`);
}

/** A process's CPU time so far (user + system, ms) from /proc; null where there is none (not Linux). */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15 (clock ticks of 10 ms).
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return null;
  }
}

const build = spawnSync(
  process.execPath,
  ['-e', "import('./scripts/lib/build.js').then((m) => process.exit(m.buildIfStale()))"],
  { cwd: ROOT, stdio: 'inherit' },
);
if (build.status !== 0) throw new Error('build failed');
const browser = await launchChromium();
try {
  if (CASES.has('tags'))
    await pageOpen(browser, '40 tags × 25k steps', manyTagsRun(), 'first_screen.first_chart_ms');
  if (CASES.has('corpus') && existsSync(CORPUS_RUN))
    await pageOpen(
      browser,
      'corpus SB3 folder (0pk0/rl4avs, 8 runs)',
      CORPUS_RUN,
      'first_screen.first_chart_corpus_ms',
    );
  if (CASES.has('runs')) await manyRunsFirstScreen(browser);
  if (CASES.has('overlay')) await sweepOverlaid(browser);
} finally {
  await browser.close();
}
console.log(
  `  load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
