// rlwatch's own cost while watching (#36 target 2): CPU and RSS of `serve` (one Chromium page open) and `watch` on 50
// live runs × 50 tags logging every second, system sampling on, and a stand-in trainer's throughput with and without watch.
// Run: npm run bench own-cost   (env: WARMUP_S 30, MEASURE_S 60, ROUNDS 3 (trainer off/on pairs), RUNS 50, TAGS 50,
// HISTORY 1000 (steps each run holds before it goes live), PARTS serve,watch,trainer, PROFILE=1: a --cpu-prof of serve
// and watch, their steady state's top self-time functions printed)

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { launchChromium } from '../test/e2e/browser';
import { runCli, type CliProcess } from '../test/e2e/cli-process';
import { openPage, serveIsolated, servedUrl } from '../test/e2e/demo-server';
import { apiClient } from './lib/api-client';
import { selfTimes, profiles } from './lib/cpu-profile';
import { envNumber } from './lib/log-folder';
import { cmdline, descendants, treeUsage } from './lib/proc';
import { median } from './lib/stats';
import { startStandInTrainer } from './lib/stand-in-trainer';

const WARMUP_S = envNumber('WARMUP_S', 30);
const MEASURE_S = envNumber('MEASURE_S', 60);
const ROUNDS = envNumber('ROUNDS', 3);
const RUNS = envNumber('RUNS', 50);
const TAGS = envNumber('TAGS', 50);
const HISTORY = envNumber('HISTORY', 1000);
const PARTS = (process.env.PARTS ?? 'serve,watch,trainer').split(',');
const PROFILE = process.env.PROFILE === '1';
/** RSS is read this often during a measurement (ms). */
const RSS_EVERY_MS = 5000;
const TOP = 15;
/** The runs' writer names them run_000, run_001, …: the last one read. */
const lastRun = `run_${String(RUNS - 1).padStart(3, '0')}`;

const root = join(import.meta.dirname, '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const mb = (kb: number): string => (kb / 1024).toFixed(0);

interface Usage {
  cpuPct: number;
  rssMaxKb: number;
  rssMedianKb: number;
}

/** CPU (% of one core) and RSS of each group of processes (and their descendants) over MEASURE_S seconds. */
async function measure(groups: Record<string, number[]>): Promise<Record<string, Usage>> {
  const names = Object.keys(groups);
  const t0 = performance.now();
  const cpu0 = names.map((n) => treeUsage(groups[n]!).cpuS);
  const rss: number[][] = names.map(() => []);
  while (performance.now() - t0 < MEASURE_S * 1000) {
    names.forEach((n, i) => rss[i]!.push(treeUsage(groups[n]!).rssKb));
    await sleep(Math.min(RSS_EVERY_MS, t0 + MEASURE_S * 1000 - performance.now()));
  }
  const s = (performance.now() - t0) / 1000;
  return Object.fromEntries(
    names.map((n, i) => [
      n,
      {
        cpuPct: ((treeUsage(groups[n]!).cpuS - cpu0[i]!) / s) * 100,
        rssMaxKb: Math.max(...rss[i]!),
        rssMedianKb: median(rss[i]!),
      },
    ]),
  );
}

const usageText = (u: Usage): string =>
  `CPU ${u.cpuPct.toFixed(2)} % of one core, RSS median ${mb(u.rssMedianKb)} MB / max ${mb(u.rssMaxKb)} MB`;

/** Node flags that make the rlwatch process write a CPU profile into `dir` when it exits. */
const profiled = (dir: string | null): string[] =>
  dir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];

/** Stops a profiled process and prints the steady state's top self-time functions. */
async function stopAndSummarise(p: CliProcess, dir: string | null, measuredUntil: number): Promise<void> {
  const tail = (performance.now() - measuredUntil) / 1000;
  await p.stop();
  if (dir === null) return;
  for (const path of profiles(dir)) {
    const { top, busyMs, idleMs } = selfTimes(path, MEASURE_S, tail);
    if (busyMs === 0) continue;
    console.log(
      `  profile ${path}: busy ${busyMs.toFixed(0)} ms of ${(busyMs + idleMs).toFixed(0)} ms sampled in the last ${MEASURE_S} s; top self time:`,
    );
    for (const f of top.slice(0, TOP))
      console.log(
        `    ${f.ms.toFixed(0).padStart(6)} ms  ${((f.ms / busyMs) * 100).toFixed(1).padStart(5)} %  ${f.fn}`,
      );
  }
}

/** The Chromium processes playwright started (children of this process): the browser's whole tree, its renderers.
 * Chromium rewrites its processes' titles, so /proc's command line is one string with its flags in it. */
function chromiumPids(): { all: number[]; renderers: number[] } {
  const mine = descendants(process.pid).map((pid) => ({ pid, cmd: cmdline(pid).join(' ') }));
  const chromium = mine.filter((p) => /chrom/i.test(p.cmd.split(' ')[0] ?? ''));
  return {
    all: chromium.filter((p) => !p.cmd.includes('--type=')).map((p) => p.pid),
    renderers: chromium.filter((p) => p.cmd.includes('--type=renderer')).map((p) => p.pid),
  };
}

async function serveCost(dir: string, profDir: string | null): Promise<Usage> {
  const { serve, storeDir } = serveIsolated(dir, { nodeArgs: profiled(profDir) });
  const url = await servedUrl(serve, 120_000);
  const browser = await launchChromium();
  const { page, errors } = await openPage(browser, url);
  await page.locator('.run-list button[data-run="run_000"]').waitFor({ timeout: 120_000 });
  // The folder's first read done (every run loaded) before the warm-up: on a busy machine it outlasted 30 s. The
  // probe closes then: a client that follows no series would be pushed them all.
  const t0 = performance.now();
  const api = await apiClient(url);
  for (;;) {
    const runs = ((await api.request('runs.list', {})).value ?? []) as { loaded: boolean }[];
    if (runs.length >= RUNS && runs.every((r) => r.loaded)) break;
    await sleep(1000);
  }
  api.close();
  console.log(
    `  serve: every run read ${((performance.now() - t0) / 1000).toFixed(0)} s after the page showed`,
  );
  await sleep(WARMUP_S * 1000);
  const chromium = chromiumPids();
  const u = await measure({ serve: [serve.child.pid!], renderer: chromium.renderers, browser: chromium.all });
  const until = performance.now();
  console.log(`(a) rlwatch serve + one Chromium page (load ${load()})`);
  console.log(`  serve (and its children):  ${usageText(u.serve!)}`);
  console.log(`  Chromium renderer(s) (${chromium.renderers.length}):    ${usageText(u.renderer!)}`);
  console.log(`  Chromium, all processes:   ${usageText(u.browser!)}`);
  if (errors.length) console.log(`  page errors: ${errors.length}; first: ${errors[0]}`);
  await browser.close();
  await stopAndSummarise(serve, profDir, until);
  rmSync(storeDir, { recursive: true, force: true });
  return u.serve!;
}

/** `rlwatch watch DIR` (text lines, system sampling on) with its own empty store path; resolves once it printed. */
async function startWatch(dir: string, storeDir: string, profDir: string | null): Promise<CliProcess> {
  const w = runCli(
    ['watch', dir],
    { ...process.env, RLWATCH_STORE: join(storeDir, 'rlwatch.db') },
    profiled(profDir),
  );
  // The last run by name (read last) printed its points: the folder's first read is done; then the caller's warm-up.
  await w.waitFor(new RegExp(`${lastRun}\\s+step \\d`), 300_000);
  return w;
}

async function watchCost(dir: string, storeDir: string, profDir: string | null): Promise<Usage> {
  const w = await startWatch(dir, storeDir, profDir);
  await sleep(WARMUP_S * 1000);
  const u = (await measure({ watch: [w.child.pid!] })).watch!;
  const until = performance.now();
  console.log(`(b) rlwatch watch (load ${load()})`);
  console.log(`  watch (and its children):  ${usageText(u)}`);
  await stopAndSummarise(w, profDir, until);
  return u;
}

/** The stand-in trainer's iterations/s over MEASURE_S, alternately without and with `watch`: off, on, off, … off. */
async function trainerCost(dir: string, storeDir: string): Promise<number> {
  const trainer = startStandInTrainer();
  console.log(`(c) stand-in trainer: ${trainer.processes} busy processes (one per core, normal priority)`);
  await sleep(5000);
  const window = async (): Promise<number> => {
    const from = Date.now();
    await sleep(MEASURE_S * 1000);
    return trainer.rate(from, Date.now());
  };
  const off: number[] = [];
  const on: number[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    off.push(await window());
    console.log(`  without rlwatch: ${(off[i]! / 1e3).toFixed(2)} k it/s (load ${load()})`);
    if (i === ROUNDS) break;
    const w = await startWatch(dir, storeDir, null);
    await sleep(WARMUP_S * 1000);
    const from = Date.now();
    const cpu0 = treeUsage([w.child.pid!]).cpuS;
    on.push(await window());
    const cpu = ((treeUsage([w.child.pid!]).cpuS - cpu0) / ((Date.now() - from) / 1000)) * 100;
    console.log(
      `  with watch:      ${(on[i]! / 1e3).toFixed(2)} k it/s (load ${load()}; watch CPU ${cpu.toFixed(2)} % of one core, contended)`,
    );
    await w.stop();
    await sleep(3000);
  }
  trainer.stop();
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  // Each with-window against the mean of the two without-windows around it, to cancel a drifting load.
  const paired = on.map((x, i) => (1 - x / ((off[i]! + off[i + 1]!) / 2)) * 100);
  const slowdown = (1 - mean(on) / mean(off)) * 100;
  console.log(
    `  slowdown with watch: ${slowdown.toFixed(2)} % (means); per round against the windows around it: ${paired.map((p) => p.toFixed(2)).join(', ')} %`,
  );
  return slowdown;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-own-cost-'));
  const storeDir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-own-cost-store-'));
  const profDir = PROFILE ? mkdtempSync(join(tmpdir(), 'rlwatch-bench-own-cost-prof-')) : null;
  // The runs' writer: one process, every run one step (all tags) per second, flushed per step.
  const writer = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      join(root, 'bench', 'lib', 'soak-writer.ts'),
      dir,
      String(TAGS),
      '1',
      String(24 * 3600),
      String(RUNS),
      String(HISTORY),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: writer.stdout! });
  await new Promise<void>((res) => lines.once('line', () => res()));
  lines.on('line', () => {});
  writer.stdin!.write('start\n');
  console.log(
    `own cost: ${RUNS} live runs × ${TAGS} tags, one step per second each (${HISTORY} steps before), system ` +
      `sampling on; warm-up ${WARMUP_S} s, then ${MEASURE_S} s measured; node ${process.version}; load ${load()}`,
  );
  const writer0 = treeUsage([writer.pid!]).cpuS;
  const t0 = performance.now();
  const figures: [string, number][] = [];
  try {
    if (PARTS.includes('serve')) {
      const u = await serveCost(dir, profDir && mkdtempSync(join(profDir, 'serve-')));
      figures.push(['own_cost.serve_cpu_pct', u.cpuPct], ['own_cost.serve_rss_mb', u.rssMaxKb / 1024]);
    }
    if (PARTS.includes('watch')) {
      const u = await watchCost(dir, storeDir, profDir && mkdtempSync(join(profDir, 'watch-')));
      figures.push(['own_cost.watch_cpu_pct', u.cpuPct], ['own_cost.watch_rss_mb', u.rssMaxKb / 1024]);
    }
    if (PARTS.includes('trainer'))
      figures.push(['own_cost.trainer_slowdown_pct', await trainerCost(dir, storeDir)]);
    const writerPct = ((treeUsage([writer.pid!]).cpuS - writer0) / ((performance.now() - t0) / 1000)) * 100;
    console.log(`the runs' writer, for scale: CPU ${writerPct.toFixed(2)} % of one core; load ${load()}`);
  } finally {
    writer.kill();
    rmSync(dir, { recursive: true, force: true });
    rmSync(storeDir, { recursive: true, force: true });
  }
  console.log('targets: CPU ≤ 2 % of one core, RSS ≤ 300 MB, trainer slowdown ≤ 1 %');
  for (const [key, v] of figures) console.log(`figure ${key} ${v.toFixed(2)}`);
}

await main();
