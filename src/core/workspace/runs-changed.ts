// The workspace's runs.changed, paced: at once on a structure change, else throttled with a trailing update whose gap grows with its cost.

import { THROTTLE_MS } from './load-progress';

/** The most of the time throttled runs.changed (listing runs and what listeners do) may take. */
const RUNS_CHANGED_SHARE = 0.1;
/** The least time between two runs.changed that only live appends asked for (points, freshness): a live run's row
 * moves once a second at most. At the throttle's 100 ms, 50 live runs logging every second sent ten whole lists a
 * second, the largest part of `serve`'s own cost (#36 target 2). Loads, reads' errors and structure go at the
 * throttle's pace. */
export const LIVE_GAP_MS = 1000;

export class RunsChangedPacer {
  private timer: NodeJS.Timeout | null = null;
  private lastAt = 0;
  /** The least time between two throttled runs.changed (grows with their cost). */
  private gapMs = THROTTLE_MS;
  /** When the waiting trailing update goes (Date.now() ms). */
  private dueAt = 0;

  /** `emit` lists the runs and sends runs.changed. */
  constructor(private readonly emit: () => void) {}

  /**
   * runs.changed now (structure changed), or throttled with a trailing update: at most every
   * THROTTLE_MS, and never more than RUNS_CHANGED_SHARE of the time (with 10k runs, building and
   * sending the list costs milliseconds: the gap grows with what the last one cost). `live`: only a live
   * append asks, and waits at least LIVE_GAP_MS since the last one; any other ask brings a waiting one forward.
   */
  changed(now = false, live = false): void {
    const t = Date.now();
    const gap = live ? Math.max(LIVE_GAP_MS, this.gapMs) : this.gapMs;
    if (now || t - this.lastAt >= gap) {
      this.cancel();
      this.fire();
      return;
    }
    const due = this.lastAt + gap;
    if (this.timer && this.dueAt <= due) return;
    this.cancel();
    this.dueAt = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fire();
    }, due - t);
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
