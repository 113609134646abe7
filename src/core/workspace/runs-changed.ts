// The workspace's runs.changed, paced: at once on a structure change, else throttled with a trailing update whose gap grows with its cost.

import { THROTTLE_MS } from './load-progress';

/** The most of the time throttled runs.changed (listing runs and what listeners do) may take. */
const RUNS_CHANGED_SHARE = 0.1;

export class RunsChangedPacer {
  private timer: NodeJS.Timeout | null = null;
  private lastAt = 0;
  /** The least time between two throttled runs.changed (grows with their cost). */
  private gapMs = THROTTLE_MS;

  /** `emit` lists the runs and sends runs.changed. */
  constructor(private readonly emit: () => void) {}

  /**
   * runs.changed now (structure changed), or throttled with a trailing update: at most every
   * THROTTLE_MS, and never more than RUNS_CHANGED_SHARE of the time (with 10k runs, building and
   * sending the list costs milliseconds: the gap grows with what the last one cost).
   */
  changed(now = false): void {
    const t = Date.now();
    if (now || t - this.lastAt >= this.gapMs) {
      this.cancel();
      this.fire();
      return;
    }
    this.timer ??= setTimeout(
      () => {
        this.timer = null;
        this.fire();
      },
      this.gapMs - (t - this.lastAt),
    );
  }

  /** Drops a trailing update waiting (the folder closed). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private fire(): void {
    const t0 = performance.now();
    this.emit();
    this.lastAt = Date.now();
    this.gapMs = Math.max(THROTTLE_MS, (performance.now() - t0) / RUNS_CHANGED_SHARE);
  }
}
