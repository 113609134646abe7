// The stop rules' identities and a run's live rhythm: its typical gap between data arrivals (stop-evidence.ts judges).

import type { Hysteresis } from './gates';
import { median } from './stats';

/** One silence raises; the next arrival (or finishing the run) clears. */
export const STALLED_RUN: Hysteresis = { id: 'stalled-run', clearAfter: 1 };
/** The run's known trainer process is gone before the run finished: raised at once, cleared like a stall. */
export const TRAINER_EXITED: Hysteresis = { id: 'trainer-exited', clearAfter: 1 };

/** Arrivals closer than this are one batch (a reader delivers a file's new points together). */
const SAME_ARRIVAL_MS = 1000;
/** Gaps remembered: the typical gap is their median. */
const GAPS_KEPT = 20;

export class ArrivalGaps {
  /** Clock time of the last arrival, and the gaps between distinct arrivals. */
  private last: number | null = null;
  private readonly gaps: number[] = [];

  /** The typical gap between arrivals (ms); null with fewer than two gaps. */
  typicalMs(): number | null {
    return this.gaps.length >= 2 ? median(this.gaps) : null;
  }

  /** Clock time of the last arrival; null before any. */
  get lastArrival(): number | null {
    return this.last;
  }

  note(now: number): void {
    if (this.last !== null && now - this.last >= SAME_ARRIVAL_MS) {
      this.gaps.push(now - this.last);
      if (this.gaps.length > GAPS_KEPT) this.gaps.shift();
    }
    if (this.last === null || now - this.last >= SAME_ARRIVAL_MS) this.last = now;
  }
}
