// Memory per stored point with 20M float32 points loaded through the Workspace (20 runs × 10 tags × 100k steps): bytes/point and main-process RSS.
// Run: npm run bench memory   (env: RUNS, TAGS, STEPS, LAYOUT=per-tag|per-step; needs --expose-gc, which scripts/bench.js passes)

import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { RunInfo } from '../src/shared/domain';
import { readEventFile } from '../src/core/tfevents';
import { createWorkspace } from '../src/core/workspace/create';
import { envNumber, fmtBytes, logFolder } from './lib/log-folder';

const RUNS = envNumber('RUNS', 20);
const TAGS = envNumber('TAGS', 10);
const STEPS = envNumber('STEPS', 100_000);
const LAYOUT = process.env.LAYOUT === 'per-step' ? 'per-step' : 'per-tag';
const TIMEOUT_S = envNumber('TIMEOUT_S', 300);

const TARGET_BYTES_PER_POINT = 16;
const TARGET_RSS_MB = 500;

const MB = 2 ** 20;
const mb = (bytes: number): string => (bytes / MB).toFixed(0);

interface Mem {
  rss: number;
  heapUsed: number;
  arrayBuffers: number;
  external: number;
}

async function settle(): Promise<Mem> {
  // Two collections with a turn of the event loop between them, so finalizers and weak refs settle.
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external };
}

function line(label: string, m: Mem): string {
  return (
    `${label.padEnd(26)} RSS ${mb(m.rss).padStart(5)} MB   heap used ${mb(m.heapUsed).padStart(5)} MB   ` +
    `array buffers ${mb(m.arrayBuffers).padStart(5)} MB`
  );
}

async function main(): Promise<void> {
  if (!globalThis.gc)
    console.log('note: run with --expose-gc (npm run bench memory does) for the after-GC figures');
  const folder = logFolder({ runs: RUNS, stepsPerRun: STEPS, tags: TAGS, layout: LAYOUT });
  console.log(
    `log folder: ${folder.runs.length} runs × ${TAGS} tags × ${STEPS.toLocaleString()} steps = ` +
      `${(folder.totalPoints / 1e6).toFixed(1)}M float32 points, ${fmtBytes(folder.totalBytes)} (${LAYOUT}; ` +
      `${folder.generated ? `generated in ${(folder.generateMs / 1000).toFixed(1)} s` : 'cached'})`,
  );

  const before = await settle();
  const ws = createWorkspace({ watch: true });
  const t0 = performance.now();
  let done!: () => void;
  const allDone = new Promise<void>((res) => (done = res));
  let runs: RunInfo[] = [];
  const check = (): void => {
    const r = ws.listRuns();
    // Loaded: every run says so AND every point is there (a flag set early must not end the wait).
    const n = r.reduce((a, x) => a + x.points, 0);
    if (r.length >= folder.runs.length && r.every((x) => x.loaded) && n >= folder.totalPoints) {
      runs = r;
      done();
    }
  };
  ws.on('runs.changed', check);
  ws.on('load.progress', check);
  const poll = setInterval(check, 100);
  const opened = ws.open(folder.dir).then(check);
  const timeout = new Promise<void>((res) => setTimeout(res, TIMEOUT_S * 1000).unref());
  await Promise.race([Promise.all([opened, allDone]), timeout]);
  clearInterval(poll);
  const loadMs = performance.now() - t0;
  const points = runs.reduce((a, r) => a + r.points, 0);
  if (points === 0) throw new Error(`not everything loaded after ${TIMEOUT_S} s`);

  const m = process.memoryUsage();
  const loaded: Mem = {
    rss: m.rss,
    heapUsed: m.heapUsed,
    arrayBuffers: m.arrayBuffers,
    external: m.external,
  };
  const maxRssKb = process.resourceUsage().maxRSS;
  const afterGc = await settle();
  // Touch the workspace after the measurement so it cannot be collected early.
  const probe = ws.getWindow(folder.runs[0]!.name, folder.tags[0]!, { pixels: 1000 });
  await ws.close();

  // The stored format itself: the reader's columnar series for the same files (capacity included).
  let byteSize = 0;
  let readerPoints = 0;
  let lengthBytes = 0;
  for (const r of folder.runs) {
    const dir = join(folder.dir, r.name);
    for (const f of readdirSync(dir).filter((n) => n.includes('tfevents'))) {
      const res = readEventFile(join(dir, f));
      for (const [, s] of res.series.entries()) {
        byteSize += s.byteSize;
        lengthBytes += s.length * (12 + (s.isDouble ? 8 : 4));
        readerPoints += s.length;
      }
    }
  }

  const perPoint = (bytes: number): string => (bytes / points).toFixed(1);
  const verdict = (x: number, target: number): string => (x <= target ? 'meets target' : 'MISSES target');
  const rssDelta = afterGc.rss - before.rss;
  const abDelta = afterGc.arrayBuffers - before.arrayBuffers;
  const heapDelta = afterGc.heapUsed - before.heapUsed;
  console.log(
    `\nmemory with ${points.toLocaleString()} points loaded (expected ${folder.totalPoints.toLocaleString()}; ` +
      `load ${(loadMs / 1000).toFixed(1)} s; node ${process.version}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
  );
  console.log(`  ${line('before open (after GC)', before)}`);
  console.log(`  ${line('all loaded', loaded)}`);
  console.log(`  ${line('all loaded, after GC', afterGc)}`);
  console.log(
    `  bytes per point: series byteSize ${(byteSize / readerPoints).toFixed(1)} B/pt ` +
      `(reader's columnar series for these files, capacity included: ${mb(byteSize)} MB; ` +
      `${(lengthBytes / readerPoints).toFixed(1)} B/pt by length)   ` +
      `target ≤ ${TARGET_BYTES_PER_POINT}: ${verdict(byteSize / readerPoints, TARGET_BYTES_PER_POINT)}`,
  );
  console.log(
    `                   typed arrays held by the Workspace (array buffers delta) ${perPoint(abDelta)} B/pt, ` +
      `JS heap delta ${perPoint(heapDelta)} B/pt, RSS delta ${perPoint(rssDelta)} B/pt`,
  );
  console.log(
    `  main-process RSS with the points loaded: ${mb(loaded.rss)} MB, after GC ${mb(afterGc.rss)} MB   ` +
      `target ≤ ${TARGET_RSS_MB} MB: ${verdict(afterGc.rss / MB, TARGET_RSS_MB)}` +
      (globalThis.gc ? '' : ' (no --expose-gc: not collected)'),
  );
  console.log(
    `  process maxRSS during the load ${(maxRssKb / 1024).toFixed(0)} MB; ` +
      `first window ${probe?.length ?? 0} points`,
  );
}

await main();
