// Parses `ioreg -r -d 1 -w 0 -c IOAccelerator` text: the GPU's PerformanceStatistics, readable without sudo.

import type { AppleGpu } from '../../shared/system-types';

export const IOREG_ARGS: readonly string[] = ['-r', '-d', '1', '-w', '0', '-c', 'IOAccelerator'];

const BYTES_PER_MIB = 1024 * 1024;

/** One IOAccelerator entry's numeric statistics plus its model name. */
export interface IoregAccelerator {
  model: string | null;
  stats: Map<string, number>;
}

/** Every accelerator listed (an Intel Mac can list an integrated and a discrete GPU). Unknown keys are kept,
 * non-numeric values skipped: Apple changes this dictionary between macOS releases without notice. */
export function parseIoregAccelerators(text: string): IoregAccelerator[] {
  const entries = text.split(/^\s*\+-o /m).slice(text.trimStart().startsWith('+-o') ? 1 : 0);
  const out: IoregAccelerator[] = [];
  for (const entry of entries.length > 0 ? entries : [text]) {
    const stats = performanceStatistics(entry);
    if (!stats) continue;
    const model = /"model"\s*=\s*(?:"([^"]*)"|<"([^"]*)">)/.exec(entry);
    out.push({ model: (model?.[1] ?? model?.[2])?.trim() || null, stats });
  }
  return out;
}

/** The first accelerator that reports a utilisation figure, as an AppleGpu; null when none does. */
export function parseIoregGpu(text: string): AppleGpu | null {
  const accelerators = parseIoregAccelerators(text);
  const acc = accelerators.find((a) => utilization(a.stats) !== null) ?? accelerators[0];
  if (!acc) return null;
  const s = acc.stats;
  return {
    source: 'ioreg',
    name: acc.model,
    utilizationPct: utilization(s),
    rendererUtilizationPct: percent(s.get('Renderer Utilization %')),
    tilerUtilizationPct: percent(s.get('Tiler Utilization %')),
    inUseMemoryMiB: mib(s.get('In use system memory')),
    allocatedMemoryMiB: mib(s.get('Alloc system memory')),
    powerW: null,
    temperatureC: null,
    frequencyMHz: null,
  };
}

function utilization(s: Map<string, number>): number | null {
  // Apple silicon says "Device Utilization %"; older AMD/Intel drivers on Intel Macs said "GPU Activity(%)".
  return percent(s.get('Device Utilization %') ?? s.get('GPU Activity(%)'));
}

function performanceStatistics(entry: string): Map<string, number> | null {
  const start = /"PerformanceStatistics"\s*=\s*\{/.exec(entry);
  if (!start) return null;
  const bodyStart = start.index + start[0].length;
  const end = entry.indexOf('}', bodyStart);
  // A truncated dump: read what is there rather than nothing.
  const body = entry.slice(bodyStart, end === -1 ? undefined : end);
  const stats = new Map<string, number>();
  for (const m of body.matchAll(/"([^"]+)"\s*=\s*(-?\d+(?:\.\d+)?)(?=\s*[,}]|\s*$)/g)) {
    const key = m[1];
    const value = Number(m[2]);
    if (key !== undefined && Number.isFinite(value)) stats.set(key, value);
  }
  return stats;
}

function percent(v: number | undefined): number | null {
  return v !== undefined && v >= 0 && v <= 100 ? v : null;
}

function mib(bytes: number | undefined): number | null {
  return bytes !== undefined && bytes >= 0 ? bytes / BYTES_PER_MIB : null;
}
