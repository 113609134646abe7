// Headless figure export of a 40-tag × 100k-step run: time per figure (p50/p95, PNG and SVG), total and peak RSS.
// Run: npm run bench export-figures   (env: TAGS, STEPS, WIDTH, HEIGHT, SVG=0 to skip the SVG pass)

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportData, type ExportFileEvent } from '../src/core/export/export-run';
import { envNumber, logFolder } from './lib/log-folder';
import { pct } from './lib/stats';

const TAGS = envNumber('TAGS', 40);
const STEPS = envNumber('STEPS', 100_000);
const WIDTH = envNumber('WIDTH', 1600);
const HEIGHT = envNumber('HEIGHT', 900);
const TARGET_MS = 100;

/** One export pass in one format: the time between consecutive files is that figure's time (build, draw, write). */
async function pass(
  dir: string,
  format: 'png' | 'svg',
): Promise<{ times: number[]; totalMs: number; firstMs: number; cpuMs: number }> {
  const out = mkdtempSync(join(tmpdir(), 'rlwatch-bench-figures-'));
  const times: number[] = [];
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let last = 0;
  let firstMs = Number.NaN;
  try {
    await exportData(dir, {
      out,
      csv: false,
      json: false,
      png: format === 'png',
      svg: format === 'svg',
      figure: { width: WIDTH, height: HEIGHT },
      maxTagFigures: TAGS,
      onFile: (e: ExportFileEvent) => {
        const now = performance.now();
        if (e.kind === 'failed') throw new Error(e.message);
        // The first file's time includes reading the run: counted apart.
        if (last !== 0) times.push(now - last);
        else firstMs = now - start;
        last = now;
      },
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const totalMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { times, totalMs, firstMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const folder = logFolder({ runs: 1, stepsPerRun: STEPS, tags: TAGS, layout: 'per-step' });
const dir = join(folder.dir, folder.runs[0]!.name);
console.log(
  `export figures: 1 run × ${TAGS} tags × ${STEPS.toLocaleString()} steps (${(folder.totalPoints / 1e6).toFixed(1)}M points), ` +
    `${WIDTH}×${HEIGHT}; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`,
);
// Warm-up: fonts, chart.js and the canvas library load on first use.
await pass(dir, 'png').catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
for (const format of process.env.SVG === '0' ? (['png'] as const) : (['png', 'svg'] as const)) {
  const r = await pass(dir, format);
  const figureTimes = [...r.times].sort((a, b) => a - b);
  const p50 = pct(figureTimes, 50);
  const p95 = pct(figureTimes, 95);
  console.log(
    `${format}: ${r.times.length + 1} figures (first after ${(r.firstMs / 1000).toFixed(1)} s: reading the run + 1 figure), others p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, ` +
      `max ${figureTimes.at(-1)!.toFixed(0)} ms; total ${(r.totalMs / 1000).toFixed(1)} s (reading the run included), ` +
      `CPU ${(r.cpuMs / (r.times.length + 1)).toFixed(0)} ms per figure (all threads; the load-free figure on a busy machine)` +
      (format === 'png'
        ? `  [target ≤ ${TARGET_MS} ms per figure: wall p50 ${p50 <= TARGET_MS ? 'met' : 'NOT met'}, ` +
          `CPU ${r.cpuMs / (r.times.length + 1) <= TARGET_MS ? 'met' : 'NOT met'}]`
        : ''),
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
