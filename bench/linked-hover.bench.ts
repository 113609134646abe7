// Linked hover in Chromium over `rlwatch serve`: 50 runs overlaid on every chart, ms from a pointer move to the frame that drew every crosshair (and the hovered chart's readout), and the frame in which every chart lists its values once the pointer rests.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser';
import { waitIn } from './lib/page-wait';
import { serveFolder } from './lib/serve';
import { pct } from './lib/stats';

const ROOT = join(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', '.data');
const RUNS = Number(process.env.RUNS ?? 50);
const TAGS = 8;
const STEPS = 2000;
/** Pointer moves per sweep; the budget's short run (N set, `npm run bench:budget`) makes 100 and 10 at rest. */
const MOVES = Number(process.env.MOVES ?? (process.env.N === undefined ? 200 : 100));
const REST_MOVES = process.env.N === undefined ? 20 : 10;

const ms = (x: number): string => `${x.toFixed(x < 10 ? 1 : 0)} ms`;
/** In-page code is passed as text (this project's bench tsconfig has no DOM types): a call expression. */
const call = (fn: string, ...args: unknown[]): string =>
  `(${fn})(${args.map((a) => JSON.stringify(a)).join(', ')})`;

function ensureBuilt(): void {
  if (process.env.HOVER_BUILD === '0') return;
  const r = spawnSync(
    process.execPath,
    ['-e', "import('./scripts/lib/build.js').then((m) => process.exit(m.buildIfStale()))"],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('build failed');
}

/** `RUNS` runs × `TAGS` random-walk tags × `STEPS` steps, as W&B-style metrics.jsonl (cached under bench/.data/). */
function sweep(): string {
  const dir = join(DATA, `hover-${RUNS}x${TAGS}x${STEPS}`);
  if (existsSync(join(dir, '.done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  let seed = 7;
  const rand = (): number => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  for (let r = 0; r < RUNS; r++) {
    const run = join(dir, `run_${String(r).padStart(2, '0')}`);
    mkdirSync(run, { recursive: true });
    const level = new Float64Array(TAGS).fill(r / RUNS);
    const lines: string[] = [];
    for (let s = 0; s < STEPS; s++) {
      const row: Record<string, number> = { _step: s * 10, _timestamp: 1_700_000_000 + s * 2 + r };
      for (let t = 0; t < TAGS; t++) {
        level[t] = level[t]! + (rand() - 0.5) * 0.02;
        row[`train/metric_${t}`] = Number(level[t]!.toPrecision(6));
      }
      lines.push(JSON.stringify(row));
    }
    writeFileSync(join(run, 'metrics.jsonl'), lines.join('\n') + '\n');
  }
  writeFileSync(join(dir, '.done'), '');
  return dir;
}

/** In-page: every chart cell on screen is a drawn chart with all `n` runs (data-state=ready). */
const READY_FN = `(n) => {
  const cells = [...document.querySelectorAll('figure.chart, .chart-placeholder')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  const ready = cells.filter((el) => el.matches('figure.chart[data-state="ready"]') && el.dataset.run.split(',').length === n);
  return cells.length > 0 && ready.length === cells.length ? cells.length : false;
}`;

/**
 * In-page probe: after each pointer move (a bubbling listener, so it runs after the chart's own), checks once a
 * frame whether every chart on screen marks the hovered chart's x; when they do, a message posted from that
 * frame's callback lands after the frame is drawn. Recorded: ms from the event's timestamp to then (`ms`), and
 * from that frame's start to then (`work`: the frame's scripts, style, layout and paint). A move over no chart
 * (the baseline) is done in the first frame.
 */
const PROBE_FN = `() => {
  window.__hover = [];
  const onScreen = () => [...document.querySelectorAll('figure.chart')].filter((f) => {
    const r = f.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  addEventListener('pointermove', (e) => {
    const t0 = e.timeStamp;
    const source = e.target instanceof Element ? e.target.closest('figure.chart') : null;
    // The pointer had rested (every chart listed its values): this move's frame also takes the other readouts away.
    const rested = document.querySelectorAll('figure.chart:has(.chart-readout-row)').length > 1;
    let frames = 0;
    const check = (frameStart) => {
      const script = performance.now() - frameStart;
      frames++;
      const want = source ? source.dataset.hoverX : '';
      const charts = source ? onScreen() : [];
      if (want !== undefined && charts.every((f) => f.dataset.hoverX === want)) {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          const now = performance.now();
          window.__hover.push({ ms: now - t0, work: now - frameStart, script, frames, charts: charts.length, rested });
        };
        ch.port2.postMessage(0);
      } else if (frames < 60) requestAnimationFrame(check);
      else window.__hover.push({ ms: NaN, work: NaN, frames, charts: charts.length, rested });
    };
    requestAnimationFrame(check);
  });
}`;

/**
 * In-page probe for a pointer at rest: after each move, checks once a frame whether every chart on screen lists its
 * values (readout rows), and records that frame's work as PROBE_FN does (up to 2 s).
 */
const REST_FN = `() => {
  window.__rest = [];
  const onScreen = () => [...document.querySelectorAll('figure.chart')].filter((f) => {
    const r = f.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  });
  addEventListener('pointermove', (e) => {
    if (!window.__resting) return;
    const t0 = e.timeStamp;
    let frames = 0;
    const check = (frameStart) => {
      const script = performance.now() - frameStart;
      frames++;
      const charts = onScreen();
      if (charts.length > 0 && charts.every((f) => f.querySelector('.chart-readout-row'))) {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          const now = performance.now();
          window.__rest.push({ ms: now - t0, work: now - frameStart, script, frames, charts: charts.length });
        };
        ch.port2.postMessage(0);
      } else if (frames < 120) requestAnimationFrame(check);
      else window.__rest.push({ ms: NaN, work: NaN, frames, charts: charts.length });
    };
    requestAnimationFrame(check);
  });
}`;

/** `n` moves, each followed by the pointer resting until every chart lists its values. */
async function restMoves(page: Page, x0: number, width: number, y: number, n: number): Promise<Sample[]> {
  await page.evaluate('window.__resting = true');
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    // Off the chart first (the hover ends, every readout goes), then onto it.
    await page.mouse.move(5, 5);
    await waitIn(page, `() => !document.querySelector('.chart-readout-row')`, [], 10_000);
    await page.mouse.move(x0 + width * (0.2 + (0.6 * i) / n), y);
    out.push(
      await waitIn<Sample>(page, `() => window.__rest.length > ${i} && window.__rest[${i}]`, [], 10_000),
    );
  }
  await page.evaluate('window.__resting = false');
  return out;
}

interface Sample {
  ms: number;
  script: number;
  work: number;
  frames: number;
  /** The move came after the pointer rested (SETTLE_MS): its frame also took every other chart's readout away. */
  rested?: boolean;
}

/** `MOVES` pointer moves back and forth along y between x0 and x0 + width, each waited for until drawn. */
async function sweepMoves(page: Page, x0: number, width: number, y: number): Promise<Sample[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  const first = await page.evaluate('window.__hover.length');
  const out: Sample[] = [];
  for (let i = 0; i < MOVES; i++) {
    const f = 0.15 + 0.7 * Math.abs(((i * 0.037) % 2) - 1);
    await page.mouse.move(x0 + width * f, y);
    const k = Number(first) + i;
    out.push(
      await waitIn<Sample>(page, `() => window.__hover.length > ${k} && window.__hover[${k}]`, [], 10_000),
    );
  }
  const after = await metrics();
  const per = (k: string): string => ms(((after[k]! - before[k]!) * 1000) / MOVES);
  console.log(
    `    per move (CDP): scripts ${per('ScriptDuration')}, style ${per('RecalcStyleDuration')}, layout ${per('LayoutDuration')}, all tasks ${per('TaskDuration')}`,
  );
  await cdp.detach();
  return out;
}

function summary(label: string, samples: Sample[]): { p50: number; p95: number } {
  const ok = samples.filter((x) => !Number.isNaN(x.ms));
  const t = ok.map((x) => x.ms).sort((a, b) => a - b);
  const w = ok.map((x) => x.work).sort((a, b) => a - b);
  const fr = ok.map((x) => x.frames).sort((a, b) => a - b);
  const sc = ok.map((x) => x.script).sort((a, b) => a - b);
  const missed = samples.length - ok.length;
  const rested = samples.filter((x) => x.rested);
  const rw = rested
    .filter((x) => !Number.isNaN(x.work))
    .map((x) => x.work)
    .sort((a, b) => a - b);
  console.log(
    `  ${label}: event → drawn p50 ${ms(pct(t, 50))}, p95 ${ms(pct(t, 95))}; the frame's work p50 ${ms(pct(w, 50))}, p95 ${ms(pct(w, 95))} (scripts p50 ${ms(pct(sc, 50))}); frames p50 ${pct(fr, 50)}, p95 ${pct(fr, 95)}${missed ? `; ${missed} moves never reached every chart` : ''}${rested.length > 0 ? `; ${rested.length} moves came after the pointer rested (their frame's work p50 ${ms(pct(rw, 50))})` : ''}`,
  );
  return { p50: pct(w, 50), p95: pct(w, 95) };
}

async function overlayAll(page: Page): Promise<void> {
  await page.locator('.run-select[data-run="run_00"]').click();
  for (let r = 1; r < RUNS; r++) {
    const label = `overlay run_${String(r).padStart(2, '0')} on the charts`;
    // A click, then its state waited for: on a busy machine the list can redraw before the change shows, which
    // `check()` (it reads the state at once) took for a failed click (#36's contended pass); clicked again if lost.
    const checked = `document.querySelector('[aria-label="${label}"]')?.checked === true`;
    for (let attempt = 0; !(await page.evaluate(checked)); attempt++) {
      if (attempt === 3) throw new Error(`${label}: still unticked after 3 clicks`);
      await page.getByLabel(label).click();
      await page.waitForFunction(checked, undefined, { timeout: 10_000 }).catch(() => undefined);
    }
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  const dir = sweep();
  const s = await serveFolder(dir);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await overlayAll(page);
    let charts = await waitIn<number>(page, READY_FN, [RUNS], 180_000);
    // Every tag's chart on screen (the figure is for 50 runs on 8 charts): a taller viewport until all 8 fit.
    for (let height = 1080; charts < TAGS && height < 3000; ) {
      height += 120;
      await page.setViewportSize({ width: 1920, height });
      charts = await waitIn<number>(page, READY_FN, [RUNS], 180_000);
    }
    const viewport = page.viewportSize()!;
    await page.evaluate(call(PROBE_FN));
    await page.evaluate(call(REST_FN));
    const canvas = page.locator('figure.chart canvas').first();
    const box = (await canvas.boundingBox())!;
    console.log(
      `  ${RUNS} runs overlaid on ${charts} charts on screen (${viewport.width}×${viewport.height}), ${TAGS} tags × ${STEPS} steps per run, ${MOVES} pointer moves each`,
    );
    // The floor: moves over the page's header (nothing hovers): the wait for the next frame and its drawing.
    summary('baseline (moves over the header)', await sweepMoves(page, box.x, box.width, 20));
    const hover = summary('linked hover', await sweepMoves(page, box.x, box.width, box.y + box.height / 2));
    // The pointer at rest: the one frame in which every chart lists its values (event → drawn includes the wait).
    summary(
      'at rest: every chart lists its values',
      await restMoves(page, box.x, box.width, box.y + box.height / 2, REST_MOVES),
    );
    console.log(`figure hover.frame_p50_ms ${hover.p50.toFixed(1)}`);
    console.log(`figure hover.frame_p95_ms ${hover.p95.toFixed(1)}`);
    if (errors.length > 0) console.log(`  page errors: ${errors.join(' | ')}`);
  } finally {
    await browser.close();
    await s.stop();
  }
  console.log(
    `  machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}; load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
