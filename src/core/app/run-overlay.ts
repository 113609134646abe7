// What the app adds to a workspace's RunInfo (alert overlay, its trainer, job identity) and whether it moved since the last push.

import type { RunInfo, RunTrainer } from '../../shared/domain';
import type { AlertOverlay } from '../alerts/alert-service';
import { trainerKey } from './trainer-facts';

/** A node's place in a job, as its agent was told. */
export interface JobIdentity {
  job: string;
  node: string;
}

const keyOf = (r: RunInfo): string =>
  `${r.worstAlert}|${r.stalled}|${r.stop?.state ?? ''}|${trainerKey(r.trainer)}`;

/** A run's overlay: its alerts' and what is known of its trainer. */
export type RunOverlayFields = AlertOverlay & { trainer?: RunTrainer };

export class RunOverlay {
  /** Last overlay pushed per run, so runs.changed is re-sent only when an alert changes it. */
  private readonly pushed = new Map<string, string>();

  constructor(
    private readonly overlayFor: (run: string) => RunOverlayFields,
    /** The job and node this app's folder belongs to (`agent --job`), null when none was given. */
    private readonly identity: JobIdentity | null = null,
  ) {}

  apply(r: RunInfo): RunInfo {
    return { ...r, ...this.overlayFor(r.run), ...this.identity };
  }

  /** These overlaid runs are what the renderer now has. */
  pushedAll(runs: readonly RunInfo[]): void {
    for (const r of runs) this.pushed.set(r.run, keyOf(r));
  }

  /** Whether an alert change on `touched` runs moved any overlay away from what was pushed. */
  moved(overlaid: readonly RunInfo[], touched: ReadonlySet<string>): boolean {
    return overlaid.some((r) => touched.has(r.run) && this.pushed.get(r.run) !== keyOf(r));
  }

  clear(): void {
    this.pushed.clear();
  }
}
