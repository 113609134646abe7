// Dashboard in Chromium over `rlwatch serve`: 40 charts × 100k points to first paint, frame time with 20 tags at 10 Hz, append-to-pixel latency.

import { spawnSync } from 'node:child_process';
import { seededRandom } from '../src/shared/seeded-random';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser';
import { waitIn } from './lib/page-wait';
import { serveFolder } from './lib/serve';
import { median, pct } from './lib/stats';
import { EventFileWriter } from '../src/core/tfevents/writer';

const ROOT = join(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', '.data');
/** Which parts to run: DASH=a,b,c (default all; the budget's short run, N set, only (c)). */
const PARTS = new Set((process.env.DASH ?? (process.env.N !== undefined ? 'c' : 'a,b,c')).split(','));
const REPS = Number(process.env.REPS ?? 5);
const TAGS_A = 40;
const POINTS_A = 100_000;
const TAGS_B = 20;
const HZ_B = 10;
const SECONDS_B = Number(process.env.SECONDS_B ?? 15);
const PROBES_C = Number(process.env.PROBES_C ?? 200);
const GAP_C_MS = Number(process.env.GAP_C_MS ?? 50);

const ms = (x: number): string => `${x.toFixed(x < 10 ? 1 : 0)} ms`;
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));
/** In-page code is passed as text (this project's bench tsconfig has no DOM types): a call expression. */
const call = (fn: string, ...args: unknown[]): string =>
  `(${fn})(${args.map((a) => JSON.stringify(a)).join(', ')})`;

// ---- setup helpers ------------------------------------------------------------------------------

function ensureBuilt(): void {
  if (process.env.DASH_BUILD === '0') return;
  const r = spawnSync(
    process.execPath,
    ['-e', "import('./scripts/lib/build.js').then((m) => process.exit(m.buildIfStale()))"],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('build failed');
}

/** Deterministic PRNG so the generated runs are the same every time. */
const rng = seededRandom;

/** A run of `tags` random-walk tags × `steps` steps in one event file (cached under bench/.data/). */
function bigRun(tags: number, steps: number): string {
  const dir = join(DATA, `dashboard-${tags}x${steps}`);
  const run = join(dir, 'big_run');
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(run, { recursive: true });
  const t0 = Date.now();
  const wall0 = 1_700_000_000;
  const w = new EventFileWriter(run, { fileName: 'events.out.tfevents.1700000000.bench', wallTime: wall0 });
  const rand = rng(7);
  const level = new Float64Array(tags).fill(1);
  const names = Array.from({ length: tags }, (_, i) => `bench/metric_${String(i).padStart(2, '0')}`);
  for (let s = 0; s < steps; s++) {
    const pts = names.map((tag, i) => {
      level[i] = level[i]! + (rand() - 0.5) * 0.02;
      return { tag, value: level[i]! + (rand() - 0.5) * 0.1 };
    });
    w.scalars(s, pts, 'simple', wall0 + s * 0.1);
  }
  w.close();
  writeFileSync(join(dir, '.done'), '');
  console.log(`  (generated ${tags} tags × ${steps} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return dir;
}

async function newPage(browser: Browser, height: number): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1920, height } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return { page, errors };
}

/**
 * In-page: ms since navigation start once every chart cell on screen is a drawn chart (data-state=ready),
 * at least `n` of them or as many as the viewport holds (charts are created lazily as they come near the
 * viewport: cells below it stay placeholders), polled every frame.
 */
const READY_FN = `(n) => {
  const cells = [...document.querySelectorAll('figure.chart, .chart-placeholder')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  const ready = cells.filter((el) => el.matches('figure.chart[data-state="ready"]')).length;
  return cells.length > 0 && ready === cells.length && ready >= Math.min(n, cells.length) ? performance.now() : false;
}`;

/** In-page: how many charts have ink (non-transparent pixels) on their canvas. */
const INKED_FN = `() => [...document.querySelectorAll('figure.chart canvas')].filter((c) => {
  const ctx = c.getContext('2d');
  if (!c.width || !c.height) return false;
  const { data } = ctx.getImageData(0, 0, c.width, c.height);
  let n = 0;
  for (let i = 3; i < data.length; i += 16) if (data[i] > 0 && ++n > 50) return true;
  return false;
}).length`;

/** In-page: charts inside the viewport. */
const ON_SCREEN_FN = `() => [...document.querySelectorAll('figure.chart')].filter((f) => {
  const r = f.getBoundingClientRect();
  return r.bottom > 0 && r.top < innerHeight;
}).length`;

// ---- (a) first full paint ---------------------------------------------------------------------

async function partA(browser: Browser): Promise<void> {
  const dir = bigRun(TAGS_A, POINTS_A);
  const s = await serveFolder(dir);
  try {
    // Warm-up: the server reads the folder and the browser caches the bundle.
    {
      const { page } = await newPage(browser, 1080);
      await page.goto(s.url);
      await waitIn(page, READY_FN, [TAGS_A], 120_000);
      await page.close();
    }
    for (const [label, height] of [
      ['all 40 on screen (1920×6000 viewport)', 6000],
      ['1920×1080 viewport', 1080],
    ] as const) {
      const times: number[] = [];
      const visibleInked: string[] = [];
      let points = '';
      let errs: string[] = [];
      for (let i = 0; i < REPS; i++) {
        const { page, errors } = await newPage(browser, height);
        await page.goto(s.url, { waitUntil: 'commit' });
        times.push(await waitIn<number>(page, READY_FN, [TAGS_A], 60_000));
        const inked = (await page.evaluate(call(INKED_FN))) as number;
        const onScreen = (await page.evaluate(call(ON_SCREEN_FN))) as number;
        visibleInked.push(`${inked}/${onScreen}`);
        points = (await page.evaluate(
          `[...document.querySelectorAll('figure.chart')].map((f) => Number(f.dataset.points)).sort((a, b) => a - b)`,
        )) as string;
        errs = errors;
        await page.close();
      }
      const sorted = [...times].sort((a, b) => a - b);
      const pts = points as unknown as number[];
      console.log(
        `(a) ${TAGS_A} charts × ${POINTS_A / 1000}k points, ${label}: navigation → every chart on screen ready ` +
          `median ${ms(median(times))}, best ${ms(sorted[0]!)}, worst ${ms(sorted.at(-1)!)} (${REPS} loads; target ≤ 1000 ms)`,
      );
      console.log(
        `    charts with ink / on screen: ${visibleInked.join(' ')}; points drawn per chart ${pts[0]}–${pts.at(-1)}` +
          (errs.length ? `; page errors: ${errs.join(' | ')}` : ''),
      );
    }
  } finally {
    await s.stop();
  }
}

// ---- (b) frame time with live updates, and (c) append-to-pixel latency -------------------------

/** In-page frame probe: per-frame main-thread work (rAF start → after rendering), rAF deltas, long tasks. */
const FRAME_PROBE = `(() => {
  const work = [], deltas = [], longTasks = [], loaf = [];
  let last = 0, running = true;
  const ch = new MessageChannel();
  ch.port1.onmessage = (e) => work.push(performance.now() - e.data);
  const tick = (t) => {
    if (!running) return;
    const t0 = performance.now();
    requestAnimationFrame(tick);
    if (last) deltas.push(t - last);
    last = t;
    ch.port2.postMessage(t0);
  };
  requestAnimationFrame(tick);
  try { new PerformanceObserver((l) => l.getEntries().forEach((e) => longTasks.push(e.duration))).observe({ type: 'longtask' }); } catch {}
  try { new PerformanceObserver((l) => l.getEntries().forEach((e) => loaf.push(e.duration))).observe({ type: 'long-animation-frame' }); } catch {}
  window.__frameProbe = { stop() { running = false; return { work, deltas, longTasks, loaf }; } };
})()`;

/** In-page: record when each step of the probe tag first shows as drawn (data-last-step), wall clock. */
const LATENCY_PROBE = `((tag) => {
  const seen = {};
  const f = document.querySelector('figure.chart[data-tag="' + tag + '"]');
  new MutationObserver(() => {
    const s = f.dataset.lastStep;
    if (s !== undefined && !(s in seen)) seen[s] = Date.now();
  }).observe(f, { attributes: true, attributeFilter: ['data-last-step'] });
  window.__latency = seen;
})`;

function liveRun(): { dir: string; run: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-dash-'));
  const run = join(dir, 'live_run');
  mkdirSync(run);
  return { dir, run };
}

async function partB(browser: Browser): Promise<void> {
  for (const height of (process.env.B_HEIGHTS ?? '1080,3000').split(',').map(Number))
    await partBAt(browser, height);
}

async function partBAt(browser: Browser, height: number): Promise<void> {
  const { dir, run } = liveRun();
  const names = Array.from({ length: TAGS_B }, (_, i) => `live/metric_${String(i).padStart(2, '0')}`);
  const w = new EventFileWriter(run, { wallTime: Date.now() / 1000 });
  const rand = rng(11);
  // 10k points of history per tag so every chart starts with a realistic window.
  let step = 0;
  for (; step < 10_000; step++) {
    w.scalars(
      step,
      [
        ...names.map((tag) => ({ tag, value: Math.sin(step / 300) + rand() * 0.2 })),
        { tag: 'latency/probe', value: step },
      ],
      'simple',
      Date.now() / 1000 - (10_000 - step) * 0.1,
    );
  }
  w.flush();
  const s = await serveFolder(dir);
  try {
    const { page, errors } = await newPage(browser, height);
    await page.goto(s.url);
    await waitIn(page, READY_FN, [TAGS_B + 1], 60_000);
    if (process.env.B_IDLE) {
      await page.evaluate(FRAME_PROBE);
      await sleep(5000);
      const idle = (await page.evaluate('window.__frameProbe.stop()')) as { work: number[] };
      const sortedIdle = [...idle.work].sort((a, b) => a - b);
      console.log(
        `    idle page (no appends): frame work p50 ${ms(pct(sortedIdle, 50))}, p95 ${ms(pct(sortedIdle, 95))}`,
      );
    }
    await page.evaluate(call(LATENCY_PROBE, 'latency/probe'));
    await page.evaluate(FRAME_PROBE);
    const flushedAt = new Map<number, number>();
    const end = Date.now() + SECONDS_B * 1000;
    let next = Date.now();
    while (Date.now() < end) {
      w.scalars(step, [
        ...names.map((tag) => ({ tag, value: Math.sin(step / 300) + rand() * 0.2 })),
        { tag: 'latency/probe', value: step },
      ]);
      w.flush();
      flushedAt.set(step, Date.now());
      step++;
      next += 1000 / HZ_B;
      await sleep(Math.max(0, next - Date.now()));
    }
    await sleep(1000);
    const r = (await page.evaluate('window.__frameProbe.stop()')) as {
      work: number[];
      deltas: number[];
      longTasks: number[];
      loaf: number[];
    };
    const seen = (await page.evaluate('window.__latency')) as Record<string, number>;
    const onScreen = (await page.evaluate(call(ON_SCREEN_FN))) as number;
    await page.close();
    const work = [...r.work].sort((a, b) => a - b);
    const deltas = [...r.deltas].sort((a, b) => a - b);
    const dropped = r.deltas.filter((d) => d > 1.5 * (1000 / 60)).length;
    console.log(
      `(b) ${TAGS_B} tags at ${HZ_B} Hz for ${SECONDS_B} s (${onScreen} charts on screen, 10k-point history each): ` +
        `main-thread work per frame p50 ${ms(pct(work, 50))}, p95 ${ms(pct(work, 95))}, p99 ${ms(pct(work, 99))}, ` +
        `max ${ms(work.at(-1) ?? NaN)} (${work.length} frames; target p95 ≤ 16 ms)`,
    );
    console.log(
      `    rAF interval p50 ${ms(pct(deltas, 50))}, p95 ${ms(pct(deltas, 95))}; frames later than 1.5 × 16.7 ms: ` +
        `${dropped}/${r.deltas.length}; long tasks ${r.longTasks.length} (max ${ms(Math.max(0, ...r.longTasks))}), ` +
        `long animation frames ${r.loaf.length}` +
        (errors.length ? `; page errors: ${errors.join(' | ')}` : ''),
    );
    reportLatency('(c′) append → drawn, probe tag while the 20 tags update', flushedAt, seen);
  } finally {
    await s.stop();
    w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function reportLatency(
  label: string,
  flushedAt: Map<number, number>,
  seen: Record<string, number>,
  figureKey?: string,
): void {
  // A frame can draw several appends at once: a step counts as drawn when the chart first showed it or a later one.
  const shown = Object.entries(seen)
    .map(([k, t]) => [Number(k), t] as const)
    .sort((a, b) => a[0] - b[0]);
  const lat: number[] = [];
  for (const [step, t] of flushedAt) {
    let at = Infinity;
    for (const [s, when] of shown) if (s >= step && when < at) at = when;
    if (Number.isFinite(at)) lat.push(at - t);
  }
  lat.sort((a, b) => a - b);
  console.log(
    `${label}: p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))}, p99 ${ms(pct(lat, 99))}, max ${ms(lat.at(-1) ?? NaN)} ` +
      `(${lat.length}/${flushedAt.size} appends seen; target p95 ≤ 16 ms, one frame)`,
  );
  if (figureKey) console.log(`figure ${figureKey} ${pct(lat, 95).toFixed(1)}`);
}

async function partC(browser: Browser): Promise<void> {
  const { dir, run } = liveRun();
  const w = new EventFileWriter(run, { wallTime: Date.now() / 1000 });
  for (let step = 0; step < 100; step++) w.scalars(step, [{ tag: 'latency/probe', value: step }]);
  w.flush();
  const s = await serveFolder(dir);
  try {
    const { page, errors } = await newPage(browser, 1080);
    await page.goto(s.url);
    await waitIn(page, READY_FN, [1], 60_000);
    await page.evaluate(call(LATENCY_PROBE, 'latency/probe'));
    const flushedAt = new Map<number, number>();
    for (let step = 100; step < 100 + PROBES_C; step++) {
      w.scalars(step, [{ tag: 'latency/probe', value: step }]);
      w.flush();
      flushedAt.set(step, Date.now());
      await sleep(GAP_C_MS);
    }
    await sleep(1000);
    const seen = (await page.evaluate('window.__latency')) as Record<string, number>;
    await page.close();
    reportLatency(
      `(c) append → drawn in serve mode (${PROBES_C} appends, one every ${GAP_C_MS} ms)` +
        (errors.length ? ` [page errors: ${errors.join(' | ')}]` : ''),
      flushedAt,
      seen,
      'dashboard.append_to_pixels_p95_ms',
    );
  } finally {
    await s.stop();
    w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  const browser = await launchChromium();
  try {
    if (PARTS.has('a')) await partA(browser);
    if (PARTS.has('b')) await partB(browser);
    if (PARTS.has('c')) await partC(browser);
  } finally {
    await browser.close();
  }
  console.log(
    `  load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
