// Cold open of a generated log folder (default 100 runs, 1 GB) through the public Workspace API: first chart, all loaded, stalls, RSS.
// Run: npm run bench cold-open   (env: RUNS, TOTAL_MB, TAGS, CSV_SHARE, DROP_CACHES=1 to drop the OS page cache first; needs root)

import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoadProgress, RunInfo } from '../src/shared/domain';
import { createWorkspace } from '../src/core/workspace/create';
import { envNumber, fmtBytes, logFolder } from './lib/log-folder';

const RUNS = envNumber('RUNS', 100);
const TOTAL_MB = envNumber('TOTAL_MB', 1000);
const TAGS = envNumber('TAGS', 10);
const CSV_SHARE = envNumber('CSV_SHARE', 0);
/** Give up waiting for "everything loaded" after this long (s). */
const TIMEOUT_S = envNumber('TIMEOUT_S', 120);

const TARGET_FIRST_MS = 1000;
const TARGET_ALL_MS = 5000;
const TARGET_STALL_MS = 50;

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const ms = (x: number | null): string => (x === null ? 'never' : `${x.toFixed(0)} ms`);
const verdict = (x: number | null, target: number): string =>
  x !== null && x <= target ? 'meets target' : 'MISSES target';

async function main(): Promise<void> {
  const folder = logFolder({ runs: RUNS, totalBytes: TOTAL_MB * 1e6, tags: TAGS, csvShare: CSV_SHARE });
  console.log(
    `log folder: ${folder.runs.length} runs, ${fmtBytes(folder.totalBytes)}, ${folder.tags.length} tags, ` +
      `${(folder.totalPoints / 1e6).toFixed(1)}M points (${folder.key}; ` +
      `${folder.generated ? `generated in ${(folder.generateMs / 1000).toFixed(1)} s` : 'cached'})`,
  );
  const dropped = dropPageCache();
  console.log(
    `OS page cache: ${dropped ? 'dropped before the open (truly cold)' : 'warm (files likely cached; DROP_CACHES=1 as root drops it)'}`,
  );
  const firstRun = folder.runs[0]!.name;
  const firstTag = folder.tags[0]!;
  const expected = new Map(folder.runs.map((r) => [r.name, r.points]));

  global.gc?.();
  const rssBefore = process.memoryUsage().rss;

  // Event-loop stall probes: the histogram (10 ms resolution) and a plain 10 ms interval's gaps.
  const eld = monitorEventLoopDelay({ resolution: 10 });
  let lastTick = performance.now();
  let maxGap = 0;
  let peakRss = rssBefore;
  const probe = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - lastTick);
    lastTick = now;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);

  let progressEvents = 0;
  let lastProgress: LoadProgress | null = null;
  let runsChangedEvents = 0;
  let firstChartMs: number | null = null;
  let firstFlagMs: number | null = null;
  let firstPointsMs: number | null = null;
  let allFlagMs: number | null = null;
  let allPointsMs: number | null = null;
  let allLoadedMs: number | null = null;
  let openResolvedMs: number | null = null;
  let progressDoneMs: number | null = null;
  let firstWindowLength = 0;
  let lastRuns: RunInfo[] = [];

  const t0 = performance.now();
  eld.enable();
  const ws = createWorkspace({ watch: true });
  let done!: () => void;
  const allDone = new Promise<void>((res) => (done = res));
  const complete = (r: RunInfo): boolean => r.points >= (expected.get(r.run) ?? Infinity);

  /**
   * Checks the public state: on every push event, when open() resolves, and by a 100 ms poll. A run
   * counts as loaded when RunInfo.loaded says so AND all its points (the generator's count) are there.
   */
  const check = (runs: RunInfo[] = ws.listRuns()): void => {
    const now = performance.now() - t0;
    lastRuns = runs;
    const first = runs.find((r) => r.run === firstRun);
    if (firstFlagMs === null && first?.loaded) firstFlagMs = now;
    if (firstPointsMs === null && first && complete(first)) firstPointsMs = now;
    if (firstChartMs === null && firstFlagMs !== null && firstPointsMs !== null) {
      const w = ws.getWindow(firstRun, firstTag, { pixels: 1000 });
      if (w && w.length > 0) {
        firstChartMs = performance.now() - t0;
        firstWindowLength = w.length;
      }
    }
    const all = runs.length >= expected.size;
    if (allFlagMs === null && all && runs.every((r) => r.loaded)) allFlagMs = now;
    if (allPointsMs === null && all && runs.every(complete)) allPointsMs = now;
    if (allLoadedMs === null && allFlagMs !== null && allPointsMs !== null) {
      allLoadedMs = now;
      done();
    }
  };
  ws.on('load.progress', (p) => {
    progressEvents++;
    lastProgress = p;
    if (p.phase === 'done' && progressDoneMs === null) progressDoneMs = performance.now() - t0;
    check();
  });
  ws.on('runs.changed', (runs) => {
    runsChangedEvents++;
    check(runs);
  });
  const poll = setInterval(() => check(), 100);
  const opened = ws.open(folder.dir).then(() => {
    openResolvedMs = performance.now() - t0;
    check();
  });
  const timeout = new Promise<void>((res) => setTimeout(res, TIMEOUT_S * 1000).unref());
  await Promise.race([Promise.all([opened, allDone]), timeout]);
  eld.disable();
  clearInterval(probe);
  clearInterval(poll);
  const maxRssKb = process.resourceUsage().maxRSS;
  const rssAfter = process.memoryUsage().rss;
  peakRss = Math.max(peakRss, rssAfter);
  await ws.close();

  const loadedPoints = lastRuns.reduce((a, r) => a + r.points, 0);
  const short = lastRuns.filter((r) => !complete(r));
  const eldMax = eld.max / 1e6;
  const eldP99 = eld.percentile(99) / 1e6;
  const stall = Math.max(0, maxGap - 10);

  console.log(
    `\ncold open (fresh Workspace, watch: true; node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const flagEarly = (flag: number | null, points: number | null): string =>
    flag !== null && (points === null || flag < points)
      ? ' — RunInfo.loaded was true before all points were there'
      : '';
  console.log(
    `  first chart (${firstRun} loaded + getWindow(${firstTag}, 1000 px) answered, ${firstWindowLength} points): ` +
      `${ms(firstChartMs)}   target ≤ ${TARGET_FIRST_MS} ms: ${verdict(firstChartMs, TARGET_FIRST_MS)}`,
  );
  console.log(
    `    (its RunInfo.loaded at ${ms(firstFlagMs)}, all its points at ${ms(firstPointsMs)}${flagEarly(firstFlagMs, firstPointsMs)})`,
  );
  console.log(
    `  everything loaded (${lastRuns.length}/${expected.size} runs): ${ms(allLoadedMs)}   ` +
      `target ≤ ${TARGET_ALL_MS} ms: ${verdict(allLoadedMs, TARGET_ALL_MS)}`,
  );
  console.log(
    `    (every RunInfo.loaded at ${ms(allFlagMs)}, every point at ${ms(allPointsMs)}${flagEarly(allFlagMs, allPointsMs)})`,
  );
  console.log(
    `  open() resolved at ${ms(openResolvedMs)}; ${runsChangedEvents} runs.changed events; ` +
      `points loaded ${loadedPoints.toLocaleString()} of ${folder.totalPoints.toLocaleString()}` +
      (short.length ? ` (${short.length} runs short of the generator's count)` : ''),
  );
  console.log(
    progressEvents === 0
      ? '  load.progress events: 0 — no progress indicator yet'
      : `  load.progress events: ${progressEvents}, phase 'done' at ${ms(progressDoneMs)} ` +
          `(last: ${JSON.stringify(lastProgress)})`,
  );
  console.log(
    `  event-loop delay during the load (monitorEventLoopDelay, 10 ms resolution): max ${eldMax.toFixed(0)} ms, ` +
      `p99 ${eldP99.toFixed(0)} ms   target stall ≤ ${TARGET_STALL_MS} ms: ${verdict(eldMax, TARGET_STALL_MS)}`,
  );
  console.log(
    `  setInterval(10 ms) cross-check: max gap ${maxGap.toFixed(0)} ms (stall ≈ ${stall.toFixed(0)} ms over the 10 ms period)`,
  );
  console.log(
    `  RSS: before ${mb(rssBefore)} MB, peak sampled ${mb(peakRss)} MB, after load ${mb(rssAfter)} MB; ` +
      `process maxRSS ${(maxRssKb / 1024).toFixed(0)} MB`,
  );
  if (allLoadedMs === null) console.log(`  (gave up after ${TIMEOUT_S} s: not everything loaded)`);
}

/** Drops the OS page cache when asked to (Linux, root); returns whether it did. */
function dropPageCache(): boolean {
  if (process.env.DROP_CACHES !== '1') return false;
  const path = '/proc/sys/vm/drop_caches';
  if (!existsSync(path)) return false;
  try {
    writeFileSync(path, '3\n');
    return true;
  } catch {
    return false;
  }
}

await main();
