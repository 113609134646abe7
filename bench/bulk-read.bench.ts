// Bulk read (#36 target 3): a folder of event files mostly of images and histograms (10 GiB by default), generated into
// a temporary folder and deleted afterwards, read as `rlwatch inspect` and the workspace's first read do: MB/s, MB/s per
// core (CPU time), peak RSS, page cache warm and (where `dd iflag=nocache` can drop it) cold.
// Run: npm run bench bulk-read   (SIZE_GB=10 GiB, N=2 warm passes of each read, COLD=0 to skip the cold pass; KEEP=1
// keeps the folder and its manifest (DIR.json) for REUSE=DIR, which reads that folder again instead of writing one)

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { inspectPath } from '../src/core/inspect';
import { TfeventsReader } from '../src/core/tfevents/tfevents-reader';
import { writeMediaFolder, type MediaFolder } from './lib/media-folder';

const GIB = 1024 ** 3;
/** TensorBoard's Rust data server (RustBoard): ≈ 120 MiB/s on a 20 GiB event file, on one core. */
const RUSTBOARD_MB_S = (120 * 1024 * 1024) / 1e6;

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** What a read child reports on stdout (one JSON line). */
interface ChildReport {
  scalarPoints: number;
  records: number;
  errors: number;
  maxRssMb: number;
}

// ---- The reads, each in a child process of its own (so its RSS is the read's alone). ----

/** `rlwatch inspect DIR`'s read: every run, its large event files on the read pool's workers. */
async function inspectRead(dir: string): Promise<ChildReport> {
  const report = await inspectPath(dir);
  let scalarPoints = 0;
  let records = 0;
  let errors = 0;
  for (const run of report.runs) {
    scalarPoints += run.points;
    for (const s of run.sources) {
      records += s.records;
      errors += s.errors.length;
    }
  }
  return { scalarPoints, records, errors, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

/** The workspace's first read: every file read whole in-thread through its incremental reader, in slices. */
async function workspaceRead(files: string[]): Promise<ChildReport> {
  let scalarPoints = 0;
  let records = 0;
  let errors = 0;
  for (const f of files) {
    const r = new TfeventsReader(f);
    const batch = await r.readMore({ final: true });
    records += batch.records;
    errors += batch.errors.length;
    scalarPoints += r.result().series.pointCount();
  }
  return { scalarPoints, records, errors, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

if (process.argv[2] === '--child') {
  const mode = process.argv[3];
  const r =
    mode === 'inspect' ? await inspectRead(process.argv[4]!) : await workspaceRead(process.argv.slice(4));
  process.stdout.write(JSON.stringify(r) + '\n');
  process.exit(0);
}

// ---- The parent: generate, read, report, delete. ----

/** CPU ms of the reaped children so far (Linux: cutime + cstime of /proc/self/stat, 10 ms ticks). */
function childCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** A child's resident set now and its high-water mark (kB, from /proc/PID/status); null once it is gone. */
function rssOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string): number => Number(/(\d+) kB/.exec(s.split(`${k}:`)[1] ?? '')?.[1] ?? 0);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

interface Pass {
  wallMs: number;
  cpuMs: number;
  /** Peak RSS, MB: the child's own maxRSS (getrusage) and the largest VmRSS sampled every 20 ms. */
  peakRssMb: number;
  sampledRssMb: number;
  report: ChildReport;
  load: string;
}

async function childPass(args: string[]): Promise<Pass> {
  const c0 = childCpuMs();
  const t0 = performance.now();
  // `--import tsx`, not tsx's CLI (which runs the script in a grandchild): the child sampled is the reader.
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', ...args], {
    cwd: join(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  let sampled = 0;
  const timer = setInterval(() => {
    const r = rssOf(child.pid!);
    if (r) sampled = Math.max(sampled, r.rss, r.hwm);
  }, 20);
  const code = await new Promise<number | null>((res) => child.on('close', res));
  clearInterval(timer);
  const wallMs = performance.now() - t0;
  if (code !== 0) throw new Error(`read child exited ${code}`);
  const report = JSON.parse(out.trim().split('\n').pop()!) as ChildReport;
  return {
    wallMs,
    cpuMs: childCpuMs() - c0,
    peakRssMb: report.maxRssMb,
    sampledRssMb: sampled / 1024,
    report,
    load: load(),
  };
}

/** Drops the page cache of every file (fadvise DONTNEED through `dd iflag=nocache`); the share still cached after. */
function dropCache(files: string[]): number | null {
  spawnSync('sync');
  for (const f of files) spawnSync('dd', [`if=${f}`, 'iflag=nocache', 'count=0', 'status=none']);
  let cached = 0;
  let total = 0;
  for (const f of files) {
    const r = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES,SIZE', f], {
      encoding: 'utf8',
    });
    if (r.status !== 0) return null;
    const [res, size] = r.stdout.trim().split(/\s+/).map(Number);
    cached += res!;
    total += size!;
  }
  return total > 0 ? cached / total : null;
}

const SIZE_GB = Number(process.env.SIZE_GB ?? 10);
const N = Number(process.env.N ?? 2);
const COLD = process.env.COLD !== '0';
const want = SIZE_GB * GIB;
const REUSE = process.env.REUSE ?? '';
const KEEP = process.env.KEEP === '1' || REUSE !== '';
const base = tmpdir();
const fs = statfsSync(base);
const free = fs.bavail * fs.bsize;
process.stdout.write(
  `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), availableParallelism ${availableParallelism()}\n` +
    `folder: ${SIZE_GB} GiB in ${base} (${(free / GIB).toFixed(0)} GiB free there)\n`,
);
if (!REUSE && free < want * 1.2 + 2 * GIB) {
  process.stdout.write(
    `not run: needs ${((want * 1.2 + 2 * GIB) / GIB).toFixed(0)} GiB free (SIZE_GB=… for less)\n`,
  );
  process.exit(1);
}
const dir = REUSE || mkdtempSync(join(base, 'rlwatch-bulk-'));
const cleanup = (): void => {
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
try {
  const g0 = performance.now();
  const folder: MediaFolder = REUSE
    ? (JSON.parse(readFileSync(`${dir}.json`, 'utf8')) as MediaFolder)
    : writeMediaFolder(dir, { totalBytes: want });
  if (KEEP && !REUSE) writeFileSync(`${dir}.json`, JSON.stringify(folder));
  const mb = folder.bytes / 1e6;
  const share = (n: number): string => `${((100 * n) / folder.bytes).toFixed(0)} %`;
  process.stdout.write(
    `${REUSE ? `reused ${dir}: ` : 'generated '}${folder.files.length} event files in 8 runs, ${mb.toFixed(0)} MB in ${((performance.now() - g0) / 1000).toFixed(0)} s: ` +
      `images ${share(folder.imageBytes)} (${folder.images}, 50–500 KB), histograms ${share(folder.histogramBytes)} ` +
      `(${folder.histograms}, 30–100 buckets), scalars ${share(folder.scalarBytes)} (${folder.scalarPoints} points)\n`,
  );
  const expectRecords = folder.images + folder.histograms + folder.scalarPoints + folder.files.length;

  const line = (what: string, p: Pass): void => {
    const rate = mb / (p.wallMs / 1000);
    const cores = p.cpuMs / p.wallMs;
    const perCore = mb / (p.cpuMs / 1000);
    const ok =
      p.report.scalarPoints === folder.scalarPoints &&
      p.report.records === expectRecords &&
      p.report.errors === 0;
    process.stdout.write(
      `  ${what.padEnd(34)} ${rate.toFixed(0).padStart(5)} MB/s  ${(p.wallMs / 1000).toFixed(1).padStart(5)} s wall, ` +
        `${cores.toFixed(2)} cores → ${perCore.toFixed(0).padStart(4)} MB/s per core (${(perCore / RUSTBOARD_MB_S).toFixed(1)}× RustBoard's ` +
        `${RUSTBOARD_MB_S.toFixed(0)}); peak RSS ${p.peakRssMb.toFixed(0)} MB (sampled ${p.sampledRssMb.toFixed(0)}); load ${p.load}` +
        `${ok ? '' : `  WRONG: ${JSON.stringify(p.report)}, want ${folder.scalarPoints} points, ${expectRecords} records`}\n`,
    );
    if (!ok) process.exitCode = 1;
  };

  process.stdout.write(`\nwarm (page cache holds the files just written; load ${load()}):\n`);
  const inspectPasses: Pass[] = [];
  for (let i = 0; i < N; i++) {
    const p = await childPass(['inspect', dir]);
    inspectPasses.push(p);
    line(`inspect, pass ${i + 1}`, p);
  }
  for (let i = 0; i < N; i++)
    line(`workspace first read, pass ${i + 1}`, await childPass(['workspace', ...folder.files]));

  if (COLD) {
    const left = dropCache(folder.files);
    if (left === null || left > 0.05)
      process.stdout.write(
        `\ncold: not measured (the page cache could not be dropped: ${left === null ? 'no fincore/dd' : `${(left * 100).toFixed(0)} % still cached`})\n`,
      );
    else {
      process.stdout.write(
        `\ncold (page cache dropped with dd iflag=nocache: ${(left * 100).toFixed(1)} % cached):\n`,
      );
      line('inspect', await childPass(['inspect', dir]));
    }
  }

  process.stdout.write(
    `\ntargets: ≥ 500 MB/s, RSS ≤ 1024 MB (inspect, warm, best of ${N}); load at the end ${load()}\n`,
  );
  if (inspectPasses.length > 0) {
    const best = inspectPasses.reduce((a, b) => (a.wallMs <= b.wallMs ? a : b));
    const peak = Math.max(...inspectPasses.map((p) => p.peakRssMb));
    process.stdout.write(
      `figure bulk_read.mb_per_s ${(mb / (best.wallMs / 1000)).toFixed(1)}\n` +
        `figure bulk_read.mb_per_core_s ${(mb / (best.cpuMs / 1000)).toFixed(1)}\n` +
        `figure bulk_read.peak_rss_mb ${peak.toFixed(0)}\n`,
    );
  }
} finally {
  cleanup();
}
