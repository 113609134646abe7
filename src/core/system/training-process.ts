// Keeps each run's training processes (attributed on evidence), reports their CPU % and RSS, and each run whose known processes all exited.

import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GpuProcess, ProcessEvidence, ProcessExit, TrainingProcess } from '../../shared/system-types';
import { DEFAULT_SCAN_LIMITS, readProcStats } from './proc';
import type { ProcStats, ScanLimits } from './proc';
import { attributeProcesses } from './run-attribution';
import type { Attribution, RunFolder } from './run-attribution';
import type { PackageNameReader } from './own-process';

/** A run of the open folder: its name (RunInfo.run) and its absolute folder. */
export interface RunDir {
  run: string;
  dir: string;
}

/** What one sample says: each run's processes (runs without evidence have none), and the exits seen now. */
export interface TrainingSample {
  processes: TrainingProcess[];
  exited: ProcessExit[];
}

export interface TrainingProcessOptions {
  procRoot?: string;
  now: () => number;
  /** Never attributed: our own pid and our parent by default (children of our pid are skipped as well). */
  excludePids?: Iterable<number>;
  /** Our pid, whose children (nvidia-smi, the app's own helpers) are never a trainer. */
  selfPid?: number;
  /** How often to look again while some run has no known process. A scan reads every fd link of every
   * process of this user (~0.2 ms per process measured), so it is rare; a vanished process rescans at once. */
  rescanMs?: number;
  /** How often to look again (for more processes) once every run has one. */
  rescanFoundMs?: number;
  limits?: ScanLimits;
  /** /proc scanning is Linux-only; elsewhere nothing can be attributed and every run is "not found". */
  hasProc?: boolean;
  /** USER_HZ; fixed at 100 by the Linux ABI, settable for tests. */
  ticksPerSecond?: number;
  packageName?: PackageNameReader;
}

interface Known {
  evidence: ProcessEvidence;
  startTicks: number;
}

const USER_HZ = 100;
const KIB_PER_MIB = 1024;

export class TrainingProcessTracker {
  private runs: RunDir[] = [];
  /** The list `setRuns` was last given, as given: the same list again (every run list of 10k runs) changes nothing. */
  private given: readonly RunDir[] = [];
  /** Resolved folders of the runs (the kernel's /proc links hold resolved paths). */
  private readonly resolved = new Map<string, string>();
  /** run → pid → how it was tied to the run. Kept while the process lives (a file may be open only now and then). */
  private readonly known = new Map<string, Map<number, Known>>();
  private readonly lastSeenAt = new Map<string, number>();
  private nextScanAt = 0;
  private last: { t: number; ticks: Map<number, number> } | null = null;
  private readonly procRoot: string;
  private readonly exclude: Set<number>;
  private readonly selfPid: number;
  private readonly rescanMs: number;
  private readonly rescanFoundMs: number;
  private readonly limits: ScanLimits;
  private readonly hasProc: boolean;
  private readonly hz: number;

  constructor(private readonly opts: TrainingProcessOptions) {
    this.procRoot = opts.procRoot ?? '/proc';
    this.exclude = new Set(opts.excludePids ?? [process.pid, process.ppid]);
    this.selfPid = opts.selfPid ?? process.pid;
    this.rescanMs = opts.rescanMs ?? 30_000;
    this.rescanFoundMs = opts.rescanFoundMs ?? 120_000;
    this.limits = opts.limits ?? DEFAULT_SCAN_LIMITS;
    this.hasProc = opts.hasProc ?? process.platform === 'linux';
    this.hz = opts.ticksPerSecond ?? USER_HZ;
  }

  /** The runs of the open folder (empty: none open). A new or moved run is looked for on the next sample. */
  setRuns(runs: readonly RunDir[]): void {
    const was = this.given;
    if (runs.length === was.length && runs.every((r, i) => r.run === was[i]!.run && r.dir === was[i]!.dir))
      return;
    this.given = runs.map((r) => ({ run: r.run, dir: r.dir }));
    const next = runs.map((r) => ({ run: r.run, dir: resolve(r.dir) }));
    // Another name for the same folders is the same list.
    if (
      next.length === this.runs.length &&
      next.every((r, i) => r.run === this.runs[i]!.run && r.dir === this.runs[i]!.dir)
    )
      return;
    const names = new Set(next.map((r) => r.run));
    for (const run of [...this.known.keys()]) if (!names.has(run)) this.forget(run);
    const dirs = new Set(next.map((r) => r.dir));
    for (const dir of [...this.resolved.keys()]) if (!dirs.has(dir)) this.resolved.delete(dir);
    this.runs = next;
    this.nextScanAt = 0;
  }

  /** Each run's processes with their footprint, and the runs whose known processes are all gone since the
   * last sample. `gpuProcesses` only marks which attributed processes are on a GPU: it is no evidence. */
  async sample(gpuProcesses: readonly GpuProcess[]): Promise<TrainingSample> {
    const now = this.opts.now();
    if (!this.hasProc) return { processes: [], exited: [] };
    if (this.runs.length > 0 && now >= this.nextScanAt) await this.scan();
    const pids = [...new Set([...this.known.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
    const stats = new Map<number, ProcStats>();
    await Promise.all(
      pids.map(async (pid) => {
        const s = await readProcStats(pid, this.procRoot);
        if (s) stats.set(pid, s);
      }),
    );
    const gpuPids = new Set(gpuProcesses.filter((p) => p.type !== 'G').map((p) => p.pid));
    const exited: ProcessExit[] = [];
    const processes: TrainingProcess[] = [];
    for (const [run, members] of this.known) {
      const gone = [...members].filter(([pid, k]) => !isAlive(stats.get(pid), k)).map(([pid]) => pid);
      if (gone.length === 0) {
        this.lastSeenAt.set(run, now);
        processes.push(this.measure(run, members, stats, gpuPids, now));
        continue;
      }
      // A process gone: look again on the next sample (a restart, another worker) instead of waiting.
      this.nextScanAt = 0;
      if (gone.length < members.size) {
        for (const pid of gone) members.delete(pid);
        this.lastSeenAt.set(run, now);
        processes.push(this.measure(run, members, stats, gpuPids, now));
        continue;
      }
      exited.push({
        run,
        pids: [...members.keys()].sort((a, b) => a - b),
        at: now,
        lastSeenAt: this.lastSeenAt.get(run) ?? now,
      });
      this.forget(run);
    }
    const ticks = new Map<number, number>();
    for (const [pid, s] of stats) ticks.set(pid, s.cpuTicks);
    this.last = { t: now, ticks };
    const byRun = (x: { run: string }, y: { run: string }): number =>
      x.run < y.run ? -1 : x.run > y.run ? 1 : 0;
    processes.sort(byRun);
    exited.sort(byRun);
    return { processes, exited };
  }

  private forget(run: string): void {
    this.known.delete(run);
    this.lastSeenAt.delete(run);
  }

  private async scan(): Promise<void> {
    const folders: RunFolder[] = await Promise.all(
      this.runs.map(async (r) => {
        let real = this.resolved.get(r.dir);
        if (real === undefined) {
          real = await realpath(r.dir).catch(() => r.dir);
          this.resolved.set(r.dir, real);
        }
        return { run: r.run, dirs: real === r.dir ? [r.dir] : [r.dir, real] };
      }),
    );
    const found: Attribution[] = await attributeProcesses(folders, {
      procRoot: this.procRoot,
      exclude: this.exclude,
      selfPid: this.selfPid,
      limits: this.limits,
      packageName: this.opts.packageName,
    });
    const names = new Set(this.runs.map((r) => r.run));
    for (const a of found) {
      if (!names.has(a.run)) continue;
      let members = this.known.get(a.run);
      if (!members) this.known.set(a.run, (members = new Map()));
      members.set(a.pid, { evidence: a.evidence, startTicks: a.startTicks });
    }
    const everyRunKnown = this.runs.every((r) => this.known.has(r.run));
    this.nextScanAt = this.opts.now() + (everyRunKnown ? this.rescanFoundMs : this.rescanMs);
  }

  private measure(
    run: string,
    members: Map<number, Known>,
    stats: Map<number, ProcStats>,
    gpuPids: ReadonlySet<number>,
    now: number,
  ): TrainingProcess {
    const pids = [...members.keys()].sort((a, b) => a - b);
    let rssKiB = 0;
    let anyRss = false;
    let delta = 0;
    let common = 0;
    const prev = this.last;
    for (const pid of pids) {
      const s = stats.get(pid);
      if (!s) continue;
      if (s.rssKiB !== null) {
        rssKiB += s.rssKiB;
        anyRss = true;
      }
      const before = prev?.ticks.get(pid);
      if (before === undefined || s.cpuTicks < before) continue;
      delta += s.cpuTicks - before;
      common += 1;
    }
    const cpuPct =
      prev && now > prev.t && common > 0 ? (delta / this.hz / ((now - prev.t) / 1000)) * 100 : null;
    return {
      run,
      processes: pids.map((pid) => ({ pid, evidence: members.get(pid)!.evidence, onGpu: gpuPids.has(pid) })),
      cpuPct,
      rssMiB: anyRss ? rssKiB / KIB_PER_MIB : null,
    };
  }
}

/** Alive: its stat is readable, it is not a zombie, and it is the process we saw (not a reused pid). */
function isAlive(s: ProcStats | undefined, k: Known): boolean {
  return s !== undefined && s.state !== 'Z' && s.state !== 'X' && s.startTicks === k.startTicks;
}
