// The points of a run's first read, put back in the order the trainer wrote them (by wall time) for the alert engine.
//
// A first read delivers a run tag by tag; live, every write delivers all tags of a step together. Rules that look
// across tags (a policy symptom joining an incident, the combined rules) must see the same order both ways, or a
// finished run opened from disk would raise other alerts (other ids) than the same run watched live.

import type { SeriesDelta } from '../../shared/domain';

/** One point, as the engine's feed takes it. */
export interface OrderedPoint {
  tag: string;
  step: number;
  wallTime: number;
  value: number;
}

interface Entry {
  /** Which held delta, the index of its next point, the point, and the tag's delivery rank (ties keep it). */
  d: number;
  i: number;
  p: OrderedPoint;
  rank: number;
}

/** Wall time first (a restart's steps go back, its wall time does not), then step, then delivery order. */
function before(a: Entry, b: Entry): boolean {
  const wa = Number.isFinite(a.p.wallTime);
  const wb = Number.isFinite(b.p.wallTime);
  if (wa && wb && a.p.wallTime !== b.p.wallTime) return a.p.wallTime < b.p.wallTime;
  if (a.p.step !== b.p.step) return a.p.step < b.p.step;
  return a.rank < b.rank;
}

/** A binary min-heap of the tags' next points. */
class Heap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  push(e: Entry): void {
    const h = this.items;
    h.push(e);
    for (let c = h.length - 1; c > 0; ) {
      const parent = (c - 1) >> 1;
      if (!before(h[c]!, h[parent]!)) break;
      [h[c], h[parent]] = [h[parent]!, h[c]!];
      c = parent;
    }
  }

  pop(): Entry {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let c = 0; ; ) {
        const l = 2 * c + 1;
        const r = l + 1;
        let m = c;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === c) break;
        [h[c], h[m]] = [h[m]!, h[c]!];
        c = m;
      }
    }
    return top;
  }
}

/**
 * Every point of `held` (deltas of one run, each tag's in file order) merged by wall time, each tag's own order
 * kept: a k-way merge over the tags' next points, O(n log k).
 */
export function* inWriteOrder(held: readonly SeriesDelta[]): Generator<OrderedPoint> {
  const point = (d: number, i: number): OrderedPoint => {
    const x = held[d]!;
    return { tag: x.tag, step: x.steps[i]!, wallTime: x.wallTimes[i]!, value: x.values[i]! };
  };
  // Deltas of one tag follow each other: a tag's later delta waits until its earlier one is drained.
  const queues = new Map<string, number[]>();
  held.forEach((d, k) => {
    if (d.steps.length === 0) return;
    const q = queues.get(d.tag);
    if (q) q.push(k);
    else queues.set(d.tag, [k]);
  });
  const heap = new Heap();
  let rank = 0;
  for (const q of queues.values()) {
    const d = q.shift()!;
    heap.push({ d, i: 0, p: point(d, 0), rank: rank++ });
  }
  while (heap.size > 0) {
    const e = heap.pop();
    yield e.p;
    const delta = held[e.d]!;
    if (e.i + 1 < delta.steps.length) heap.push({ d: e.d, i: e.i + 1, p: point(e.d, e.i + 1), rank: e.rank });
    else {
      const next = queues.get(delta.tag)!.shift();
      if (next !== undefined) heap.push({ d: next, i: 0, p: point(next, 0), rank: e.rank });
    }
  }
}
