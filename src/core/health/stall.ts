// Stalled-run detection: learns a run's typical gap between data arrivals and judges its silence against it.

import { formatNumber } from '../../shared/format';
import type { Hysteresis } from './gates';
import { median } from './stats';
import type { Thresholds } from './thresholds';
import type { Level } from './types';

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

  /**
   * The run's silence at `now` when it is past `floorS` seconds and `factor` of its typical gaps, in seconds, with
   * the typical gap in seconds; null while it is not, or with too few arrivals to know the gap.
   */
  silence(now: number, floorS: number, factor: number): { silentS: number; typicalS: number } | null {
    if (this.last === null || this.gaps.length < 2) return null;
    const typical = median(this.gaps);
    const silent = now - this.last;
    if (silent <= Math.max(floorS * 1000, factor * typical)) return null;
    return { silentS: Math.round(silent / 1000), typicalS: typical / 1000 };
  }

  /** The stalled-run alert's level once the silence is past the alert's limit (well after the run shows stalled;
   * sooner while the run's trainer process is known to be alive: then it is a hang, not an end). */
  stall(now: number, th: Thresholds, processAlive: boolean): { level: Level; silentS: number } | null {
    const floor = processAlive
      ? Math.min(th.stall_hang_floor_s, th.stall_alert_floor_s)
      : th.stall_alert_floor_s;
    const s = this.silence(now, floor, th.stall_alert_gap_factor);
    if (s === null) return null;
    const message = `no new data for ${s.silentS} s (usually every ${formatNumber(s.typicalS, 2)} s)${processAlive ? ' while its trainer process is alive: a hang' : ''}`;
    return { level: { kind: 'bad', severity: 'warning', after: 1, message }, silentS: s.silentS };
  }

  /** Whether the run shows as stalled: silent past its own rhythm (sooner than the alert). */
  stalled(now: number, th: Thresholds): boolean {
    return this.silence(now, th.stall_floor_s, th.stall_gap_factor) !== null;
  }
}
