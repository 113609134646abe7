// The memory cap's regression test (issue 36): a generated folder of 500M scalar points, opened through the Workspace under
// the cap, must keep RSS under the cap (plus a stated margin), say what it thinned, and keep spikes and NaN on the chart.
// Run: npm run bench memory-cap   (env: POINTS (default 500M), RUNS (50), TAGS (10), DISTINCT (5), RLWATCH_MEMORY_CAP_MB (default
// min(2 GB, a quarter of RAM)), MARGIN_MB (200), KEEP=1 keeps the folder, TIMEOUT_S (3600)). The folder is written to
// a temporary directory and deleted after; nothing is committed.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { memoryCapSetting, MEMORY_CAP_ENV } from '../src/core/series/memory-cap';
import { createWorkspace } from '../src/core/workspace/create';
import { envNumber, FastEventWriter, fmtBytes, valueAt, wallAt } from './lib/log-folder';

const POINTS = envNumber('POINTS', 500_000_000);
const RUNS = envNumber('RUNS', 50);
const TAGS = envNumber('TAGS', 10);
const MARGIN_MB = envNumber('MARGIN_MB', 200);
const TIMEOUT_S = envNumber('TIMEOUT_S', 3600);
/** Runs generated point by point; the others are copies of them (the kernel copies at disk speed, where the generator
 * computes a CRC per record in JS: minutes for 8 GB on a loaded machine). */
const DISTINCT = Math.max(1, Math.min(RUNS, envNumber('DISTINCT', 5)));
const STEPS = Math.max(1, Math.round(POINTS / RUNS / TAGS));
/** Tag 0 of every run logs NaN at this step (a third of the way): it must stay visible. */
const NAN_STEP = Math.floor(STEPS / 3);

const MB = 2 ** 20;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Short tag names (`m0`, `m1`…), every tag of a step in one Event (16 B of file per point): the folder is written and
 * read at disk speed rather than at the generator's. */
const tags = Array.from({ length: TAGS }, (_, k) => `m${k}`);

interface Generated {
  bytes: number;
  points: number;
  /** Run 0 tag 0's greatest finite value (its spikes): the chart must show it. */
  max0: number;
}

function generate(dir: string): Generated {
  let bytes = 0;
  let max0 = Number.NEGATIVE_INFINITY;
  const ks = tags.map((_, k) => k);
  const vals = new Array<number>(TAGS).fill(0);
  const file = (r: number): string =>
    join(dir, `run_${String(r).padStart(3, '0')}`, `events.out.tfevents.${1_700_000_000 + r}.bench.${r}.0`);
  const sizes: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    mkdirSync(join(dir, `run_${String(r).padStart(3, '0')}`));
    if (r >= DISTINCT) {
      copyFileSync(file(r % DISTINCT), file(r));
      bytes += sizes[r % DISTINCT]!;
      continue;
    }
    const w = new FastEventWriter(file(r), tags);
    for (let s = 0; s < STEPS; s++) {
      for (let k = 0; k < TAGS; k++) vals[k] = valueAt(r, k, s);
      if (s === NAN_STEP) vals[0] = Number.NaN;
      else if (r === 0 && vals[0]! > max0) max0 = vals[0]!;
      w.event(wallAt(r, s), s, ks, vals);
    }
    w.close();
    sizes.push(w.bytes);
    bytes += w.bytes;
  }
  return { bytes, points: RUNS * TAGS * STEPS, max0 };
}

async function main(): Promise<void> {
  const cap = memoryCapSetting(process.env, totalmem());
  const limit = cap.bytes + MARGIN_MB * MB;
  const base = mkdtempSync(join(tmpdir(), 'rlwatch-memcap-'));
  const fs = statfsSync(base);
  const free = fs.bavail * fs.bsize;
  // The file: ~16 B per point plus a 40 B header per step of a run.
  const estimate = RUNS * STEPS * (40 + TAGS * 12);
  console.log(
    `folder: ${RUNS} runs × ${TAGS} tags × ${STEPS.toLocaleString()} steps = ${((RUNS * TAGS * STEPS) / 1e6).toFixed(0)}M ` +
      `float32 points (${DISTINCT} runs generated, the rest copies of them), ~${fmtBytes(estimate)} in ${base} (${fmtBytes(free)} free there); cap ${(cap.bytes / MB).toFixed(0)} MB ` +
      `(${cap.fromEnv ? MEMORY_CAP_ENV : 'default'}), RSS limit cap + ${MARGIN_MB} MB = ${(limit / MB).toFixed(0)} MB; load ${load()}`,
  );
  if (estimate * 1.05 > free) {
    rmSync(base, { recursive: true, force: true });
    throw new Error(
      `not enough disk: ${fmtBytes(estimate)} needed, ${fmtBytes(free)} free (set POINTS lower)`,
    );
  }
  try {
    const g0 = performance.now();
    const gen = generate(base);
    const genS = (performance.now() - g0) / 1000;
    console.log(
      `generated ${fmtBytes(gen.bytes)} in ${genS.toFixed(1)} s (${(gen.bytes / MB / genS).toFixed(0)} MB/s); load ${load()}`,
    );

    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const samples: number[] = [];
    const sampler = setInterval(() => {
      const rss = process.memoryUsage.rss();
      samples.push(rss);
      if (rss > peak) peak = rss;
    }, 1000);
    const ws = createWorkspace({ watch: false, memoryCap: cap });
    const notices: string[] = [];
    ws.on('app.notice', (n) => notices.push(n.message));
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const timeout = new Promise<'timeout'>((res) =>
      setTimeout(() => res('timeout'), TIMEOUT_S * 1000).unref(),
    );
    const done = await Promise.race([ws.open(base).then(() => 'loaded' as const), timeout]);
    const loadS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    clearInterval(sampler);
    const maxRss = process.resourceUsage().maxRSS * 1024;
    if (done === 'timeout') throw new Error(`not loaded after ${TIMEOUT_S} s`);

    const runs = ws.listRuns();
    const stored = ws.storedStats();
    const statement = ws.thinnedStatement();
    const win = ws.getWindow(runs[0]!.run, tags[0]!, { pixels: 2000 });
    const values = win ? [...win.values] : [];
    const nanShown = win !== null && win.steps[values.findIndex(Number.isNaN)] === NAN_STEP;
    const maxShown = Math.max(...values.filter(Number.isFinite));
    // A zoom of 1,000 steps around the NaN on run 0's thinned tag: its exact points read back from the file.
    const zoom = { pixels: 2000, xMin: NAN_STEP - 500, xMax: NAN_STEP + 499, axis: 'step' as const };
    const zoomBefore = ws.getWindow(runs[0]!.run, tags[0]!, zoom)?.inRange ?? 0;
    const z0 = performance.now();
    await ws.readExact(runs[0]!.run, tags[0]!, zoom);
    const zoomMs = performance.now() - z0;
    const zw = ws.getWindow(runs[0]!.run, tags[0]!, zoom);
    let zoomExact = zw !== null && zw.inRange === 1000;
    for (let i = 0; zoomExact && zw && i < zw.steps.length; i++) {
      const s = zw.steps[i]!;
      const want = s === NAN_STEP ? Number.NaN : Math.fround(valueAt(0, 0, s));
      if (!Object.is(zw.values[i], want)) zoomExact = false;
    }
    const maxRssAfterZoom = process.resourceUsage().maxRSS * 1024;
    await ws.close();

    const mbps = gen.bytes / MB / loadS;
    const pps = gen.points / loadS;
    console.log(
      `\nopened ${runs.length} runs (${runs.filter((r) => r.loaded).length} loaded) in ${loadS.toFixed(1)} s; load ${load()}`,
    );
    console.log(
      `  read ${mbps.toFixed(0)} MB/s, ${(pps / 1e6).toFixed(1)}M points/s (one process, ${fmtBytes(gen.bytes)} of event files); ` +
        `CPU ${cpuS.toFixed(1)} s: ${(gen.bytes / MB / cpuS).toFixed(0)} MB and ${(gen.points / cpuS / 1e6).toFixed(1)}M points ` +
        `per CPU-second (what a loaded machine's share of a core does not change)`,
    );
    console.log(
      `  stored ${stored.points.toLocaleString()} points in ${(stored.bytes / MB).toFixed(0)} MB; thinned away ` +
        `${stored.dropped.toLocaleString()} (kept 1 in ${((stored.points + stored.dropped) / Math.max(1, stored.points)).toFixed(1)})`,
    );
    console.log(
      `  RSS before ${(rssBefore / MB).toFixed(0)} MB, sampled each second: peak ${(peak / MB).toFixed(0)} MB over ` +
        `${samples.length} samples; process maxRSS ${(maxRss / MB).toFixed(0)} MB`,
    );
    console.log(`  statement: ${statement ?? '(none)'}`);
    console.log(
      `  run 0's ${tags[0]} at 2000 px: NaN at step ${NAN_STEP} shown: ${nanShown}; max ${maxShown} (generated ${gen.max0})`,
    );
    console.log(
      `  zoom on run 0's ${tags[0]} (steps ${zoom.xMin}–${zoom.xMax}, ${zoomBefore} of its 1000 points held): exact points read back from its file in ` +
        `${zoomMs.toFixed(0)} ms: ${zoomExact ? 'every point exact' : 'NOT exact'}; process maxRSS after ${(maxRssAfterZoom / MB).toFixed(0)} MB`,
    );
    console.log(`figure memory_cap.peak_rss_mb ${(maxRss / MB).toFixed(0)}`);
    console.log(`figure memory_cap.zoom_read_back_ms ${zoomMs.toFixed(0)}`);
    console.log(`figure memory_cap.read_mb_s ${mbps.toFixed(0)}`);
    console.log(`figure memory_cap.points_per_s ${pps.toFixed(0)}`);
    console.log(`figure memory_cap.read_mb_per_cpu_s ${(gen.bytes / MB / cpuS).toFixed(0)}`);
    const failures: string[] = [];
    if (maxRssAfterZoom > limit)
      failures.push(
        `peak RSS ${(maxRssAfterZoom / MB).toFixed(0)} MB passed the limit ${(limit / MB).toFixed(0)} MB`,
      );
    if (!zoomExact) failures.push('the zoom around the NaN did not read back every exact point');
    if (!runs.every((r) => r.loaded)) failures.push('not every run loaded');
    if (stored.dropped > 0 && !notices.some((n) => n.startsWith('rlwatch kept 1 in')))
      failures.push('points were thinned but no notice said so');
    if (!nanShown) failures.push('the NaN is not on the chart');
    if (maxShown !== gen.max0) failures.push(`the chart's max ${maxShown} is not the series' ${gen.max0}`);
    if (failures.length > 0) {
      for (const f of failures) console.log(`FAIL: ${f}`);
      process.exitCode = 1;
    } else console.log(`OK: under the cap + margin, the thinning said, spikes and NaN shown, the zoom exact`);
  } finally {
    if (process.env.KEEP === '1') console.log(`kept ${base}`);
    else rmSync(base, { recursive: true, force: true });
  }
}

await main();
