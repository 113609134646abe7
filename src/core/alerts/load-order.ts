// The points of a run's first read, put back in the order the trainer wrote them (by wall time) for the alert engine.
//
// A first read delivers a run tag by tag; live, every write delivers all tags of a step together. Rules that look
// across tags (a policy symptom joining an incident, the combined rules) must see the same order both ways, or a
// finished run opened from disk would raise other alerts (other ids) than the same run watched live.

import type { SeriesDelta } from '../../shared/domain';

/** Where the engine's feed takes each point. */
export type PointVisitor = (tag: string, step: number, wallTime: number, value: number) => void;

interface Entry {
  /** Which held delta, the index of its next point, that point's step and wall time (compared), and the tag's
   * delivery rank (ties keep it). One entry per tag, reused from point to point: no object per point. */
  d: number;
  i: number;
  step: number;
  wall: number;
  rank: number;
}

/** Wall time first (a restart's steps go back, its wall time does not), then step, then delivery order. */
function before(a: Entry, b: Entry): boolean {
  const wa = Number.isFinite(a.wall);
  const wb = Number.isFinite(b.wall);
  if (wa && wb && a.wall !== b.wall) return a.wall < b.wall;
  if (a.step !== b.step) return a.step < b.step;
  return a.rank < b.rank;
}

/** `before` where every wall time is finite, and where none is: then it is a strict total order. */
const beforeTimed = (a: Entry, b: Entry): boolean =>
  a.wall !== b.wall ? a.wall < b.wall : a.step !== b.step ? a.step < b.step : a.rank < b.rank;
const beforeUntimed = (a: Entry, b: Entry): boolean =>
  a.step !== b.step ? a.step < b.step : a.rank < b.rank;

/** A binary min-heap of the tags' next points. */
class Heap {
  private readonly items: Entry[] = [];

  constructor(private readonly before: (a: Entry, b: Entry) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  get top(): Entry {
    return this.items[0]!;
  }

  push(e: Entry): void {
    const h = this.items;
    h.push(e);
    for (let c = h.length - 1; c > 0; ) {
      const parent = (c - 1) >> 1;
      if (!this.before(h[c]!, h[parent]!)) break;
      const t = h[c]!;
      h[c] = h[parent]!;
      h[parent] = t;
      c = parent;
    }
  }

  pop(): Entry {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      this.siftDown();
    }
    return top;
  }

  /** The top entry changed (moved to its tag's next point): one sift down instead of a pop and a push. */
  siftDown(): void {
    const h = this.items;
    for (let c = 0; ; ) {
      const l = 2 * c + 1;
      const r = l + 1;
      let m = c;
      if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
      if (m === c) break;
      const t = h[c]!;
      h[c] = h[m]!;
      h[m] = t;
      c = m;
    }
  }
}

/** Whether every held point has a wall time (1), none has (0), or some have and some not (-1). */
function timedness(held: readonly SeriesDelta[]): 1 | 0 | -1 {
  let timed = false;
  let untimed = false;
  for (const d of held)
    for (let i = 0; i < d.wallTimes.length; i++) {
      if (Number.isFinite(d.wallTimes[i]!)) timed = true;
      else untimed = true;
      if (timed && untimed) return -1;
    }
  return timed ? 1 : 0;
}

/**
 * Whether the tags' points lie on one timeline: each tag one delta, all with the same steps and wall times, rising
 * strictly (by wall time then step where timed, by step where not). Then the merge is that timeline point by point,
 * each point's tags in delivery order: the heads are one point of the timeline, ties go to the earlier-delivered
 * tag, and a tag's next point comes after every tag's current one. A trainer's event file and a CSV's columns are
 * such runs; the check is one pass over the points.
 */
function oneTimeline(held: readonly SeriesDelta[], queues: readonly number[][], timed: boolean): boolean {
  if (queues.length === 0 || queues.some((q) => q.length !== 1)) return false;
  const first = held[queues[0]![0]!]!;
  const n = first.steps.length;
  for (let i = 1; i < n; i++) {
    const [w0, w1, s0, s1] = [
      first.wallTimes[i - 1]!,
      first.wallTimes[i]!,
      first.steps[i - 1]!,
      first.steps[i]!,
    ];
    if (timed ? !(w0 < w1 || (w0 === w1 && s0 < s1)) : !(s0 < s1)) return false;
  }
  for (const q of queues) {
    const d = held[q[0]!]!;
    if (d === first) continue;
    if (d.steps.length !== n) return false;
    for (let i = 0; i < n; i++)
      if (d.steps[i] !== first.steps[i] || (timed && d.wallTimes[i] !== first.wallTimes[i])) return false;
  }
  return true;
}

/**
 * Every point of `held` (deltas of one run, each tag's in file order) handed to `visit` merged by wall time, each
 * tag's own order kept: a k-way merge over the tags' next points, O(n log k). Where some points have wall times and
 * some do not, the comparison is not transitive and the heap's exact steps (pop, then push) are part of the order;
 * otherwise it is a total order, the merge's output is the same however the heap gets there, and the top entry is
 * moved on in place (one sift down per point, the comparison without the wall-time checks).
 */
export function eachInWriteOrder(held: readonly SeriesDelta[], visit: PointVisitor): void {
  writeOrder(held)(visit, Infinity);
}

/**
 * The same order a slice at a time: the returned function visits at most `max` more points and says whether any
 * are left (a large first read is judged in slices, the event loop free between them).
 */
export function writeOrder(held: readonly SeriesDelta[]): (visit: PointVisitor, max: number) => boolean {
  const at = (e: Entry, d: number, i: number): Entry => {
    const x = held[d]!;
    e.d = d;
    e.i = i;
    e.step = x.steps[i]!;
    e.wall = x.wallTimes[i]!;
    return e;
  };
  // Deltas of one tag follow each other: a tag's later delta waits until its earlier one is drained.
  const queues = new Map<string, number[]>();
  held.forEach((d, k) => {
    if (d.steps.length === 0) return;
    const q = queues.get(d.tag);
    if (q) q.push(k);
    else queues.set(d.tag, [k]);
  });
  const mixed = timedness(held);
  if (mixed !== -1 && oneTimeline(held, [...queues.values()], mixed === 1)) {
    // Each point of the timeline, its tags in delivery order: what the merge gives (see oneTimeline).
    const deltas = [...queues.values()].map((q) => held[q[0]!]!);
    const { steps, wallTimes } = deltas[0] ?? { steps: [], wallTimes: [] };
    let i = 0;
    return (visit, max) => {
      const end = Math.min(steps.length, i + Math.ceil(max / Math.max(1, deltas.length)));
      for (; i < end; i++) for (const d of deltas) visit(d.tag, steps[i]!, wallTimes[i]!, d.values[i]!);
      return i < steps.length;
    };
  }
  const heap = new Heap(mixed === 1 ? beforeTimed : mixed === 0 ? beforeUntimed : before);
  let rank = 0;
  for (const q of queues.values()) {
    const d = q.shift()!;
    heap.push(at({ d: 0, i: 0, step: 0, wall: 0, rank: rank++ }, d, 0));
  }
  return (visit, max) => {
    for (let n = 0; heap.size > 0 && n < max; n++) {
      const e = mixed === -1 ? heap.pop() : heap.top;
      const delta = held[e.d]!;
      visit(delta.tag, e.step, e.wall, delta.values[e.i]!);
      const next = e.i + 1 < delta.steps.length ? e.d : queues.get(delta.tag)!.shift();
      if (mixed === -1) {
        if (next !== undefined) heap.push(at(e, next, next === e.d ? e.i + 1 : 0));
      } else if (next !== undefined) {
        at(e, next, next === e.d ? e.i + 1 : 0);
        heap.siftDown();
      } else heap.pop();
    }
    return heap.size > 0;
  };
}
