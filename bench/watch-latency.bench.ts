// Latency from a flushed append to the event file to its `rlwatch watch --json` line (built CLI, --no-system).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { EventFileWriter } from '../src/core/tfevents/writer';

const CLI = join(import.meta.dirname, '..', 'out', 'main', 'cli.js');
const N = Number(process.env.N ?? 300);
const GAP_MS = Number(process.env.GAP_MS ?? 40);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-bench-watch-'));
  const runDir = join(root, 'run');
  mkdirSync(runDir);
  const writer = new EventFileWriter(runDir, { wallTime: Date.now() / 1000 });
  writer.flush();
  const child = spawn(process.execPath, [CLI, 'watch', root, '--json', '--no-system'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const arrived = new Map<number, number>();
  let discovered!: () => void;
  const ready = new Promise<void>((res) => (discovered = res));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = JSON.parse(line) as {
      type: string;
      t: number;
      tag?: string;
      points?: [number, number, number][];
    };
    if (m.type === 'run') discovered();
    if (m.type === 'scalars' && m.tag === 'latency/probe') for (const p of m.points!) arrived.set(p[0], m.t);
  });
  await ready;
  const flushedAt = new Map<number, number>();
  for (let step = 0; step < N; step++) {
    writer.scalars(step, [{ tag: 'latency/probe', value: step }]);
    writer.flush();
    flushedAt.set(step, Date.now());
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  await new Promise((r) => setTimeout(r, 1500));
  child.kill('SIGINT');
  writer.close();
  const lat = [...flushedAt]
    .filter(([s]) => arrived.has(s))
    .map(([s, t]) => arrived.get(s)! - t)
    .sort((a, b) => a - b);
  console.log(
    `watch latency, flushed append → NDJSON line (${N} appends, one every ${GAP_MS} ms, ${lat.length} arrived)`,
  );
  console.log(
    `  p50 ${pct(lat, 50)} ms   p95 ${pct(lat, 95)} ms   p99 ${pct(lat, 99)} ms   max ${lat[lat.length - 1]} ms   (target p95 ≤ 50 ms)`,
  );
  console.log(
    `  load average: ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  rmSync(root, { recursive: true, force: true });
}

await main();
