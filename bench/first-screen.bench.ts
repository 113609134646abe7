// First screen in Chromium over the built `rlwatch serve`: page open → first chart drawn (40 tags × 25k steps, a corpus run) and serve start → first screen for 10k runs.
// Run: npm run bench first-screen   (env: N loads per case, default 7; RUNS for the many-runs case, default 10000;
// CASES=tags,corpus,runs picks the cases)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser';
import { EventFileWriter } from '../src/core/tfevents/writer';
import { envNumber } from './lib/log-folder';
import { serveFolder } from './lib/serve';
import { median } from './lib/stats';
import { waitIn } from './lib/page-wait';

const ROOT = join(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', '.data');
const N = envNumber('N', 7);
const RUNS = envNumber('RUNS', 10_000);
const CASES = new Set((process.env.CASES ?? 'tags,corpus,runs').split(','));
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

const fmt = (x: number): string => `${x.toFixed(0)} ms`;

/** Page open → first chart drawn and → every on-screen chart drawn, N loads after one warm-up, on a served folder. */
async function pageOpen(browser: Browser, label: string, dir: string, key: string): Promise<void> {
  const s = await serveFolder(dir);
  try {
    const first: number[] = [];
    const all: number[] = [];
    let m = { dcl: 0, js: 0, jsFiles: 0 };
    for (let i = 0; i <= N; i++) {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      await page.goto(s.url, { waitUntil: 'commit' });
      const f = await waitIn<number>(page, CHARTS_READY, [1], 60_000);
      const a = await waitIn<number>(page, CHARTS_READY, [1000], 60_000);
      m = (await page.evaluate(MILESTONES)) as typeof m;
      await page.close();
      if (i === 0) continue; // warm-up: the server has read the folder and the browser knows the page
      first.push(f);
      all.push(a);
    }
    console.log(
      `${label}: page open → first chart drawn median ${fmt(median(first))} (best ${fmt(Math.min(...first))}, ` +
        `worst ${fmt(Math.max(...first))}); → every chart on screen ${fmt(median(all))}; DOMContentLoaded ${fmt(m.dcl)}; ` +
        `script ${(m.js / 1024).toFixed(0)} KB transferred in ${m.jsFiles} file(s)`,
    );
    console.log(`figure ${key} ${median(first).toFixed(0)}`);
  } finally {
    await s.stop();
  }
}

/** serve start → URL → page shows 1000 run rows (or all, if fewer) and a drawn chart, on RUNS tiny runs, N/2 times. */
async function manyRunsFirstScreen(browser: Browser): Promise<void> {
  const dir = manyRuns();
  const times: number[] = [];
  const urls: number[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(N / 2)); i++) {
    const t0 = performance.now();
    const s = await serveFolder(dir);
    urls.push(performance.now() - t0);
    try {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      await page.goto(s.url, { waitUntil: 'commit' });
      await waitIn<number>(page, LIST_AND_CHART, [Math.min(RUNS, 20)], 120_000);
      times.push(performance.now() - t0);
      await page.close();
    } finally {
      await s.stop();
    }
  }
  console.log(
    `${RUNS} runs: serve start → URL median ${fmt(median(urls))}; → first screen (run rows and a chart drawn) ` +
      `median ${fmt(median(times))} (best ${fmt(Math.min(...times))}, worst ${fmt(Math.max(...times))})`,
  );
  console.log(`figure first_screen.runs_10k_ms ${median(times).toFixed(0)}`);
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
} finally {
  await browser.close();
}
console.log(
  `  load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
