// Benchmark: the system sampler's own CPU cost at 1 Hz (% of one core, children included), and XML vs CSV parse cost.
// Run: npx tsx bench/system-sampler.bench.ts   (BENCH_SECONDS=30 by default per mode)

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSystemSampler } from '../src/core/system/create-sampler';
import { FAST_QUERY_FIELDS, parseQueryGpuCsv } from '../src/core/system/nvidia-csv';
import { parseNvidiaXml } from '../src/core/system/nvidia-xml';

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

function parseCost(label: string, fn: () => void, iterations: number): number {
  for (let i = 0; i < 20; i++) fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn();
  const c = process.cpuUsage(c0);
  const ms = (c.user + c.system) / 1000 / iterations;
  console.log(`  ${label.padEnd(52)} ${ms.toFixed(3)} ms CPU per parse`);
  return ms;
}

function fakeNvidiaSmi(xml: string, csv: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-smi-'));
  writeFileSync(join(dir, 'dump.xml'), xml);
  writeFileSync(join(dir, 'dump.csv'), csv);
  const script = [
    '#!/bin/sh',
    'case "$1" in',
    `  -q) exec cat '${dir}/dump.xml' ;;`,
    `  *) exec cat '${dir}/dump.csv' ;;`,
    'esac',
  ];
  writeFileSync(join(dir, 'nvidia-smi'), script.join('\n') + '\n');
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function measure(label: string, run: (() => Promise<() => void>) | null): Promise<void> {
  const stop = run ? await run() : () => undefined;
  // Let the first (cold) sample and lazy imports pass before measuring.
  await new Promise((r) => setTimeout(r, 1500));
  const w0 = performance.now();
  const c0 = cpuMs();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const c1 = cpuMs();
  const wall = performance.now() - w0;
  stop();
  const self = ((c1.self - c0.self) / wall) * 100;
  const kids = ((c1.children - c0.children) / wall) * 100;
  console.log(
    `  ${label.padEnd(52)} self ${self.toFixed(3)} %  children ${kids.toFixed(3)} %  total ${(self + kids).toFixed(3)} % of one core`,
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
  await measure('baseline: no sampler (idle Node)', null);
  const start = async (opts: Parameters<typeof createSystemSampler>[0]) => {
    const s = createSystemSampler({ platform: 'linux', ...opts });
    s.setRunFolder(runFolder);
    s.start();
    return () => s.stop();
  };
  await measure('no GPU queries (nvidia-smi absent, backed off)', () => start({ env: idleEnv }));
  const fake = fakeNvidiaSmi(one, csv1);
  const withFake = { ...process.env, PATH: `${fake.dir}:${process.env.PATH ?? ''}` };
  await measure('GPU: CSV each tick + XML every 10 s (default)', () => start({ env: withFake }));
  await measure('GPU: XML every tick (detailIntervalMs: 0)', () =>
    start({ env: withFake, nvidia: { detailIntervalMs: 0 } }),
  );
  const fake2 = fakeNvidiaSmi(two, csv1);
  const withFake2 = { ...process.env, PATH: `${fake2.dir}:${process.env.PATH ?? ''}` };
  await measure('GPU: XML every tick, 2-GPU dump', () =>
    start({ env: withFake2, nvidia: { detailIntervalMs: 0 } }),
  );
  fake.cleanup();
  fake2.cleanup();
  rmSync(runFolder, { recursive: true, force: true });
  rmSync(idleEnv.PATH, { recursive: true, force: true });
  console.log(
    '\nChildren = the fake nvidia-smi (sh + cat); a real nvidia-smi costs more per launch (driver/NVML init).',
  );
}

void main();
