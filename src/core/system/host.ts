// CPU and memory of the machine: systeminformation's mem() (and currentLoad() off Linux); never graphics().

import { ProcStatCpuLoad } from './cpu-load';

export interface HostSample {
  cpuPct: number | null;
  memPct: number | null;
  memUsedMiB: number | null;
  memTotalMiB: number | null;
}

/** The two systeminformation functions we use, injected so tests need no real machine. */
export interface HostInfoFns {
  currentLoad(): Promise<{ currentLoad: number }>;
  mem(): Promise<{ total: number; active: number; available?: number }>;
}

const BYTES_PER_MIB = 1024 * 1024;

/** Each figure fails alone: a rejected mem() leaves the CPU figure intact. */
export async function readHost(fns: HostInfoFns): Promise<HostSample> {
  const [load, mem] = await Promise.allSettled([fns.currentLoad(), fns.mem()]);
  const cpu = load.status === 'fulfilled' ? finite(load.value.currentLoad) : null;
  let memPct: number | null = null;
  let memUsedMiB: number | null = null;
  let memTotalMiB: number | null = null;
  if (mem.status === 'fulfilled') {
    const total = finite(mem.value.total);
    // "active" = total − available: what programs hold, without the page cache that "used" includes on Linux.
    const used = finite(mem.value.active);
    if (total !== null && total > 0) {
      memTotalMiB = total / BYTES_PER_MIB;
      if (used !== null && used >= 0) {
        memUsedMiB = used / BYTES_PER_MIB;
        memPct = (used / total) * 100;
      }
    }
  }
  return { cpuPct: cpu, memPct, memUsedMiB, memTotalMiB };
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Loads systeminformation lazily (a large module only the sampler needs). On Linux the CPU figure comes
 * from our own async /proc/stat reader instead: see cpu-load.ts for why. */
export async function systeminformationFns(
  platform: NodeJS.Platform = process.platform,
  procRoot = '/proc',
): Promise<HostInfoFns> {
  const si = await import('systeminformation');
  if (platform === 'linux') {
    const cpu = new ProcStatCpuLoad(procRoot);
    return { currentLoad: () => cpu.currentLoad(), mem: () => si.mem() };
  }
  return { currentLoad: () => si.currentLoad(), mem: () => si.mem() };
}
