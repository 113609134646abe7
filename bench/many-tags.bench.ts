// A W&B-like run with ~500 system tags (per-core CPU, per-GPU, network, disk, process) in Chromium over `rlwatch serve`: time to the first screen drawn.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser';
import { waitIn } from './lib/page-wait';
import { serveFolder } from './lib/serve';
import { EventFileWriter } from '../src/core/tfevents/writer';

const ROOT = join(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', '.data');
const REPS = Number(process.env.REPS ?? 5);
/** Stats samples (W&B samples system metrics every few seconds: a long run has a few thousand). */
const SAMPLES = Number(process.env.SAMPLES ?? 2000);

/** W&B's system stat names for a 64-core, 8-GPU machine: 64 + 8 × 2 × 27 + 12 = 508 tags, plus 4 training tags. */
function tagNames(): string[] {
  const gpuFields = [
    'gpu',
    'memory',
    'memoryAllocated',
    'memoryAllocatedBytes',
    'powerPercent',
    'powerWatts',
    'temp',
    'enforcedPowerLimitWatts',
    'smClock',
    'memoryClock',
    'graphicsClock',
    'pcieLinkGen',
    'pcieLinkWidth',
    'pcieLinkSpeed',
    'correctedMemoryErrors',
    'uncorrectedMemoryErrors',
    'fanSpeed',
    'encoderUtilization',
    'decoderUtilization',
    'memoryUsed',
    'memoryTotal',
    'clockThrottleReasons',
    'powerState',
    'gpuUtilization',
    'memoryUtilization',
    'nvlinkRx',
    'nvlinkTx',
  ];
  return [
    ...['loss', 'kl', 'reward', 'entropy'].map((t) => `train/${t}`),
    ...Array.from({ length: 64 }, (_, i) => `system/cpu.${i}.cpu_percent`),
    ...Array.from({ length: 8 }, (_, g) => gpuFields.map((f) => `system/gpu.${g}.${f}`)).flat(),
    ...Array.from({ length: 8 }, (_, g) => gpuFields.map((f) => `system/gpu.process.${g}.${f}`)).flat(),
    'system/cpu',
    'system/disk',
    'system/memory',
    'system/network.recv',
    'system/network.sent',
    'system/disk.in',
    'system/disk.out',
    'system/proc.cpu.threads',
    'system/proc.memory.availableMB',
    'system/proc.memory.percent',
    'system/proc.memory.rssMB',
    'system/memory_percent',
  ];
}

function ensureBuilt(): void {
  if (process.env.DASH_BUILD === '0') return;
  const r = spawnSync(
    process.execPath,
    ['-e', "import('./scripts/lib/build.js').then((m) => process.exit(m.buildIfStale()))"],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('build failed');
}

/** The run, cached under bench/.data/: every tag sampled SAMPLES times, 2 s apart. */
function manyTagRun(names: string[]): string {
  const dir = join(DATA, `many-tags-${names.length}x${SAMPLES}`);
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const run = join(dir, 'wandb_like_run');
  mkdirSync(run, { recursive: true });
  const wall0 = 1_700_000_000;
  const w = new EventFileWriter(run, { fileName: 'events.out.tfevents.1700000000.bench', wallTime: wall0 });
  for (let s = 0; s < SAMPLES; s++)
    w.scalars(
      s,
      names.map((tag, i) => ({ tag, value: 50 + 40 * Math.sin(s / 50 + i) })),
      'simple',
      wall0 + s * 2,
    );
  w.close();
  writeFileSync(join(dir, '.done'), '');
  return dir;
}

/**
 * In-page, polled every frame: ms since navigation when the first screen is drawn: at least one chart,
 * every chart in the viewport ready, and no lazy placeholder left in it.
 */
const FIRST_SCREEN_FN = `() => {
  const inView = (e) => { const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight && r.height > 0; };
  const charts = [...document.querySelectorAll('figure.chart')].filter(inView);
  if (charts.length === 0) return false;
  if ([...document.querySelectorAll('[data-lazy]')].some(inView)) return false;
  return charts.every((f) => f.getAttribute('data-state') === 'ready') ? performance.now() : false;
}`;

/** In-page: what exists after the first screen: chart figures (chart.js instances), placeholders, tags counted. */
const COUNTS_FN = `() => ({
  charts: document.querySelectorAll('figure.chart').length,
  placeholders: document.querySelectorAll('[data-lazy]').length,
  collapsedSections: document.querySelectorAll('.section-toggle[aria-expanded="false"]').length,
})`;

/** Counts the page's series.get requests on the WebSocket (a chart that was never seen asks for none). */
function countSeriesRequests(page: Page): { n: number } {
  const counter = { n: 0 };
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      if (typeof f.payload === 'string' && f.payload.includes('"series.get"')) counter.n++;
    }),
  );
  return counter;
}

async function main(): Promise<void> {
  ensureBuilt();
  const names = tagNames();
  const dir = manyTagRun(names);
  const served = await serveFolder(dir);
  const url = served.url;
  const browser: Browser = await launchChromium();
  try {
    const times: number[] = [];
    let counts = { charts: 0, placeholders: 0, collapsedSections: 0 };
    let requests = 0;
    const errors: string[] = [];
    for (let i = 0; i <= REPS; i++) {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      page.on('pageerror', (e) => errors.push(e.message));
      const sent = countSeriesRequests(page);
      await page.goto(url, { waitUntil: 'commit' });
      const t = await waitIn<number>(page, FIRST_SCREEN_FN, [], 60_000);
      // The first load is a warm-up (the server reads the folder, the browser caches the bundle).
      if (i > 0) times.push(t);
      counts = await page.evaluate(`(${COUNTS_FN})()`);
      requests = sent.n;
      await page.close();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(
      `  ${names.length} tags × ${SAMPLES} samples, 1920×1080: navigation → first screen drawn ` +
        `median ${median.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}, ${REPS} runs)`,
    );
    console.log(
      `  after it: ${counts.charts} chart.js charts, ${counts.placeholders} placeholders not yet seen, ` +
        `${counts.collapsedSections} sections collapsed, ${requests} series.get requests` +
        (errors.length ? ` [page errors: ${errors.join(' | ')}]` : ''),
    );
  } finally {
    await browser.close();
    await served.stop();
  }
  console.log(
    `  load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
