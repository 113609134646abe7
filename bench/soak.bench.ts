// Soak: a simulated run writes 50 tags at 20 Hz for SOAK_MINUTES (default 30) while a Workspace follows it; RSS slope and latency drift.
// Run: npm run bench soak   (never part of a plain `npm run bench`; env: SOAK_MINUTES, TAGS, HZ, WINDOW_S)

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createWorkspace } from '../src/core/workspace/create';
import { envNumber, tagNames } from './lib/log-folder';
import { pct, slope } from './lib/stats';

const MINUTES = envNumber('SOAK_MINUTES', 30);
const TAGS = envNumber('TAGS', 50);
const HZ = envNumber('HZ', 20);
const WINDOW_S = envNumber('WINDOW_S', 10);
/** Windows before this many seconds are warm-up (JIT, watcher set-up) and left out of the slope. */
const WARMUP_S = envNumber('WARMUP_S', 60);
const STORED_BYTES_PER_POINT = 16;

const root = join(import.meta.dirname, '..');
const MB = 2 ** 20;
const now = (): number => performance.timeOrigin + performance.now();

interface Window {
  t: number;
  rss: number;
  heapUsed: number;
  points: number;
  lat: number[];
}

const latText = (lat: number[]): string => {
  if (lat.length === 0) return 'no appends';
  const s = [...lat].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(1)} / p95 ${pct(s, 95).toFixed(1)} / max ${(s[s.length - 1] ?? NaN).toFixed(1)} ms`;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-soak-'));
  const runDir = join(dir, 'run');
  mkdirSync(runDir);
  const probeTag = tagNames(TAGS)[TAGS - 1]!; // written last in each step: its arrival means the step arrived
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      join(root, 'bench', 'lib', 'soak-writer.ts'),
      runDir,
      String(TAGS),
      String(HZ),
      String(MINUTES * 60),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const flushedAt = new Map<number, number>();
  const arrivedAt = new Map<number, number>();
  let ready!: () => void;
  let ended!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const isEnded = new Promise<void>((r) => (ended = r));
  child.on('exit', () => ended());
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') ready();
    else if (line === 'end') ended();
    else if (line.startsWith('s ')) {
      const [, step, t] = line.split(' ');
      flushedAt.set(Number(step), Number(t));
    }
  });
  await isReady;

  const ws = createWorkspace({ watch: true });
  let points = 0;
  ws.on('series.appended', (d) => {
    const t = now();
    points += d.steps.length;
    if (d.tag === probeTag) for (const s of d.steps) arrivedAt.set(s, t);
  });
  await ws.open(dir);
  globalThis.gc?.();
  const base = process.memoryUsage();
  console.log(
    `soak: ${TAGS} tags at ${HZ} Hz (one event per tag, flushed per step) for ${MINUTES} min, ` +
      `Workspace with watch: true in this process, writer in a child; node ${process.version}`,
  );
  console.log(
    `  start: RSS ${(base.rss / MB).toFixed(0)} MB, heap used ${(base.heapUsed / MB).toFixed(0)} MB; ` +
      `latency = flush in the writer → series.appended of its last tag (${probeTag})`,
  );
  const tStart = performance.now();
  child.stdin!.write('start\n');

  const windows: Window[] = [];
  let lost = 0;
  const sample = (tail = false): void => {
    // Join the flushes with their arrivals; a step not arrived yet waits for the next window.
    const lat: number[] = [];
    for (const [step, f] of flushedAt) {
      const a = arrivedAt.get(step);
      if (a === undefined) continue;
      lat.push(a - f);
      flushedAt.delete(step);
      arrivedAt.delete(step);
    }
    const m = process.memoryUsage();
    const w: Window = {
      t: (performance.now() - tStart) / 1000,
      rss: m.rss,
      heapUsed: m.heapUsed,
      points,
      lat,
    };
    if (!tail) windows.push(w);
    console.log(
      `  ${tail ? 'tail ' : ''}t=${w.t.toFixed(0).padStart(5)} s  RSS ${(w.rss / MB).toFixed(1).padStart(6)} MB  heap ${(
        w.heapUsed / MB
      )
        .toFixed(1)
        .padStart(5)} MB  points ${points.toLocaleString().padStart(10)}  ` +
        `append→series.appended ${latText(lat)} (${lat.length} steps)`,
    );
  };
  const timer = setInterval(() => sample(), WINDOW_S * 1000);
  await isEnded;
  // Let the last appends arrive, then a final window.
  await new Promise((r) => setTimeout(r, 1500));
  clearInterval(timer);
  // The tail (the appends after the last full window) is printed but left out of slope and drift.
  sample(true);
  lost = flushedAt.size;
  await ws.close();
  rmSync(dir, { recursive: true, force: true });

  const steady = windows.filter((w) => w.t >= WARMUP_S);
  const fit = steady.length >= 3 ? steady : windows;
  const ts = fit.map((w) => w.t);
  const rawSlope = slope(
    ts,
    fit.map((w) => w.rss / MB),
  );
  const netSlope = slope(
    ts,
    fit.map((w) => (w.rss - w.points * STORED_BYTES_PER_POINT) / MB),
  );
  const heapSlope = slope(
    ts,
    fit.map((w) => w.heapUsed / MB),
  );
  const per10min = (s: number): string => `${(s * 600).toFixed(1)} MB per 10 min`;
  const withLat = windows.filter((w) => w.lat.length > 0);
  const first = withLat[0];
  const last = withLat[withLat.length - 1];
  console.log(
    `\nsoak summary (${windows.length} windows of ${WINDOW_S} s; slope fitted on ${fit.length} windows` +
      `${fit === steady ? ` after ${WARMUP_S} s of warm-up` : ' (too short to leave out a warm-up)'}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
  );
  console.log(`  points stored: ${points.toLocaleString()}; steps flushed but never seen: ${lost}`);
  console.log(
    `  RSS slope: ${per10min(rawSlope)} raw, ${per10min(netSlope)} excluding the data's own ` +
      `${STORED_BYTES_PER_POINT} B/pt (target: flat); heap used slope ${per10min(heapSlope)}`,
  );
  if (first && last)
    console.log(
      `  latency drift: first window ${latText(first.lat)} → last window ${latText(last.lat)} (target: no drift)`,
    );
  child.kill();
}

await main();
