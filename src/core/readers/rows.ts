// Maps one row of named numbers (a CSV row, a JSON object) to series points: step, wall time, tags.

import type { SeriesSet } from '../series/series-set';
import { jsonNumber } from './values';

/** Column names that hold the step, most specific first (SB3, baselines, HF, custom loops). */
export const STEP_KEYS = [
  'step',
  'global_step',
  '_step',
  'time/total_timesteps',
  'total_timesteps',
  'misc/total_timesteps',
  'timesteps',
  'timestep',
  'iteration',
  'iter',
  'epoch',
  'episode',
] as const;

/** Column names that hold an absolute wall time (seconds or milliseconds since the epoch, or an ISO-8601
 * date), most specific first; `last_trained` is a session's in a training_progress.json history. */
export const WALL_KEYS = [
  'timestamp',
  'wall_time',
  'walltime',
  '_timestamp',
  'time',
  'updated_at',
  'last_updated',
  'last_update',
  'last_trained',
  'saved_at',
] as const;

export interface Axes {
  step: string | null;
  wall: string | null;
}

/** Picks the step and wall-time columns among `keys`, case-insensitively. */
export function pickAxes(keys: Iterable<string>): Axes {
  const byLower = new Map<string, string>();
  for (const k of keys) if (!byLower.has(k.toLowerCase())) byLower.set(k.toLowerCase(), k);
  const find = (list: readonly string[]): string | null => {
    for (const c of list) {
      const k = byLower.get(c);
      if (k !== undefined) return k;
    }
    return null;
  };
  return { step: find(STEP_KEYS), wall: find(WALL_KEYS) };
}

/**
 * Epoch seconds from a wall-time value: a number (seconds, or milliseconds when huge) or an
 * ISO-8601 string. Small numbers are elapsed seconds, not a date (a `time` column counting from
 * 0), so they are not taken as wall time.
 */
export function wallSeconds(v: unknown): number | undefined {
  const n = jsonNumber(v);
  if (n !== undefined) return Number.isFinite(n) && n >= 1e8 ? (n > 1e11 ? n / 1000 : n) : undefined;
  if (typeof v === 'string' && v.length <= 64 && /^\d{4}-\d{2}-\d{2}/.test(v)) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : ms / 1000;
  }
  return undefined;
}

/** Appends rows to a series set, numbering rows without a step column by their index. */
export class RowSink {
  private rowIndex = 0;

  constructor(private readonly series: () => SeriesSet) {}

  get rows(): number {
    return this.rowIndex;
  }

  /** `values` excludes the axis columns. A row without a wall time gets NaN: its points have none (never
   * the file's mtime, which would put every row of a finished file at one instant). */
  emit(step: number | undefined, wall: number | undefined, values: Iterable<[string, number]>): void {
    const set = this.series();
    const s = step !== undefined && Number.isFinite(step) ? step : this.rowIndex;
    const w = wall ?? Number.NaN;
    this.rowIndex++;
    for (const [tag, v] of values) set.add(tag, s, w, v);
  }

  reset(): void {
    this.rowIndex = 0;
  }
}

const MAX_DEPTH = 8;

/**
 * Numeric leaves of a JSON object as [tag, value] pairs, nested keys joined with '/'. Strings,
 * booleans and arrays are not metrics; objects with a `_type` (W&B media, histograms) are skipped.
 */
export function numericLeaves(
  obj: Record<string, unknown>,
  skip: ReadonlySet<string>,
  prefix = '',
  depth = 0,
): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  collect(obj, skip, prefix, depth, out);
  return out;
}

function collect(
  obj: Record<string, unknown>,
  skip: ReadonlySet<string>,
  prefix: string,
  depth: number,
  out: Array<[string, number]>,
): void {
  for (const key of Object.keys(obj)) {
    const tag = prefix + key;
    if (skip.has(tag)) continue;
    const v = obj[key];
    const n = jsonNumber(v);
    if (n !== undefined) out.push([tag, n]);
    else if (isPlainObject(v) && depth < MAX_DEPTH && !('_type' in v))
      collect(v, skip, `${tag}/`, depth + 1, out);
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keys under which a writer nests a record's metrics beside its step (verl's file logger: `{"step": N, "data":
 * {"actor/entropy": …}}`). */
const ENVELOPE_KEYS = ['data', 'metrics'] as const;
const AXIS_KEYS: ReadonlySet<string> = new Set<string>([...STEP_KEYS, ...WALL_KEYS]);

/**
 * A record whose metrics sit in one envelope object beside only its step and time (`{"step": N, "data": {...}}`) as
 * the flat record its writer meant: the metrics under their own names (`actor/entropy`, never `data/actor/entropy`),
 * with the step and time. Any other object is returned as it is.
 */
export function unwrapEnvelope(obj: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(obj);
  const env = ENVELOPE_KEYS.find((k) => isPlainObject(obj[k]));
  if (env === undefined || !keys.every((k) => k === env || AXIS_KEYS.has(k.toLowerCase()))) return obj;
  const out: Record<string, unknown> = { ...(obj[env] as Record<string, unknown>) };
  for (const k of keys) if (k !== env) out[k] = obj[k];
  return out;
}

/** Emits one JSON object (a JSONL line, a history entry) through a sink. */
export function emitObject(
  sink: RowSink,
  obj: Record<string, unknown>,
  axes: Axes = pickAxes(Object.keys(obj)),
  tagPrefix = '',
): void {
  const skip = new Set<string>();
  let step: number | undefined;
  let wall: number | undefined;
  if (axes.step !== null) {
    step = jsonNumber(obj[axes.step]);
    skip.add(axes.step);
  }
  if (axes.wall !== null) {
    wall = wallSeconds(obj[axes.wall]);
    // An elapsed-seconds `time` column is a metric, not an axis: keep it as a tag.
    if (wall !== undefined) skip.add(axes.wall);
  }
  const values = numericLeaves(obj, skip);
  if (tagPrefix !== '') for (const kv of values) kv[0] = tagPrefix + kv[0];
  sink.emit(step, wall, values);
}
