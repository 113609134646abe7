// Self-check (not a test): the longest event-loop stall and bytes/point while a big folder loads.

// Run: npx tsx --expose-gc test/core/workspace/stall-selfcheck.ts [MB=1024] — writes MB of event files
// (copies of one 10 MB run) under the temp folder, opens it, prints JSON, removes the folder.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createWorkspace } from '../../../src/core/workspace/create';

async function main(): Promise<void> {
  const mb = Number(process.argv[2] ?? 1024);
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-stall-'));
  try {
    const seedDir = join(root, 'run_000');
    mkdirSync(seedDir);
    const w = new EventFileWriter(seedDir, { fileName: 'events.out.tfevents.1.host' });
    const tags = Array.from({ length: 50 }, (_, i) => `train/metric_${i}`);
    const perRun = Math.min(mb, 10) * (1 << 20);
    let s = 0;
    while (statSync(w.path).size < perRun) {
      for (let k = 0; k < 500; k++, s++)
        w.scalars(
          s,
          tags.map((tag, i) => ({ tag, value: Math.sin(s / 50 + i) })),
          'simple',
          1.7e9 + s,
        );
      w.flush();
    }
    w.close();
    const runBytes = statSync(w.path).size;
    const runs = Math.max(1, Math.round((mb * (1 << 20)) / runBytes));
    for (let r = 1; r < runs; r++) {
      const d = join(root, `run_${String(r).padStart(3, '0')}`);
      mkdirSync(d);
      copyFileSync(w.path, join(d, 'events.out.tfevents.1.host'));
    }

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const abBefore = process.memoryUsage().arrayBuffers;
    const ws = createWorkspace({ watch: false });
    let firstRunMs: number | null = null;
    let progressEvents = 0;
    const t0 = performance.now();
    ws.on('runs.changed', (list) => {
      if (firstRunMs === null && list.some((r) => r.loaded)) firstRunMs = performance.now() - t0;
    });
    ws.on('load.progress', () => progressEvents++);
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    // Direct measure too: the largest gap between 5 ms ticks, in wall time and in this process's CPU
    // time (on a busy shared machine the wall gap includes time the OS ran other processes; the CPU
    // gap is what our own synchronous work costs, i.e. the stall on an idle machine).
    let last = performance.now();
    let lastCpu = process.cpuUsage();
    let maxGap = 0;
    let maxCpuGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      const cpu = process.cpuUsage(lastCpu);
      maxGap = Math.max(maxGap, now - last);
      maxCpuGap = Math.max(maxCpuGap, (cpu.user + cpu.system) / 1000);
      last = now;
      lastCpu = process.cpuUsage();
    }, 5);
    await ws.open(root);
    const loadMs = performance.now() - t0;
    clearInterval(timer);
    h.disable();
    const points = ws.listRuns().reduce((n, r) => n + r.points, 0);
    const stored = ws.storedStats();
    gc?.();
    const abAfter = process.memoryUsage().arrayBuffers;
    console.log(
      JSON.stringify({
        mb: Math.round((runBytes * runs) / (1 << 20)),
        runs,
        points,
        loadMs: Math.round(loadMs),
        firstRunMs: firstRunMs === null ? null : Math.round(firstRunMs),
        progressEvents,
        maxStallMs: +(h.max / 1e6).toFixed(1),
        p99StallMs: +(h.percentile(99) / 1e6).toFixed(1),
        maxTickGapMs: +maxGap.toFixed(1),
        maxTickCpuMs: +maxCpuGap.toFixed(1),
        loadAvg: (await import('node:os')).loadavg()[0]!.toFixed(1),
        storedBytesPerPoint: +(stored.bytes / stored.points).toFixed(2),
        arrayBufferBytesPerPoint: gc ? +((abAfter - abBefore) / points).toFixed(2) : null,
      }),
    );
    await ws.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
