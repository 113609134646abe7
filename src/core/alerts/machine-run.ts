// The machine pseudo-run: live system samples as health-engine points of "(this machine)", so memory and GPU rules see them.

import { groupOf, TRAINING_GROUPS } from '../../shared/catalog';
import type { SeriesDelta } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import type { AlertTransition, HealthEngine } from '../health';

/** The run name live-sample alerts carry: not a folder, so it never collides with a run's relative path. */
export const MACHINE_RUN = '(this machine)';

export interface MachinePoint {
  tag: string;
  value: number;
}

/** Tags chosen so the catalog classifies them (memory_pct, gpu_util, gpu_memory_pct). Missing fields give no point,
 * nor do stale GPU figures (the last read's, repeated while nvidia-smi is late: not a new observation). */
export function machinePoints(s: SystemSnapshot): MachinePoint[] {
  const out: MachinePoint[] = [];
  if (s.memPct !== null && Number.isFinite(s.memPct))
    out.push({ tag: 'System/Memory_Percent', value: s.memPct });
  for (const g of s.gpusStale ? [] : (s.gpus ?? [])) {
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
export const isTrainingTag = (tag: string): boolean => TRAINING_GROUPS.has(groupOf(tag));

/** Feeds one engine's machine pseudo-run: each snapshot is one step; training deltas mark the GPU as wanted. */
export class MachineRun {
  private step = 0;
  private started = false;

  constructor(
    private readonly engine: HealthEngine,
    /** Called once, before the first sample: the service configures the pseudo-run like any run. */
    private readonly onFirstSample: () => void,
  ) {}

  /** A training run's points arrived: rules that only matter while training (an idle GPU) apply now. */
  noteDelta(d: SeriesDelta): void {
    if (d.steps.length > 0 && isTrainingTag(d.tag))
      this.engine.noteTraining(MACHINE_RUN, d.wallTimes[d.wallTimes.length - 1]!);
  }

  feed(snap: SystemSnapshot): AlertTransition[] {
    if (!this.started) {
      this.started = true;
      this.onFirstSample();
      // Samples keep arriving whether or not anyone trains: the pseudo-run is never "stalled".
      this.engine.setFinished(MACHINE_RUN);
    }
    const step = this.step++;
    const wall = snap.t / 1000;
    const out: AlertTransition[] = [];
    for (const p of machinePoints(snap))
      out.push(...this.engine.feedBatch(MACHINE_RUN, p.tag, [step], [wall], [p.value]));
    return out;
  }

  /** The folder closed: the engine forgot the pseudo-run, the next sample configures it again. */
  forget(): void {
    this.started = false;
  }
}
