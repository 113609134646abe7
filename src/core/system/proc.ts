// Reads Linux /proc (root injectable for tests): the process list, a process's descriptors, cwd, argv, and its stat (CPU ticks, RSS, parent, start).

import { readFile, readdir, readlink } from 'node:fs/promises';

export interface ScanLimits {
  /** Stop after this many /proc entries: a bound on the cost of one scan on a busy machine. */
  maxProcesses: number;
  /** Look at no more than this many descriptors of one process. */
  maxFdsPerProcess: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxProcesses: 4096, maxFdsPerProcess: 1024 };

/** The numeric entries of /proc, at most `limits.maxProcesses` of them (a bound on one scan's cost). */
export async function listPids(
  procRoot: string,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir(procRoot);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    if (pids.length >= limits.maxProcesses) break;
    pids.push(Number(name));
  }
  return pids;
}

/** The descriptor numbers of a process; null when its fd folder cannot be read (another user's process:
 * the kernel refuses it with EACCES, which is what we want; or a process that is gone). */
export async function listFds(pid: number, procRoot: string): Promise<string[] | null> {
  try {
    return await readdir(`${procRoot}/${pid}/fd`);
  } catch {
    return null;
  }
}

/** Where the descriptors point (resolved absolute paths for files), at most `maxFds` of them. */
export async function readFdTargets(
  pid: number,
  fds: readonly string[],
  procRoot: string,
  maxFds: number,
): Promise<string[]> {
  const targets = await Promise.all(
    fds.slice(0, maxFds).map((fd) => readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((t) => t !== '');
}

/** One open descriptor: where it points, and whether it was opened for writing (null when /proc/PID/fdinfo
 * cannot say: then it may write). */
export interface FdOpening {
  path: string;
  writes: boolean | null;
}

/** O_ACCMODE of the open flags: 0 is read-only (O_RDONLY), 1 write-only, 2 read-write. */
const ACCESS_MODE = 0o3;

/** Whether a descriptor was opened for writing, from its fdinfo `flags:` line (octal); null when unreadable. */
export function fdinfoWrites(fdinfo: string): boolean | null {
  const m = /^flags:\s*([0-7]+)/m.exec(fdinfo);
  return m?.[1] !== undefined ? (parseInt(m[1], 8) & ACCESS_MODE) !== 0 : null;
}

/** Where the descriptors point and whether each was opened for writing, at most `maxFds` of them. */
export async function readFdOpenings(
  pid: number,
  fds: readonly string[],
  procRoot: string,
  maxFds: number,
): Promise<FdOpening[]> {
  const out = await Promise.all(
    fds.slice(0, maxFds).map(async (fd) => {
      const path = await readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '');
      if (path === '') return null;
      const info = await readFile(`${procRoot}/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
      return { path, writes: fdinfoWrites(info) };
    }),
  );
  return out.filter((o): o is FdOpening => o !== null);
}

/** The process's working directory (resolved by the kernel); null when unreadable. */
export async function readCwd(pid: number, procRoot: string): Promise<string | null> {
  return readlink(`${procRoot}/${pid}/cwd`).catch(() => null);
}

/** Most bytes of a command line read: enough for any trainer's arguments, bounded on a hostile one. */
export const MAX_CMDLINE_BYTES = 32 * 1024;

/** argv of a process (NUL-separated in /proc); empty for a kernel thread, a zombie or an unreadable entry. */
export async function readCmdline(pid: number, procRoot: string): Promise<string[]> {
  try {
    const raw = await readFile(`${procRoot}/${pid}/cmdline`);
    const text = raw.subarray(0, MAX_CMDLINE_BYTES).toString('utf8');
    const argv = text.split('\0');
    if (argv.at(-1) === '') argv.pop();
    return argv;
  } catch {
    return [];
  }
}

export interface ProcStats {
  /** utime + stime in clock ticks (USER_HZ, 100 on every mainstream Linux build). */
  cpuTicks: number;
  rssKiB: number | null;
  /** State letter (R, S, D, Z…): a zombie has exited, only its entry is left. */
  state: string;
  ppid: number;
  /** When the process started, in ticks since boot: a pid reused by a new process has another. */
  startTicks: number;
}

export async function readProcStats(pid: number, procRoot: string): Promise<ProcStats | null> {
  try {
    const [stat, status] = await Promise.all([
      readFile(`${procRoot}/${pid}/stat`, 'utf8'),
      readFile(`${procRoot}/${pid}/status`, 'utf8').catch(() => ''),
    ]);
    const fields = parseStat(stat);
    if (fields === null) return null;
    return { ...fields, rssKiB: parseStatusRssKiB(status) };
  } catch {
    return null;
  }
}

/** Fields after the command name, which may itself contain spaces and parentheses: cut at the last ")". */
export function parseStat(stat: string): Omit<ProcStats, 'rssKiB'> | null {
  const close = stat.lastIndexOf(')');
  if (close === -1) return null;
  const fields = stat.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), ppid field 4; utime and stime fields 14 and 15; starttime field 22.
  const num = (i: number): number => Number(fields[i]);
  const utime = num(11);
  const stime = num(12);
  if (!(fields.length > 12 && Number.isFinite(utime) && Number.isFinite(stime))) return null;
  const startTicks = num(19);
  return {
    cpuTicks: utime + stime,
    state: fields[0] ?? '',
    ppid: Number.isFinite(num(1)) ? num(1) : 0,
    startTicks: Number.isFinite(startTicks) ? startTicks : 0,
  };
}

/** utime + stime in clock ticks; null when the line is not a stat line. */
export function parseStatTicks(stat: string): number | null {
  return parseStat(stat)?.cpuTicks ?? null;
}

/** VmRSS from /proc/PID/status, in kB: exact whatever the page size (statm counts pages). */
export function parseStatusRssKiB(status: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s*kB/m.exec(status);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}
