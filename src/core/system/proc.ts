// Reads Linux /proc (root injectable for tests): which processes hold files open under a folder, and a process's CPU ticks and RSS.

import { readFile, readdir, readlink } from 'node:fs/promises';
import { sep } from 'node:path';

export interface ScanLimits {
  /** Stop after this many /proc entries: a bound on the cost of one scan on a busy machine. */
  maxProcesses: number;
  /** Look at no more than this many descriptors of one process. */
  maxFdsPerProcess: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxProcesses: 4096, maxFdsPerProcess: 1024 };

/** Pids whose open descriptors point at a file under `dir` (which must be an absolute, resolved path).
 * Processes of other users are skipped by the kernel (EACCES on their fd folder), which is what we want. */
export async function findPidsWithFilesUnder(
  dir: string,
  procRoot: string,
  exclude: ReadonlySet<number>,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<number[]> {
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  let entries: string[];
  try {
    entries = await readdir(procRoot);
  } catch {
    return [];
  }
  const found: number[] = [];
  let scanned = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    if (++scanned > limits.maxProcesses) break;
    const pid = Number(name);
    if (exclude.has(pid)) continue;
    if (await holdsFileUnder(`${procRoot}/${name}/fd`, prefix, dir, limits.maxFdsPerProcess)) found.push(pid);
  }
  return found;
}

async function holdsFileUnder(fdDir: string, prefix: string, dir: string, maxFds: number): Promise<boolean> {
  let fds: string[];
  try {
    fds = await readdir(fdDir);
  } catch {
    return false;
  }
  const targets = await Promise.all(
    fds.slice(0, maxFds).map((fd) => readlink(`${fdDir}/${fd}`).catch(() => '')),
  );
  return targets.some((t) => t === dir || t.startsWith(prefix));
}

export interface ProcStats {
  /** utime + stime in clock ticks (USER_HZ, 100 on every mainstream Linux build). */
  cpuTicks: number;
  rssKiB: number | null;
}

export async function readProcStats(pid: number, procRoot: string): Promise<ProcStats | null> {
  try {
    const [stat, status] = await Promise.all([
      readFile(`${procRoot}/${pid}/stat`, 'utf8'),
      readFile(`${procRoot}/${pid}/status`, 'utf8').catch(() => ''),
    ]);
    const cpuTicks = parseStatTicks(stat);
    if (cpuTicks === null) return null;
    return { cpuTicks, rssKiB: parseStatusRssKiB(status) };
  } catch {
    return null;
  }
}

/** Fields after the command name, which may itself contain spaces and parentheses: cut at the last ")". */
export function parseStatTicks(stat: string): number | null {
  const close = stat.lastIndexOf(')');
  if (close === -1) return null;
  const fields = stat.slice(close + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) && fields.length > 12 ? utime + stime : null;
}

/** VmRSS from /proc/PID/status, in kB: exact whatever the page size (statm counts pages). */
export function parseStatusRssKiB(status: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s*kB/m.exec(status);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}
