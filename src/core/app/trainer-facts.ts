// What this machine knows of each run's trainer from its system samples (RunInfo.trainer): alive with its processes, or exited.

import type { RunTrainer } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';

/** A trainer as the run list compares it: its state and pids (its CPU and memory move every sample: not here). */
export const trainerKey = (t: RunTrainer | null | undefined): string =>
  t ? `${t.state}:${t.processes.map((p) => `${p.pid}${p.onGpu ? 'g' : ''}`).join(',')}` : '';

/**
 * Each run's trainer as the samples found it: `alive` while a process is attributed to it, `exited` once the sampler
 * saw every known one gone (kept until a process is found again), unknown (none) otherwise. A remote run's comes from
 * its agent with its run list: another machine's processes are never in this one's process table.
 */
export class TrainerFacts {
  private readonly byRun = new Map<string, RunTrainer>();

  /** Takes a sample; the runs whose trainer changed (state or pids). */
  note(snap: SystemSnapshot): Set<string> {
    const changed = new Set<string>();
    const set = (run: string, next: RunTrainer | null): void => {
      if (trainerKey(this.byRun.get(run)) !== trainerKey(next)) changed.add(run);
      if (next) this.byRun.set(run, next);
      else this.byRun.delete(run);
    };
    const alive = new Set<string>();
    for (const p of snap.trainingProcesses ?? []) {
      alive.add(p.run);
      const processes = p.processes.map(({ pid, evidence, onGpu }) => ({ pid, evidence, onGpu }));
      set(p.run, { state: 'alive', processes, exitedAt: null });
    }
    const exited = new Set<string>();
    for (const e of snap.processExits ?? []) {
      if (alive.has(e.run)) continue;
      exited.add(e.run);
      const was = this.byRun.get(e.run);
      set(e.run, { state: 'exited', processes: was?.processes ?? [], exitedAt: e.at });
    }
    // No longer attributed without an exit seen (its run left the list): unknown again.
    for (const [run, t] of this.byRun)
      if (t.state === 'alive' && !alive.has(run) && !exited.has(run)) set(run, null);
    return changed;
  }

  of(run: string): RunTrainer | null {
    return this.byRun.get(run) ?? null;
  }

  clear(): void {
    this.byRun.clear();
  }
}
