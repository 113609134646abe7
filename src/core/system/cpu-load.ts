// Whole-machine CPU % on Linux from /proc/stat deltas, read asynchronously.
//
// Why not systeminformation.currentLoad() here: on Linux it runs execSync('cat /proc/stat | grep cpu') on
// every call (systeminformation 5.27, lib/cpu.js getLoad) — a shell, cat and grep each second, and the
// event loop blocked while they run. It is still used on macOS and Windows, where it only reads os.cpus().

import { readFile } from 'node:fs/promises';

interface Ticks {
  busy: number;
  total: number;
}

/** Parses the aggregate "cpu " line: user nice system idle iowait irq softirq steal (guest is inside user). */
export function parseProcStatCpu(text: string): Ticks | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (v.length < 4 || v.some((n) => !Number.isFinite(n))) return null;
  const total = v.reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

export class ProcStatCpuLoad {
  private last: Ticks | null = null;

  constructor(private readonly procRoot = '/proc') {}

  /** The busy share since the previous call; NaN (→ null in the snapshot) on the first call. */
  async currentLoad(): Promise<{ currentLoad: number }> {
    const now = parseProcStatCpu(await readFile(`${this.procRoot}/stat`, 'utf8'));
    const prev = this.last;
    this.last = now;
    if (!now || !prev || now.total <= prev.total) return { currentLoad: Number.NaN };
    return { currentLoad: ((now.busy - prev.busy) / (now.total - prev.total)) * 100 };
  }
}
