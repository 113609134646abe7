// Progress fraction and ETA from whatever counters and timestamps a run's progress file holds.

import type { ProgressInfo } from '../readers/types';
import { wallSeconds } from '../readers/rows';
import { jsonNumber } from '../readers/values';

/** (done, total) field pairs, most specific first. */
const FRACTION_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['global_step', 'max_steps'],
  ['global_step', 'total_steps'],
  // Stable-Baselines3 names the target of learn() total_timesteps (its model counts num_timesteps).
  ['global_step', 'total_timesteps'],
  ['num_timesteps', 'total_timesteps'],
  ['step', 'total_steps'],
  ['step', 'max_steps'],
  ['current_step', 'total_steps'],
  ['completed_steps', 'total_steps'],
  ['completed_chunks', 'total_chunks'],
  ['requests_done', 'total_requests'],
  ['episode', 'total_episodes'],
  ['epoch', 'num_train_epochs'],
  ['epoch', 'total_epochs'],
  ['epoch', 'num_epochs'],
  ['epoch', 'max_epochs'],
];

const ELAPSED_KEYS = ['elapsed_seconds', 'elapsed_s', 'elapsed', 'elapsed_time', 'runtime_seconds'];
const START_KEYS = ['start_time', 'started_at', 'start_timestamp', 'created_at', 'start'];
const NOW_KEYS = ['updated_at', 'last_update', 'last_updated', 'timestamp', 'saved_at', 'time', 'end_time'];

export function fractionOf(
  fields: Record<string, unknown>,
): { fraction: number; done: number; total: number } | null {
  for (const [d, t] of FRACTION_PAIRS) {
    const done = jsonNumber(fields[d]);
    const total = jsonNumber(fields[t]);
    if (
      done === undefined ||
      total === undefined ||
      !Number.isFinite(done) ||
      !Number.isFinite(total) ||
      total <= 0
    )
      continue;
    return { fraction: Math.min(1, Math.max(0, done / total)), done, total };
  }
  const p = jsonNumber(fields['progress'] ?? fields['fraction']);
  if (p !== undefined && p >= 0 && p <= 1) return { fraction: p, done: p, total: 1 };
  return null;
}

/** Elapsed seconds the file states: an elapsed field, or a start and a last-update timestamp. */
export function elapsedOf(fields: Record<string, unknown>): number | undefined {
  for (const k of ELAPSED_KEYS) {
    const n = jsonNumber(fields[k]);
    if (n !== undefined && Number.isFinite(n) && n > 0) return n;
  }
  const start = first(fields, START_KEYS);
  const now = first(fields, NOW_KEYS);
  if (start !== undefined && now !== undefined && now > start) return now - start;
  return undefined;
}

function first(fields: Record<string, unknown>, keys: string[]): number | undefined {
  for (const k of keys) {
    const t = wallSeconds(fields[k]);
    if (t !== undefined) return t;
  }
  return undefined;
}

/**
 * Remembers when the done-counter was first and last seen to move (file mtimes), so a file
 * without timestamps still gets an ETA once it has been followed for a while.
 */
export class RateTracker {
  private firstSeen: { done: number; at: number } | null = null;
  private lastSeen: { done: number; at: number } | null = null;

  observe(done: number, at: number): void {
    if (this.firstSeen === null || done < this.firstSeen.done) {
      this.firstSeen = { done, at };
      this.lastSeen = null;
      return;
    }
    if (done > this.firstSeen.done) this.lastSeen = { done, at };
  }

  /** Seconds to reach `total`, or null before two distinct observations. */
  eta(total: number): number | null {
    if (!this.firstSeen || !this.lastSeen) return null;
    const dt = this.lastSeen.at - this.firstSeen.at;
    const dd = this.lastSeen.done - this.firstSeen.done;
    if (dt <= 0 || dd <= 0) return null;
    return Math.max(0, ((total - this.lastSeen.done) * dt) / dd);
  }
}

/** Fraction and ETA from the fields, falling back to the observed rate for the ETA. */
export function progressInfo(
  fields: Record<string, unknown>,
  rate: RateTracker | null,
  mtime: number,
): ProgressInfo {
  const f = fractionOf(fields);
  let eta: number | null = null;
  if (f !== null) {
    if (f.fraction >= 1) eta = 0;
    else {
      const elapsed = elapsedOf(fields);
      if (elapsed !== undefined && f.fraction > 0) eta = (elapsed * (1 - f.fraction)) / f.fraction;
      else if (rate) {
        rate.observe(f.done, mtime);
        eta = rate.eta(f.total);
      }
    }
  }
  return { fraction: f?.fraction ?? null, etaSeconds: eta, fields };
}

/** Top-level fields worth showing: scalars and short arrays of scalars, never big nested data. */
export function scalarFields(
  doc: Record<string, unknown>,
  exclude: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (exclude.has(k)) continue;
    const n = jsonNumber(v);
    if (n !== undefined) out[k] = n;
    else if (v === null || typeof v === 'string' || typeof v === 'boolean') out[k] = v;
    else if (Array.isArray(v) && v.length <= 32 && v.every((x) => x === null || typeof x !== 'object'))
      out[k] = v;
  }
  return out;
}
