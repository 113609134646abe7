// Benchmark: the system sampler's own CPU cost at 1 Hz (% of one core, alone and with its nvidia-smi children), and XML vs CSV parse cost.
// Run: npx tsx bench/system-sampler.bench.ts   (BENCH_SECONDS=30 by default per mode)

import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSystemSampler } from '../src/core/system/create-sampler';
import { FAST_QUERY_FIELDS, parseQueryGpuCsv } from '../src/core/system/nvidia-csv';
import { parseNvidiaXml } from '../src/core/system/nvidia-xml';
import { defaultSpawner } from '../src/core/system/run-command';
import type { Spawner } from '../src/core/system/run-command';
import type { SystemSnapshot } from '../src/shared/system-types';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const FIXTURES = fileURLToPath(new URL('../test/fixtures/nvidia-smi/influxdata__telegraf/', import.meta.url));
const CLK_TCK = 100;

/** Own CPU (process.cpuUsage) and reaped children's CPU (cutime + cstime from /proc/self/stat, Linux). */
function cpuMs(): { self: number; children: number } {
  const u = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = ((Number(f[13]) + Number(f[14])) / CLK_TCK) * 1000;
  } catch {
    children = Number.NaN;
  }
  return { self: (u.user + u.system) / 1000, children };
}

/** Every child the sampler started (through its injected spawner), so live ones can be read in /proc. */
const spawned: ChildProcess[] = [];
const recordingSpawner: Spawner = (command, args, options) => {
  const child = defaultSpawner(command, args, options);
  spawned.push(child);
  return child;
};

/** utime + stime (ms) of each child still running (or not yet reaped): the streaming nvidia-smi. */
function liveChildrenMs(): Map<number, number> {
  const out = new Map<number, number>();
  for (const c of spawned) {
    if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) continue;
    try {
      const stat = readFileSync(`/proc/${c.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(c.pid, ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1000);
    } catch {
      // Gone between the check and the read: its time is in cutime once reaped.
    }
  }
  return out;
}

/** CPU of children in the window: reaped ones (cutime/cstime delta) plus the live ones' own delta. A child
 * alive at the start and reaped before the end is in cutime with its whole life: its earlier part is taken off. */
function childrenDeltaMs(c0: number, c1: number, l0: Map<number, number>, l1: Map<number, number>): number {
  let ms = c1 - c0;
  for (const [pid, t] of l1) ms += t - (l0.get(pid) ?? 0);
  for (const [pid, t] of l0) if (!l1.has(pid)) ms -= t;
  return ms;
}

function parseCost(label: string, fn: () => void, iterations: number): number {
  for (let i = 0; i < 20; i++) fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn();
  const c = process.cpuUsage(c0);
  const ms = (c.user + c.system) / 1000 / iterations;
  console.log(`  ${label.padEnd(52)} ${ms.toFixed(3)} ms CPU per parse`);
  return ms;
}

/** One-shots: `-q -x` → the XML dump, `--query-gpu` → the CSV rows. With `-lms N`: one long-lived bash
 * printing the rows every N ms, sleeping with the `read -t` builtin (no fork per set), like nvidia-smi's loop. */
function fakeNvidiaSmi(xml: string, csv: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-smi-'));
  writeFileSync(join(dir, 'dump.xml'), xml);
  writeFileSync(join(dir, 'dump.csv'), csv);
  const script = [
    '#!/bin/bash',
    'lms=""; prev=""',
    'for a in "$@"; do [ "$prev" = "-lms" ] && lms="$a"; prev="$a"; done',
    'if [ -n "$lms" ]; then',
    `  rows=$(<'${dir}/dump.csv')`,
    '  secs=$((lms / 1000)).$(printf %03d $((lms % 1000)))',
    '  exec 3<> <(:)',
    `  while :; do printf '%s\n' "$rows" || exit 1; read -t "$secs" -u 3; done`,
    'fi',
    'case "$1" in',
    `  -q) exec cat '${dir}/dump.xml' ;;`,
    `  *) exec cat '${dir}/dump.csv' ;;`,
    'esac',
  ];
  writeFileSync(join(dir, 'nvidia-smi'), script.join('\n') + '\n');
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Running {
  stop(): void;
  /** What the run did, for the line's tail (ticks, ticks with GPU rows, launches). */
  summary(): string;
}

async function measure(label: string, run: (() => Running) | null): Promise<void> {
  const running = run ? run() : null;
  // Let the first (cold) samples, the first XML and lazy imports pass before measuring.
  await new Promise((r) => setTimeout(r, 2500));
  const w0 = performance.now();
  const c0 = cpuMs();
  const l0 = liveChildrenMs();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const c1 = cpuMs();
  const l1 = liveChildrenMs();
  const wall = performance.now() - w0;
  const summary = running?.summary() ?? '';
  running?.stop();
  await new Promise((r) => setTimeout(r, 200));
  const self = ((c1.self - c0.self) / wall) * 100;
  const kids = (childrenDeltaMs(c0.children, c1.children, l0, l1) / wall) * 100;
  console.log(
    `  ${label.padEnd(50)} self ${self.toFixed(3)} %  children ${kids.toFixed(3)} %  total ${(self + kids).toFixed(3)} % of one core  ${summary}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `system sampler benchmark — node ${process.version}, ${process.platform}, ${SECONDS} s per mode\n`,
  );
  console.log('Parse cost (xml2js via node-nvidia-smi vs our CSV parser):');
  const one = readFileSync(FIXTURES + '3090-v13.xml', 'utf8');
  const two = readFileSync(FIXTURES + 'dual_2070-v13.xml', 'utf8');
  const p4 = readFileSync(FIXTURES + 'tesla_p4.xml', 'utf8');
  parseCost(
    `XML 1 GPU, v13 (3090-v13.xml, ${(one.length / 1024).toFixed(0)} KiB)`,
    () => parseNvidiaXml(one, 0),
    300,
  );
  parseCost(
    `XML 2 GPUs, v13 (dual_2070-v13.xml, ${(two.length / 1024).toFixed(0)} KiB)`,
    () => parseNvidiaXml(two, 0),
    200,
  );
  parseCost(
    `XML 1 vGPU, 13 processes (tesla_p4.xml, ${(p4.length / 1024).toFixed(0)} KiB)`,
    () => parseNvidiaXml(p4, 0),
    300,
  );
  const row = (i: number) =>
    `${i}, GPU-${i}, NVIDIA H100 80GB HBM3, 00000000:${(i + 1).toString(16).padStart(2, '0')}:00.0, 100, 11, 19818, 81559, 59, 631.95, 700.00, [N/A], 1980, 1980, 2619`;
  const csv1 = row(0) + '\n';
  const csv8 = Array.from({ length: 8 }, (_, i) => row(i)).join('\n') + '\n';
  parseCost('CSV fast query, 1 GPU', () => parseQueryGpuCsv(csv1, FAST_QUERY_FIELDS), 20_000);
  parseCost('CSV fast query, 8 GPUs', () => parseQueryGpuCsv(csv8, FAST_QUERY_FIELDS), 5_000);

  console.log('\nSampler at 1 Hz (real systeminformation, real /proc scan of a run folder):');
  const runFolder = mkdtempSync(join(tmpdir(), 'rlwatch-bench-run-'));
  const idleEnv = { ...process.env, PATH: mkdtempSync(join(tmpdir(), 'rlwatch-bench-nopath-')) };
  const start = (opts: Parameters<typeof createSystemSampler>[0]) => (): Running => {
    spawned.length = 0;
    const s = createSystemSampler({ platform: 'linux', spawner: recordingSpawner, ...opts });
    const seen: SystemSnapshot[] = [];
    s.subscribe((snap) => seen.push(snap));
    s.setRuns([{ run: '.', dir: runFolder }]);
    s.start();
    return {
      stop: () => s.stop(),
      summary: () => {
        const withGpu = seen.filter((x) => x.gpus !== null).length;
        const streams = spawned.filter((c) => c.spawnargs.includes('-lms')).length;
        return `[${seen.length} ticks, ${withGpu} with GPU rows; nvidia-smi started: ${streams} streaming, ${spawned.length - streams} one-shot]`;
      },
    };
  };
  const modes = (process.env.BENCH_MODES ?? 'idle,absent,stream,spawn').split(',');
  const fake = fakeNvidiaSmi(one, csv1);
  const withFake = { ...process.env, PATH: `${fake.dir}:${process.env.PATH ?? ''}` };
  const fake2 = fakeNvidiaSmi(two, csv1);
  const withFake2 = { ...process.env, PATH: `${fake2.dir}:${process.env.PATH ?? ''}` };
  if (modes.includes('idle')) await measure('baseline: no sampler (idle Node)', null);
  if (modes.includes('absent'))
    await measure('no GPU queries (nvidia-smi absent, backed off)', start({ env: idleEnv }));
  if (modes.includes('stream'))
    await measure('GPU: stream -lms 1000 + XML every 10 s (default)', start({ env: withFake }));
  if (modes.includes('spawn'))
    await measure(
      'GPU: CSV spawned each tick + XML every 10 s (before)',
      start({ env: withFake, nvidia: { streamIntervalMs: 0 } }),
    );
  if (modes.includes('xml'))
    await measure(
      'GPU: XML every tick (detailIntervalMs: 0)',
      start({ env: withFake, nvidia: { detailIntervalMs: 0 } }),
    );
  if (modes.includes('xml2'))
    await measure(
      'GPU: XML every tick, 2-GPU dump',
      start({ env: withFake2, nvidia: { detailIntervalMs: 0 } }),
    );
  fake.cleanup();
  fake2.cleanup();
  rmSync(runFolder, { recursive: true, force: true });
  rmSync(idleEnv.PATH, { recursive: true, force: true });
  console.log(
    '\nChildren = the fake nvidia-smi: reaped one-shots (sh + cat, from cutime) plus the live streaming bash (/proc/<pid>/stat).',
    '\nA real nvidia-smi costs more per launch (driver/NVML init) and per streamed set (NVML queries).',
  );
}

void main();
