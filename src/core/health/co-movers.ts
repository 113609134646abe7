// What changed with an incident: the run's other tags that jumped sharply, against their own recent history, when it began.

import type { MetricGroup, TagClass } from '../../shared/catalog';
import type { CoMover } from '../../shared/domain';

/** Points kept per tag: a baseline and the recent updates an onset is looked for in. */
const KEEP = 32;
/** A jump is looked for among a tag's last RECENT points at or before the alert's step (about as many updates). */
const RECENT = 6;
/** A baseline needs this many earlier finite points. */
const MIN_BASELINE = 5;
/** A positive tag moved sharply when it is this many times (or this fraction of) its recent median… */
const MIN_RATIO = 3;
/** …and as many robust deviations (MADs, on a log scale for a positive tag) from it: its usual noise is no jump. */
const MIN_MADS = 6;
/** At most this many co-movers, strongest first. */
export const MAX_CO_MOVERS = 3;
/** Counters, timings and the machine: they move with time, not with the training's trouble. */
const IGNORED_GROUPS: ReadonlySet<MetricGroup> = new Set<MetricGroup>(['Progress', 'Performance', 'System']);

/** One tag's last KEEP points, in a ring (a push per point; read only when an incident raises). */
export class Recent {
  /** What the tag logs (its catalog role, else the tag): one co-mover per quantity. */
  constructor(readonly quantity: string) {}

  private readonly steps = new Float64Array(KEEP);
  private readonly values = new Float64Array(KEEP);
  private n = 0;
  private next = 0;

  push(step: number, value: number): void {
    this.steps[this.next] = step;
    this.values[this.next] = value;
    if (++this.next === KEEP) this.next = 0;
    if (this.n < KEEP) this.n++;
  }

  /** The points held, oldest first, up to step `upTo`. */
  upTo(upTo: number): { steps: number[]; values: number[] } {
    const steps: number[] = [];
    const values: number[] = [];
    for (let k = 0; k < this.n; k++) {
      const i = (this.next - this.n + k + KEEP) % KEEP;
      if (this.steps[i]! > upTo) continue;
      steps.push(this.steps[i]!);
      values.push(this.values[i]!);
    }
    return { steps, values };
  }

  /** The step of the RECENT-th last point up to `upTo` (the oldest held when fewer): where an onset's recent
   * updates begin, by this tag's rhythm. -Infinity when none is held. */
  recentFrom(upTo: number): number {
    const { steps } = this.upTo(upTo);
    return steps.length === 0 ? -Infinity : steps[Math.max(0, steps.length - RECENT)]!;
  }

  /** A restart from a checkpoint: the history before it no longer applies. */
  clear(): void {
    this.n = this.next = 0;
  }
}

const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A score on one scale for every kind of jump: orders of magnitude (a ratio's log10); MADs map onto it so that
 * the thresholds meet (MIN_MADS scores as MIN_RATIO) and each ×10 in MADs adds 1. */
const madScore = (mads: number): number => Math.log10(mads / MIN_MADS) + Math.log10(MIN_RATIO);
/** A tag that sat at exactly 0 (a zero-inflated rate: a clip fraction, a fraction of groups) and left it: the
 * weakest of jumps, below every other kind. */
const FROM_ZERO_SCORE = 0.1;

/** How sharply `v` left `baseline` (finite values): null when it did not move sharply. The score orders movers:
 * orders of magnitude (madScore), a step into NaN/Inf above all, a step off an exact 0 below all. */
export function jumpOf(
  baseline: readonly number[],
  v: number,
): { score: number; ratio: number | null; mads: number | null } | null {
  if (!Number.isFinite(v)) return { score: Infinity, ratio: null, mads: null };
  const med = medianOf([...baseline]);
  if (baseline.every((b) => b > 0) && v > 0) {
    const logs = baseline.map(Math.log);
    const lmed = medianOf(logs);
    const lmad = 1.4826 * medianOf(logs.map((x) => Math.abs(x - lmed)));
    const dev = Math.abs(Math.log(v) - lmed);
    const ratio = v / Math.exp(lmed);
    if (Math.max(ratio, 1 / ratio) < MIN_RATIO || dev < MIN_MADS * lmad) return null;
    return { score: dev / Math.LN10, ratio, mads: lmad > 0 ? dev / lmad : null };
  }
  const spread = 1.4826 * medianOf(baseline.map((x) => Math.abs(x - med)));
  const dev = Math.abs(v - med);
  // A tag that sat still (no spread) moved when it changed by half its size (a schedule's small steps are no jump).
  if (spread === 0) {
    if (dev <= 0.5 * Math.abs(med) || dev === 0) return null;
    const score = med === 0 ? FROM_ZERO_SCORE : Math.log10(1 + dev / Math.abs(med));
    return { score, ratio: null, mads: null };
  }
  const mads = dev / spread;
  return mads < MIN_MADS ? null : { score: madScore(mads), ratio: null, mads };
}

/** A co-mover and how sharply it moved (what orders them). */
export type ScoredMover = CoMover & { score: number; quantity: string };

/** The tag's sharpest jump onset among its last RECENT points in [since, step] (each against the points before it),
 * or null: a tag logged rarely (an evaluation) that jumped long before the onset is no co-mover. */
function moverOf(tag: string, r: Recent, since: number, step: number): ScoredMover | null {
  const { quantity } = r;
  const { steps, values } = r.upTo(step);
  let best: ScoredMover | null = null;
  for (let i = Math.max(MIN_BASELINE, values.length - RECENT); i < values.length; i++) {
    if (steps[i]! < since) continue;
    // The points before this one were finite: a tag already broken is no onset.
    if (!Number.isFinite(values[i - 1]!)) continue;
    const baseline = values.slice(Math.max(0, i - (KEEP - RECENT)), i).filter(Number.isFinite);
    if (baseline.length < MIN_BASELINE) continue;
    const j = jumpOf(baseline, values[i]!);
    if (j === null || (best !== null && j.score <= best.score)) continue;
    // An onset, not the new level it holds: the point before it was no jump itself (a level that shifted 3
    // points ago still stands out against a baseline it dominates less than half of).
    const before = values.slice(Math.max(0, i - 1 - (KEEP - RECENT)), i - 1).filter(Number.isFinite);
    if (before.length >= MIN_BASELINE && jumpOf(before, values[i - 1]!) !== null) continue;
    best = {
      tag,
      step: steps[i]!,
      value: values[i]!,
      baseline: medianOf(baseline),
      ratio: j.ratio,
      score: j.score,
      quantity,
    };
  }
  return best;
}

/** The MAX_CO_MOVERS strongest of `found`, strongest first (then the earliest, then by name), without scores. */
export function strongest(found: ReadonlyMap<string, ScoredMover>): CoMover[] {
  const sorted = [...found.values()].sort(
    (a, b) => b.score - a.score || a.step - b.step || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0),
  );
  // One per quantity (a clip ratio's mean and max are one move): the strongest of its tags.
  const seen = new Set<string>();
  const out: CoMover[] = [];
  for (const { score: _score, quantity, ...m } of sorted) {
    if (seen.has(quantity)) continue;
    seen.add(quantity);
    out.push(m);
    if (out.length === MAX_CO_MOVERS) break;
  }
  return out;
}

/** Each tag's recent points for one run, and the co-movers of an incident raised on it. */
export class CoMovers {
  private readonly tags = new Map<string, Recent | null>();

  /** Where `tag`'s points go (push each), or null for a tag that is never a mover (its catalog class says). */
  track(tag: string, cls: TagClass | null): Recent | null {
    let r = this.tags.get(tag);
    if (r === undefined) {
      r = cls !== null && IGNORED_GROUPS.has(cls.group) ? null : new Recent(cls?.role ?? tag);
      this.tags.set(tag, r);
    }
    return r;
  }

  /** Where the recent updates before an onset at `step` of `tag` begin (its last RECENT points). */
  recentFrom(tag: string, step: number): number {
    return this.tags.get(tag)?.recentFrom(step) ?? -Infinity;
  }

  /** Every tag (never those in `own`) that jumped sharply in its last few points in [since, step], by tag. */
  scored(since: number, step: number, own: readonly string[]): Map<string, ScoredMover> {
    const found = new Map<string, ScoredMover>();
    for (const tag of this.tags.keys()) {
      if (own.includes(tag)) continue;
      const m = this.scoredOne(tag, since, step);
      if (m !== null) found.set(tag, m);
    }
    return found;
  }

  /** One tag's sharpest recent jump in [since, step], or null (none, or a tag that is never a mover). */
  scoredOne(tag: string, since: number, step: number): ScoredMover | null {
    const r = this.tags.get(tag);
    return r ? moverOf(tag, r, since, step) : null;
  }
}
