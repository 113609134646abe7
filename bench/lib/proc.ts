// Benchmarks' view of processes from /proc (Linux): memory of one process, CPU time and RSS of a process tree.

import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS and VmHWM (peak) of a process, in kB, from /proc/PID/status. */
export function procMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on every Linux this runs on). */
const TICKS_PER_S = 100;
const PAGE_KB = 4;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in seconds: its own CPU and that of its children it has reaped. */
  cpuS: number;
  rssKb: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name (field 2) is in parentheses and may hold spaces: the fields after it start at the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid, ppid: Number(f[1]), cpuS: ticks / TICKS_PER_S, rssKb: Number(f[21]) * PAGE_KB };
  } catch {
    return null; // exited meanwhile
  }
}

/** Every live process, by pid. */
function allProcs(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) out.set(s.pid, s);
  }
  return out;
}

/** The pids of `root` and all its live descendants. */
export function descendants(root: number): number[] {
  const procs = allProcs();
  const children = new Map<number, number[]>();
  for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out: number[] = [];
  const todo = procs.has(root) ? [root] : [];
  while (todo.length) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** A process's command line, as its arguments. */
export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

export interface TreeUsage {
  /** CPU seconds of the processes and of every child they ever spawned (live ones and reaped ones). */
  cpuS: number;
  /** RSS of the live processes, summed (kB). */
  rssKb: number;
  count: number;
}

/**
 * CPU seconds and RSS of a set of processes and their descendants: each live process's own and reaped
 * children's times, so a helper spawned and reaped between two readings (nvidia-smi, ps) is counted once.
 */
export function treeUsage(roots: readonly number[]): TreeUsage {
  const pids = new Set(roots.flatMap((r) => descendants(r)));
  let cpuS = 0;
  let rssKb = 0;
  for (const pid of pids) {
    const s = readStat(pid);
    if (!s) continue;
    cpuS += s.cpuS;
    rssKb += s.rssKb;
  }
  return { cpuS, rssKb, count: pids.size };
}
