// Live system samples as health-engine points of one pseudo-run, so memory-high, GPU-memory and idle-GPU rules see them.

import { groupOf } from '../../shared/catalog';
import type { SystemSnapshot } from '../../shared/system-types';

/** The run name live-sample alerts carry: not a folder, so it never collides with a run's relative path. */
export const MACHINE_RUN = '(this machine)';

export interface MachinePoint {
  tag: string;
  value: number;
}

/** Tags chosen so the catalog classifies them (memory_pct, gpu_util, gpu_memory_pct). Missing fields give no point. */
export function machinePoints(s: SystemSnapshot): MachinePoint[] {
  const out: MachinePoint[] = [];
  if (s.memPct !== null && Number.isFinite(s.memPct))
    out.push({ tag: 'System/Memory_Percent', value: s.memPct });
  for (const g of s.gpus ?? []) {
    if (g.utilizationGpuPct !== null)
      out.push({ tag: `System/GPU_Utilization/gpu${g.index}`, value: g.utilizationGpuPct });
    if (g.memoryUsedMiB !== null && g.memoryTotalMiB !== null && g.memoryTotalMiB > 0)
      out.push({
        tag: `System/GPU_Memory_Percent/gpu${g.index}`,
        value: (100 * g.memoryUsedMiB) / g.memoryTotalMiB,
      });
  }
  return out;
}

/** Whether a tag's points mean the trainer is training (an idle GPU only matters then). */
export const isTrainingTag = (tag: string): boolean => {
  const g = groupOf(tag);
  return g === 'Reward' || g === 'Loss' || g === 'Policy';
};
