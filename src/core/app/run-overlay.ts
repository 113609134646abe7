// RunInfo's alert overlay (worst alert, stalled) and whether it moved since the last runs.changed the renderer got.

import type { RunInfo } from '../../shared/domain';
import type { AlertOverlay } from '../alerts/alert-service';

const keyOf = (r: RunInfo): string => `${r.worstAlert}|${r.stalled}`;

export class RunOverlay {
  /** Last overlay pushed per run, so runs.changed is re-sent only when an alert changes it. */
  private readonly pushed = new Map<string, string>();

  constructor(private readonly overlayFor: (run: string) => AlertOverlay) {}

  apply(r: RunInfo): RunInfo {
    return { ...r, ...this.overlayFor(r.run) };
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
