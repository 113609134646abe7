// The memory cap on stored points: what the held series cost, thinning the largest into min/max envelopes past it, and the words that say so.

import type { ScalarSeries } from './scalar-series';
import { thinSeries } from './thin';

/** The environment variable that sets the cap, in MB (MiB). */
export const MEMORY_CAP_ENV = 'RLWATCH_MEMORY_CAP_MB';
/** The default cap: 2 GB, or a quarter of the machine's memory where that is less (it shares the machine with the
 * trainer). */
export const DEFAULT_CAP_BYTES = 2 * 2 ** 30;
const RAM_SHARE = 0.25;
/** The cap bounds the whole process: stored points may take this share of it before they are thinned (the rest is
 * the process itself: code, heap, read buffers, a grown column's copy)... */
export const TRIGGER_SHARE = 0.6;
/** ...and thinning goes on until they take at most this share (room to read on before the next thinning). */
export const TARGET_SHARE = 0.4;
/** One series may hold at most this share of the cap: a column doubling as it grows (old and new at once) must
 * not jump past the cap between two checks. */
export const SERIES_SHARE = 1 / 16;
/** Points per envelope bucket: each keeps at most 4 of them (first, last, min, max) besides non-finite values and
 * restarts, so one thinning keeps at most 1 in 4. */
export const THIN_BUCKET = 16;
/** Series this short are never thinned: they cost little and are often the whole of a tag. */
export const MIN_THIN_POINTS = 256;

const MB = 2 ** 20;

export interface CapSetting {
  bytes: number;
  /** Where it comes from: the environment variable, or the default. */
  fromEnv: boolean;
}

/** The cap from `RLWATCH_MEMORY_CAP_MB` (a positive number of MB), else the default for a machine with
 * `totalMemBytes` of memory. A value that is not a positive number is ignored (the default holds). */
export function memoryCapSetting(env: Record<string, string | undefined>, totalMemBytes: number): CapSetting {
  const raw = env[MEMORY_CAP_ENV]?.trim();
  const mb = raw ? Number(raw) : Number.NaN;
  if (Number.isFinite(mb) && mb > 0) return { bytes: Math.round(mb * MB), fromEnv: true };
  return { bytes: Math.min(DEFAULT_CAP_BYTES, Math.floor(totalMemBytes * RAM_SHARE)), fromEnv: false };
}

/** One held series and whose it is (a run's name). */
export interface HeldSeries {
  owner: string;
  series: ScalarSeries;
}

export interface ThinReport {
  /** Bytes the held series took before and after. */
  before: number;
  after: number;
  /** The series thinned (each at most once per report). */
  thinned: HeldSeries[];
  /** Still over the trigger with nothing left to thin (every series short): said, never thrown. */
  overCap: boolean;
}

/** Keeps the bytes of held series under a share of `capBytes` by thinning the largest series first into their
 * min/max envelopes (series/thin.ts). Pure: the caller lists what it holds and acts on the report. */
export class MemoryCap {
  constructor(readonly capBytes: number) {}

  /** Stored points start being thinned past this many bytes. */
  get triggerBytes(): number {
    return this.capBytes * TRIGGER_SHARE;
  }

  /** Whether series holding `total` bytes in all, the largest `largest`, need no thinning: under the trigger, and
   * each within its share. What `enforce` decides first (a caller may sum the bytes without listing the series). */
  within(total: number, largest: number): boolean {
    return total <= this.triggerBytes && largest <= this.capBytes * SERIES_SHARE;
  }

  /** Checks the held series; past the trigger (in all, or one series past its share) thins the largest until
   * they are under the target. null when nothing needed thinning. Never throws. */
  enforce(held: Iterable<HeldSeries>): ThinReport | null {
    const all: HeldSeries[] = [];
    let before = 0;
    let largest = 0;
    for (const h of held) {
      const b = h.series.byteSize;
      before += b;
      if (b > largest) largest = b;
      all.push(h);
    }
    if (this.within(before, largest)) return null;
    const seriesMax = this.capBytes * SERIES_SHARE;
    const target = this.capBytes * TARGET_SHARE;
    const thinned = new Set<HeldSeries>();
    let total = before;
    // Passes over the series, largest first: each thinning keeps at most 1 in 4, so few passes are needed.
    for (let pass = 0; pass < 32; pass++) {
      all.sort((a, b) => b.series.byteSize - a.series.byteSize);
      let saved = 0;
      for (const h of all) {
        const size = h.series.byteSize;
        // Largest first: once this one is within its share and the total under the target, so is the rest.
        if (total <= target && size <= seriesMax) break;
        if (h.series.length < MIN_THIN_POINTS) continue;
        thinSeries(h.series, THIN_BUCKET);
        // Columns are rebuilt at their new length even when the envelope kept every point (a reservation freed).
        const now = h.series.byteSize;
        if (now < size) {
          saved += size - now;
          total -= size - now;
          thinned.add(h);
        }
      }
      if (saved === 0 || (total <= target && all.every((h) => h.series.byteSize <= seriesMax))) break;
    }
    return { before, after: total, thinned: [...thinned], overCap: total > this.triggerBytes };
  }
}

/** Points kept and read over series, and how many owners (runs) had any thinned. */
export interface ThinnedFact {
  kept: number;
  read: number;
  runs: number;
}

/** A size in the cap's words: `2 GB`, `1.5 GB`, `300 MB` (binary units, as the MB of the setting). */
export function capWords(bytes: number): string {
  if (bytes >= 2 ** 30) return `${+(bytes / 2 ** 30).toFixed(1)} GB`;
  return `${Math.max(1, Math.round(bytes / MB))} MB`;
}

/** What rlwatch thinned, in words (a notice of the window, serve and `watch`). */
export function thinnedStatement(fact: ThinnedFact, cap: CapSetting, overCap = false): string {
  const ratio = fact.kept > 0 ? Math.max(1, Math.round(fact.read / fact.kept)) : 1;
  const runs = `${fact.runs} run${fact.runs === 1 ? '' : 's'}`;
  const where = cap.fromEnv ? `set by ${MEMORY_CAP_ENV}` : `${MEMORY_CAP_ENV} sets it`;
  const head =
    `rlwatch kept 1 in ${ratio} points (${fact.kept.toLocaleString('en-US')} of ${fact.read.toLocaleString('en-US')}) ` +
    `of ${runs} to stay under the ${capWords(cap.bytes)} memory cap (${where}): charts show each thinned ` +
    `series' min/max envelope (every spike, NaN and Inf kept); a zoomed chart and its export read the exact points ` +
    `back from the files, which still hold every point`;
  return overCap
    ? `${head}. The cap is still passed: every series is down to its shortest envelope (open fewer runs, or raise ${MEMORY_CAP_ENV})`
    : head;
}
