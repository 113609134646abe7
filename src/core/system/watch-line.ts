// Maps a SystemSnapshot to the `"type": "system"` NDJSON line of `rlwatch watch --json` (command-line contract).

import type { SystemSnapshot, SystemWatchLine } from '../../shared/system-types';

export function toSystemWatchLine(s: SystemSnapshot, emittedAt: number): SystemWatchLine {
  return {
    t: emittedAt,
    type: 'system',
    cpuPct: s.cpuPct,
    memPct: s.memPct,
    gpusStale: s.gpusStale === true,
    gpus: (s.gpus ?? []).map((g) => ({
      index: g.index,
      name: g.name,
      utilizationPct: g.utilizationGpuPct,
      memoryUsedMiB: g.memoryUsedMiB,
      memoryTotalMiB: g.memoryTotalMiB,
      temperatureC: g.temperatureC,
      powerDrawW: g.powerDrawW,
    })),
  };
}
