// Benchmarks' summary of a V8 .cpuprofile (node --cpu-prof): self time per function over the profile's last seconds.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  ms: number;
}

/** The .cpuprofile files in `dir` (node writes one per thread on exit), the largest first. */
export function profiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
}

/**
 * Self time per function (name and file:line) over the samples of the profile's last `lastS` seconds before
 * `stopS` seconds from its end (the shutdown), the busiest first; `(idle)` is left out of the list and
 * returned apart, with the window's busy total.
 */
export function selfTimes(
  path: string,
  lastS: number,
  stopS = 0,
): { top: SelfTime[]; busyMs: number; idleMs: number } {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const frames = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  // Each sample's time stamp (the deltas are µs since the previous one); a sample lasts until the next.
  const stamps: number[] = [];
  let t = p.endTime;
  for (let i = p.samples.length - 1; i >= 0; i--) {
    stamps[i] = t;
    t -= p.timeDeltas[i]!;
  }
  const to = p.endTime - stopS * 1e6;
  const from = to - lastS * 1e6;
  const byFn = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (let i = 0; i < p.samples.length - 1; i++) {
    if (stamps[i]! < from || stamps[i]! > to) continue;
    const ms = (stamps[i + 1]! - stamps[i]!) / 1000;
    const f = frames.get(p.samples[i]!)!;
    if (f.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const where = f.url ? ` ${basename(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}${where}`;
    byFn.set(key, (byFn.get(key) ?? 0) + ms);
  }
  const top = [...byFn].map(([fn, ms]) => ({ fn, ms })).sort((a, b) => b.ms - a.ms);
  return { top, busyMs, idleMs };
}
