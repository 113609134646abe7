// The system panel's "Training process" (pure): a local run's from this machine's sample, a remote run's from its agent.

import type { RunInfo } from '../../../shared/domain';
import type { RunProcess, SystemSnapshot } from '../../../shared/system-types';

export interface TrainerView {
  /** `alive`: processes found; `exited`: every one known was seen gone; `not-found`: no process has evidence. */
  state: 'alive' | 'exited' | 'not-found';
  /** The agent (its host label) that reports it, null for this machine. */
  reportedBy: string | null;
  processes: RunProcess[];
  /** This machine's live figures only (a remote run's come from its agent's run list, without them). */
  cpuPct: number | null;
  rssMiB: number | null;
  /** ms since epoch of the sample that found them gone. */
  exitedAt: number | null;
}

/** What the panel shows for `run`: a remote run's process is its agent's to report (this machine's process table
 * never holds another machine's trainer); a local run's from the live sample, else as last seen gone. */
export function trainerView(run: RunInfo | null, snapshot: SystemSnapshot | null): TrainerView | null {
  if (run === null) return null;
  const reportedBy = run.host ?? null;
  const live = reportedBy === null ? snapshot?.trainingProcesses.find((p) => p.run === run.run) : undefined;
  if (live)
    return {
      state: 'alive',
      reportedBy,
      processes: live.processes,
      cpuPct: live.cpuPct,
      rssMiB: live.rssMiB,
      exitedAt: null,
    };
  const t = run.trainer ?? null;
  // This machine's own trainer seen alive is only as fresh as its live sample (above).
  if (t === null || (reportedBy === null && t.state === 'alive'))
    return { state: 'not-found', reportedBy, processes: [], cpuPct: null, rssMiB: null, exitedAt: null };
  return {
    state: t.state,
    reportedBy,
    processes: t.processes,
    cpuPct: null,
    rssMiB: null,
    exitedAt: t.exitedAt,
  };
}
