// The histogram store's byte budget makes room by thinning: a live source past it keeps taking its newest steps, spread, under budget.

import { describe, expect, test } from 'vitest';
import { HistogramStore } from '../../../src/core/readers/histogram-store';

/** What one step of `buckets` buckets costs in the budget (24 bytes a bucket, 64 per step). */
const stepCost = (buckets: number): number => 24 * buckets + 64;

/** A step's buckets saying which step it is: (step, step + 1, step) triples. */
function bucketsOf(step: number, n: number): Float64Array {
  const b = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) b.set([step + i, step + i + 1, step], 3 * i);
  return b;
}

describe('the byte budget evicts by thinning', () => {
  const TAGS = ['a', 'b', 'c'];

  test('past its budget a source keeps taking new steps: the newest is always the last logged, bytes stay under', () => {
    const budget = 40 * stepCost(10);
    const store = new HistogramStore({ tagSteps: 500, stepBuckets: 4096, sourceBytes: budget });
    let droppedBefore = 0;
    for (let i = 0; i < 3000; i++) {
      const tag = TAGS[i % 3]!;
      store.add(tag, i, 1000 + i, bucketsOf(i, 10));
      expect(store.bytes).toBeLessThanOrEqual(budget);
      expect(store.steps(tag).at(-1)!.step).toBe(i);
      expect(store.dropped).toBeGreaterThanOrEqual(droppedBefore);
      droppedBefore = store.dropped;
    }
    // Every tag's newest is its last logged step, whole.
    for (const [k, tag] of TAGS.entries()) {
      const last = store.steps(tag).at(-1)!;
      expect(last.step).toBe(2997 + k);
      expect(last.wallTime).toBe(1000 + 2997 + k);
      expect([...last.buckets]).toEqual([...bucketsOf(2997 + k, 10)]);
    }
    // Bytes count exactly what is held.
    const held = TAGS.reduce((n, t) => n + store.steps(t).length, 0);
    expect(store.bytes).toBe(held * stepCost(10));
    expect(store.count).toBeLessThanOrEqual(held);
    expect(store.dropped).toBeGreaterThan(0);
    // The budget is used, not emptied: at least half of it holds steps.
    expect(store.bytes).toBeGreaterThan(budget / 2);
  });

  test('the kept steps stay spread over the whole run (evenly by stride), not just its tail', () => {
    const store = new HistogramStore({ tagSteps: 500, stepBuckets: 4096, sourceBytes: 60 * stepCost(4) });
    const N = 6000;
    for (let i = 0; i < N; i++) store.add(TAGS[i % 3]!, i, i, bucketsOf(i, 4));
    for (const [k, tag] of TAGS.entries()) {
      const steps = store.steps(tag).map((s) => s.step);
      expect(steps.length).toBeGreaterThanOrEqual(8);
      // The first step logged is kept, the newest is held, and the kept ones are evenly strided between.
      expect(steps[0]).toBe(k);
      expect(steps.at(-1)).toBe(N - 3 + k);
      const kept = steps.slice(0, -1);
      const gap = kept[1]! - kept[0]!;
      expect(kept.every((s, i) => s === k + i * gap)).toBe(true);
      // They reach past the middle of the run: not the first steps only, not the tail only.
      expect(kept.at(-1)!).toBeGreaterThan(N / 2);
    }
    const info = store.tags();
    expect(info.map((t) => t.seen)).toEqual([N / 3, N / 3, N / 3]);
    expect(info.map((t) => t.lastStep)).toEqual([N - 3, N - 2, N - 1]);
  });

  test('a tag logging more steps gives up more of the budget; a tag logging rarely keeps its few', () => {
    const store = new HistogramStore({ tagSteps: 500, stepBuckets: 4096, sourceBytes: 50 * stepCost(8) });
    for (let i = 0; i < 2000; i++) {
      store.add('busy', i, i, bucketsOf(i, 8));
      if (i % 200 === 0) store.add('rare', i, i, bucketsOf(i, 8));
    }
    expect(store.steps('rare').map((s) => s.step)).toEqual([
      0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800,
    ]);
    expect(store.steps('busy').at(-1)!.step).toBe(1999);
    expect(store.bytes).toBeLessThanOrEqual(50 * stepCost(8));
  });

  test('a step larger than the whole budget is dropped and lets nothing kept go', () => {
    const store = new HistogramStore({ tagSteps: 500, stepBuckets: 4096, sourceBytes: 10 * stepCost(4) });
    for (let i = 0; i < 5; i++) store.add('t', i, i, bucketsOf(i, 4));
    store.add('huge', 5, 5, bucketsOf(5, 100));
    expect(store.dropped).toBe(1);
    expect(store.steps('t').map((s) => s.step)).toEqual([0, 1, 2, 3, 4]);
    expect(store.steps('huge')).toEqual([]);
  });

  test('the snapshot survives structured clone after evictions and the copy goes on as the original', () => {
    const limits = { tagSteps: 16, stepBuckets: 4096, sourceBytes: 25 * stepCost(6) };
    const store = new HistogramStore(limits);
    for (let i = 0; i < 777; i++) store.add(TAGS[i % 3]!, i, i * 0.5, bucketsOf(i, 6));
    const copy = HistogramStore.fromSnapshot(structuredClone(store.snapshot()), limits);
    const view = (s: HistogramStore): unknown =>
      TAGS.map((t) => s.steps(t).map((x) => [x.step, x.wallTime, [...x.buckets]]));
    expect(view(copy)).toEqual(view(store));
    expect(copy.tags()).toEqual(store.tags());
    expect([copy.bytes, copy.dropped, copy.count]).toEqual([store.bytes, store.dropped, store.count]);
    // The newest held apart is still the kept one where it was (identity kept by structured clone): both go on alike.
    for (let i = 777; i < 1500; i++) {
      store.add(TAGS[i % 3]!, i, i * 0.5, bucketsOf(i, 6));
      copy.add(TAGS[i % 3]!, i, i * 0.5, bucketsOf(i, 6));
    }
    expect(view(copy)).toEqual(view(store));
    expect([copy.bytes, copy.dropped, copy.count]).toEqual([store.bytes, store.dropped, store.count]);
    expect(store.bytes).toBeLessThanOrEqual(limits.sourceBytes);
  });
});

describe('add copies what it keeps (#36: a bulk read allocates no array per thinned-out step)', () => {
  test('a caller reusing one array for every step leaves every kept step and the newest as logged', () => {
    const store = new HistogramStore({ tagSteps: 8, stepBuckets: 4096, sourceBytes: 1 << 20 });
    const scratch = new Float64Array(64);
    for (let i = 0; i < 100; i++) {
      scratch.fill(-1);
      scratch.set(bucketsOf(i, 5));
      store.add('t', i, i, scratch, 15);
    }
    const steps = store.steps('t');
    expect(steps.at(-1)!.step).toBe(99);
    for (const s of steps) expect([...s.buckets]).toEqual([...bucketsOf(s.step, 5)]);
    expect(store.bytes).toBe(steps.length * stepCost(5));
  });

  test('a newest step once handed out is never overwritten by the steps after it', () => {
    const store = new HistogramStore({ tagSteps: 4, stepBuckets: 4096, sourceBytes: 1 << 20 });
    for (let i = 0; i < 50; i++) store.add('t', i, i, bucketsOf(i, 3));
    const held = store.steps('t').at(-1)!;
    const snap = structuredClone(store.snapshot());
    for (let i = 50; i < 90; i++) store.add('t', i, i, bucketsOf(i, 3));
    expect([held.step, held.wallTime, [...held.buckets]]).toEqual([49, 49, [...bucketsOf(49, 3)]]);
    const copy = HistogramStore.fromSnapshot(snap, store.limits);
    expect(copy.steps('t').at(-1)!.step).toBe(49);
    for (const s of store.steps('t')) expect([...s.buckets]).toEqual([...bucketsOf(s.step, 3)]);
  });
});
