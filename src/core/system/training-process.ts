// Finds the training job (processes holding files under the run folder, else GPU compute processes) and reports its CPU % and RSS.

import { realpath } from 'node:fs/promises';
import type { GpuProcess, TrainingProcess } from '../../shared/system-types';
import { DEFAULT_SCAN_LIMITS, findPidsWithFilesUnder, readProcStats } from './proc';
import type { ScanLimits } from './proc';

export interface TrainingProcessOptions {
  procRoot?: string;
  now: () => number;
  /** Our own pid at least: rlwatch itself holds the run folder's files open while tailing them. */
  excludePids?: Iterable<number>;
  /** How often to look for writers while none is known. A scan reads every fd link of every process
   * (~0.2 ms per process measured), so it is rare; a vanished writer triggers a rescan at once. */
  rescanMs?: number;
  /** How often to look again (for more writers) once one is known. */
  rescanFoundMs?: number;
  limits?: ScanLimits;
  /** /proc scanning is Linux-only; elsewhere only the GPU list is used and CPU/RSS stay null. */
  hasProc?: boolean;
  /** USER_HZ; fixed at 100 by the Linux ABI, settable for tests. */
  ticksPerSecond?: number;
}

const USER_HZ = 100;
const KIB_PER_MIB = 1024;

export class TrainingProcessTracker {
  private runFolder: string | null = null;
  private folderPids: number[] = [];
  private nextScanAt = 0;
  private last: { t: number; ticks: Map<number, number> } | null = null;
  private readonly procRoot: string;
  private readonly exclude: Set<number>;
  private readonly rescanMs: number;
  private readonly rescanFoundMs: number;
  private readonly limits: ScanLimits;
  private readonly hasProc: boolean;
  private readonly hz: number;

  constructor(private readonly opts: TrainingProcessOptions) {
    this.procRoot = opts.procRoot ?? '/proc';
    this.exclude = new Set(opts.excludePids ?? [process.pid]);
    this.rescanMs = opts.rescanMs ?? 30_000;
    this.rescanFoundMs = opts.rescanFoundMs ?? 120_000;
    this.limits = opts.limits ?? DEFAULT_SCAN_LIMITS;
    this.hasProc = opts.hasProc ?? process.platform === 'linux';
    this.hz = opts.ticksPerSecond ?? USER_HZ;
  }

  /** The opened folder (all its runs lie below it); null stops the scan. */
  setRunFolder(dir: string | null): void {
    if (dir === this.runFolder) return;
    this.runFolder = dir;
    this.folderPids = [];
    this.nextScanAt = 0;
    this.last = null;
  }

  /** The run-folder writers when there are any (on a shared GPU box the GPU list holds other people's jobs);
   * else the compute processes on the GPUs (graphics-only "G" entries are the desktop, not training). */
  async sample(gpuProcesses: readonly GpuProcess[]): Promise<TrainingProcess | null> {
    const now = this.opts.now();
    const gpuPids = [...new Set(gpuProcesses.filter((p) => p.type !== 'G').map((p) => p.pid))].filter(
      (pid) => !this.exclude.has(pid),
    );
    const folder = this.runFolder;
    if (this.hasProc && folder && now >= this.nextScanAt) {
      // /proc links hold resolved absolute paths, so compare against the resolved folder.
      const dir = await realpath(folder).catch(() => folder);
      this.folderPids = await findPidsWithFilesUnder(dir, this.procRoot, this.exclude, this.limits);
      this.nextScanAt = now + (this.folderPids.length > 0 ? this.rescanFoundMs : this.rescanMs);
    }
    const fromFolder = this.folderPids.length > 0;
    const pids = (fromFolder ? this.folderPids : gpuPids).slice().sort((a, b) => a - b);
    if (pids.length === 0) {
      this.last = null;
      return null;
    }
    const foundVia = !fromFolder ? 'gpu' : pids.some((p) => gpuPids.includes(p)) ? 'both' : 'run-folder';
    if (!this.hasProc) return { pids, foundVia, cpuPct: null, rssMiB: null };
    return this.measure(pids, foundVia, now);
  }

  private async measure(
    pids: number[],
    foundVia: TrainingProcess['foundVia'],
    now: number,
  ): Promise<TrainingProcess> {
    const stats = await Promise.all(pids.map((pid) => readProcStats(pid, this.procRoot)));
    const ticks = new Map<number, number>();
    let rssKiB = 0;
    let anyRss = false;
    const alive: number[] = [];
    stats.forEach((s, i) => {
      const pid = pids[i];
      if (!s || pid === undefined) return;
      alive.push(pid);
      ticks.set(pid, s.cpuTicks);
      if (s.rssKiB !== null) {
        rssKiB += s.rssKiB;
        anyRss = true;
      }
    });
    // A writer that exited: look again on the next sample instead of waiting for the rescan period.
    if (alive.length < pids.length && this.folderPids.length > 0) this.nextScanAt = 0;
    let cpuPct: number | null = null;
    const prev = this.last;
    if (prev && now > prev.t) {
      let delta = 0;
      let common = 0;
      for (const [pid, t] of ticks) {
        const before = prev.ticks.get(pid);
        if (before === undefined || t < before) continue;
        delta += t - before;
        common += 1;
      }
      if (common > 0) cpuPct = (delta / this.hz / ((now - prev.t) / 1000)) * 100;
    }
    this.last = { t: now, ticks };
    if (alive.length === 0) return { pids, foundVia, cpuPct: null, rssMiB: null };
    return { pids: alive, foundVia, cpuPct, rssMiB: anyRss ? rssKiB / KIB_PER_MIB : null };
  }
}
