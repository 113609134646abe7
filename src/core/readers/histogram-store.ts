// One source's histograms with their buckets, bounded: steps per tag thinned by stride, buckets per step merged, a byte budget made room in by thinning.

import type { HistogramSource, HistogramStep, HistogramTagInfo } from '../../shared/histogram-items';

/** Steps one tag keeps at most: when full, every other one is let go and the stride doubles. */
export const HISTOGRAM_TAG_STEPS = 500;
/** Buckets one step keeps at most: more are merged, neighbours summed, into this many. */
export const HISTOGRAM_STEP_BUCKETS = 4096;
/**
 * Bytes of buckets one source keeps at most. A step that does not fit makes room: the tag keeping the most steps is
 * thinned (its stride doubles), so every tag's newest step is always held and the kept ones stay spread over the run;
 * the steps let go are counted as dropped.
 */
export const HISTOGRAM_SOURCE_BYTES = 32 * 1024 * 1024;
/** What a kept step costs besides its buckets (the object, its array header): counted in the budget. */
const STEP_OVERHEAD = 64;

export interface HistogramLimits {
  tagSteps: number;
  stepBuckets: number;
  sourceBytes: number;
}

export const DEFAULT_HISTOGRAM_LIMITS: HistogramLimits = {
  tagSteps: HISTOGRAM_TAG_STEPS,
  stepBuckets: HISTOGRAM_STEP_BUCKETS,
  sourceBytes: HISTOGRAM_SOURCE_BYTES,
};

/**
 * One tag's steps. The i-th step logged (from 0) is kept while i % stride === 0; when `kept` is
 * full (or the source's byte budget needs room) the odd-placed ones go and the stride doubles, so the
 * kept steps stay evenly spread over the whole run. The newest step is held apart (`newest`) so a live view always has the latest one.
 */
interface TagSteps {
  kept: HistogramStep[];
  stride: number;
  seen: number;
  newest: HistogramStep | null;
  /** The newest is not kept and no one was handed it yet (steps(), snapshot()): the next step not kept overwrites
   * it in place, so a long tag's thinned-out steps cost no allocation each. */
  newestPrivate: boolean;
}

/** The plain-data form of a store (what a read worker posts back; typed arrays survive structured clone). */
export interface HistogramStoreSnapshot {
  tags: [string, TagSteps][];
  bytes: number;
  dropped: number;
}

function cost(s: HistogramStep): number {
  return s.buckets.byteLength + STEP_OVERHEAD;
}

/** Whether `s` is among the tag's kept steps (the newest, when kept, is the last of them). */
function isKept(t: TagSteps, s: HistogramStep): boolean {
  return t.kept[t.kept.length - 1] === s;
}

/** Steps a tag holds: the kept ones and the newest. */
function held(t: TagSteps): number {
  return t.kept.length + (t.newest !== null && !isKept(t, t.newest) ? 1 : 0);
}

/** What the newest step costs when it is not also kept (0 when it is, or there is none). */
function newestCost(t: TagSteps): number {
  return t.newest !== null && !isKept(t, t.newest) ? cost(t.newest) : 0;
}

/** How many buckets `mergeBuckets` leaves of k. */
function mergedBuckets(k: number, max: number): number {
  return k <= max ? k : Math.ceil(k / Math.ceil(k / max));
}

/** `buckets` (k triples) merged into at most `max` buckets of ⌈k/max⌉ neighbours each: first left, last right, summed counts. */
export function mergeBuckets(buckets: Float64Array, max: number): Float64Array {
  const k = Math.floor(buckets.length / 3);
  if (k <= max) return buckets;
  const group = Math.ceil(k / max);
  const n = mergedBuckets(k, max);
  const out = new Float64Array(n * 3);
  for (let g = 0; g < n; g++) {
    const from = g * group;
    const to = Math.min(k, from + group);
    let sum = 0;
    for (let i = from; i < to; i++) sum += buckets[3 * i + 2]!;
    out[3 * g] = buckets[3 * from]!;
    out[3 * g + 1] = buckets[3 * (to - 1) + 1]!;
    out[3 * g + 2] = sum;
  }
  return out;
}

export class HistogramStore implements HistogramSource {
  /** Bytes of the steps kept (buckets plus a fixed overhead per step). */
  bytes = 0;
  dropped = 0;
  /** Bumped by every step kept. */
  version = 0;
  private readonly byTag = new Map<string, TagSteps>();
  private kept = 0;

  constructor(readonly limits: HistogramLimits = DEFAULT_HISTOGRAM_LIMITS) {}

  get count(): number {
    return this.kept;
  }

  /**
   * Adds a logged histogram: the first `length` values of `buckets`, (left, right, count) triples, copied (the caller
   * may reuse its array). It becomes the tag's newest step; when the budget is spent, kept steps are thinned to make
   * room (makeRoom).
   */
  add(tag: string, step: number, wallTime: number, buckets: Float64Array, length = buckets.length): void {
    let t = this.byTag.get(tag);
    if (!t) this.byTag.set(tag, (t = { kept: [], stride: 1, seen: 0, newest: null, newestPrivate: false }));
    const index = t.seen++;
    const keep = index % t.stride === 0;
    const k = Math.floor(length / 3);
    const size = mergedBuckets(k, this.limits.stepBuckets) * 24 + STEP_OVERHEAD;
    if (size > this.limits.sourceBytes) {
      // Larger than the whole budget: nothing kept is let go for it.
      this.dropped++;
      return;
    }
    // The newest step is held whether or not the stride keeps it; the one it replaces is freed unless it is
    // among the kept (then it is the last kept: the newest is always the last logged).
    while (this.bytes - newestCost(t) + size > this.limits.sourceBytes) {
      if (!this.makeRoom()) {
        // Not even one step of each tag fits besides this one: this step cannot be held.
        this.dropped++;
        return;
      }
    }
    this.bytes += size - newestCost(t);
    const old = t.newest;
    this.version++;
    let item: HistogramStep;
    if (!keep && t.newestPrivate && old !== null && old.buckets.length === 3 * k) {
      // A thinned-out step replacing one no one holds: its array is reused.
      item = old;
      item.step = step;
      item.wallTime = wallTime;
      item.buckets.set(buckets.subarray(0, 3 * k));
    } else {
      const whole = buckets.subarray(0, 3 * k);
      const merged = mergeBuckets(whole, this.limits.stepBuckets);
      item = { step, wallTime, buckets: merged === whole ? whole.slice() : merged };
    }
    t.newest = item;
    t.newestPrivate = !keep;
    if (!keep) return;
    t.kept.push(item);
    this.kept++;
    if (t.kept.length >= this.limits.tagSteps) this.thin(t);
  }

  /**
   * Frees some bytes for a step that does not fit: the tag keeping the most steps is thinned (every other kept step
   * goes, its stride doubles), so each tag's kept steps stay evenly spread and its newest stays held; a tag down to
   * one kept step besides its newest lets that one go. The steps let go are counted as dropped. False when nothing
   * is left to let go (every tag holds its newest step only).
   */
  private makeRoom(): boolean {
    let most: TagSteps | null = null;
    let mostKept = 0;
    for (const t of this.byTag.values()) {
      // Only steps that are not also the tag's newest free bytes.
      const n = t.kept.length - (t.newest !== null && isKept(t, t.newest) ? 1 : 0);
      if (n > mostKept) {
        most = t;
        mostKept = n;
      }
    }
    if (most === null) return false;
    const before = held(most);
    if (most.kept.length >= 2) this.thin(most);
    else {
      // One kept step, not the newest: the newest alone stands for the tag.
      this.bytes -= cost(most.kept[0]!);
      most.kept = [];
      this.kept--;
    }
    // Counted as dropped: the steps the tag no longer holds (one that stays as its newest is still held).
    this.dropped += before - held(most);
    return true;
  }

  /** Lets every other kept step go (the newest stays held apart) and doubles the stride. */
  private thin(t: TagSteps): void {
    const next: HistogramStep[] = [];
    for (let i = 0; i < t.kept.length; i++) {
      const s = t.kept[i]!;
      if (i % 2 === 0) next.push(s);
      else if (s !== t.newest) this.bytes -= cost(s);
    }
    this.kept -= t.kept.length - next.length;
    t.kept = next;
    t.stride *= 2;
  }

  tags(): HistogramTagInfo[] {
    const out: HistogramTagInfo[] = [];
    for (const [tag, t] of this.byTag) {
      const steps = this.steps(tag);
      if (steps.length === 0) continue;
      let firstStep = Infinity;
      let lastStep = -Infinity;
      for (const s of steps) {
        if (s.step < firstStep) firstStep = s.step;
        if (s.step > lastStep) lastStep = s.step;
      }
      out.push({ tag, steps: steps.length, seen: t.seen, firstStep, lastStep });
    }
    return out.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }

  /** The kept steps of a tag in logged order, the newest last (even when the stride let it go). */
  seen(tag: string): number {
    return this.byTag.get(tag)?.seen ?? 0;
  }

  steps(tag: string): readonly HistogramStep[] {
    const t = this.byTag.get(tag);
    if (!t) return [];
    if (t.newest === null || isKept(t, t.newest)) return t.kept;
    // Handed out: never overwritten after this.
    t.newestPrivate = false;
    return [...t.kept, t.newest];
  }

  snapshot(): HistogramStoreSnapshot {
    for (const t of this.byTag.values()) t.newestPrivate = false;
    return { tags: [...this.byTag.entries()], bytes: this.bytes, dropped: this.dropped };
  }

  static fromSnapshot(
    s: HistogramStoreSnapshot,
    limits: HistogramLimits = DEFAULT_HISTOGRAM_LIMITS,
  ): HistogramStore {
    const store = new HistogramStore(limits);
    for (const [tag, t] of s.tags) {
      store.byTag.set(tag, t);
      store.kept += t.kept.length;
    }
    store.bytes = s.bytes;
    store.dropped = s.dropped;
    store.version = store.kept;
    return store;
  }
}
