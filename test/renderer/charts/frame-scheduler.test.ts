// Frame scheduler: one flush per task per frame, and a frame budget that carries the rest to the next frame.

import { describe, expect, test } from 'vitest';
import { createFrameScheduler } from '../../../src/renderer/src/charts/frame-scheduler';

function harness(costMs: number, budget: number, firstDrawBudget?: number) {
  const frames: (() => void)[] = [];
  let t = 0;
  const s = createFrameScheduler(
    (cb) => frames.push(cb),
    () => t,
    budget,
    firstDrawBudget,
  );
  const log: string[] = [];
  /** A flush's cost on the scheduler's clock. */
  const spend = (ms = costMs): void => void (t += ms);
  const task = (name: string) => ({
    flush: () => {
      log.push(name);
      spend();
    },
  });
  const frame = (): void => frames.shift()!();
  return { s, frames, log, task, frame, spend };
}

describe('createFrameScheduler', () => {
  test('many schedules of one task in a frame flush it once', () => {
    const h = harness(1, 8);
    const a = h.task('a');
    for (let i = 0; i < 10; i++) h.s.schedule(a);
    expect(h.frames).toHaveLength(1);
    h.frame();
    expect(h.log).toEqual(['a']);
    expect(h.frames).toHaveLength(0);
  });

  test('tasks past the budget wait for the next frame, in order', () => {
    const h = harness(3, 8);
    const tasks = ['a', 'b', 'c', 'd', 'e'].map(h.task);
    tasks.forEach((t) => h.s.schedule(t));
    h.frame();
    expect(h.log).toEqual(['a', 'b', 'c']);
    expect(h.s.pending).toBe(2);
    h.frame();
    expect(h.log).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  test('a cancelled task does not run; a task scheduled during a flush runs next frame', () => {
    const h = harness(0, 8);
    const a = h.task('a');
    const b = { flush: () => (h.log.push('b'), h.s.schedule(b)) };
    h.s.schedule(a);
    h.s.schedule(b);
    h.s.cancel(a);
    h.frame();
    expect(h.log).toEqual(['b']);
    h.frame();
    expect(h.log).toEqual(['b', 'b']);
  });
});

describe('first draws', () => {
  test('first draws share a larger frame budget than live updates', () => {
    const frames: (() => void)[] = [];
    let t = 0;
    const s = createFrameScheduler(
      (cb) => frames.push(cb),
      () => t,
      8,
      50,
    );
    const ran: string[] = [];
    const mk = (name: string, first: boolean) => ({
      flush: () => {
        ran.push(name);
        t += 10;
      },
      firstDraw: () => first,
    });
    ['a', 'b', 'c', 'd', 'e', 'f'].forEach((n) => s.schedule(mk(n, true)));
    frames.shift()!();
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);
    ['x', 'y'].forEach((n) => s.schedule(mk(n, false)));
    frames.shift()!();
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'x']);
  });
});

describe('per-task overhead', () => {
  test('counts against the budget: fewer tasks fit in a frame', () => {
    const frames: (() => void)[] = [];
    let t = 0;
    const s = createFrameScheduler(
      (cb) => frames.push(cb),
      () => t,
      8,
      50,
      2,
    );
    const ran: string[] = [];
    for (const n of ['a', 'b', 'c', 'd']) s.schedule({ flush: () => (ran.push(n), (t += 1)) });
    frames.shift()!();
    // 1 ms of work + 2 ms overhead each: after three the frame has used 9 ≥ 8.
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});

describe('light tasks (a linked hover: no canvas drawn)', () => {
  test('all run in the frame they were scheduled for, before drawing tasks, whatever the budget', () => {
    const frames: (() => void)[] = [];
    let t = 0;
    // The app's settings: 4 ms of drawing plus 1.5 ms per redrawn canvas.
    const s = createFrameScheduler(
      (cb) => frames.push(cb),
      () => t,
      4,
      50,
      1.5,
    );
    const ran: string[] = [];
    const drawing = (n: string) => ({ flush: () => (ran.push(n), (t += 3)), light: () => false });
    const hover = (n: string) => ({ flush: () => (ran.push(n), (t += 0.5)), light: () => true });
    s.schedule(drawing('d1'));
    s.schedule(drawing('d2'));
    for (let i = 0; i < 20; i++) s.schedule(hover(`h${i}`));
    frames.shift()!();
    // 20 hovers (10 ms) all ran, then one drawing task (at least one runs per frame); d2 waits.
    expect(ran).toEqual([...Array.from({ length: 20 }, (_, i) => `h${i}`), 'd1']);
    expect(s.pending).toBe(1);
    frames.shift()!();
    expect(ran.at(-1)).toBe('d2');
    expect(frames).toHaveLength(0);
  });

  test('a task is light or not when its frame comes (a chart that became dirty draws in budget)', () => {
    const frames: (() => void)[] = [];
    let t = 0;
    const s = createFrameScheduler(
      (cb) => frames.push(cb),
      () => t,
      4,
    );
    let dirty = false;
    const ran: string[] = [];
    const chart = { flush: () => (ran.push(dirty ? 'draw' : 'hover'), (t += 5)), light: () => !dirty };
    const other = { flush: () => (ran.push('other'), (t += 5)) };
    s.schedule(other);
    s.schedule(chart);
    dirty = true;
    frames.shift()!();
    // Not light any more: it waits its turn behind `other` and the budget.
    expect(ran).toEqual(['other']);
    frames.shift()!();
    expect(ran).toEqual(['other', 'draw']);
  });
});

describe('the first screen (#36: page open → first chart drawn)', () => {
  /** A chart that is drawn by its first flush once its data is in (`ready`), and at `order` on the page. */
  function chart(h: ReturnType<typeof harness>, name: string, order: number, ready = true) {
    let drawn = false;
    return {
      flush: () => {
        h.log.push(name);
        h.spend();
        if (ready) drawn = true;
      },
      firstDraw: () => !drawn,
      order: () => order,
    };
  }

  test('first draws run in page order, whichever was scheduled first', () => {
    const h = harness(5, 4, 50);
    const [c1, c2, c3, c4] = [1, 2, 3, 4].map((o) => chart(h, `c${o}`, o));
    // Charts lower on the page, mounted last, are still queued from their mount when the top charts' windows land.
    for (const c of [c4!, c3!, c1!, c2!]) h.s.schedule(c);
    // The first drawn chart ends its frame; after it the others, top first.
    h.frame();
    expect(h.log).toEqual(['c1']);
    h.frame();
    expect(h.log).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  test('the first chart drawn ends its frame (shown before the rest are drawn); a flush that draws nothing does not', () => {
    const h = harness(1, 4, 50);
    const loading = chart(h, 'loading', 1, false);
    const [a, b, c] = [2, 3, 4].map((o) => chart(h, `c${o}`, o));
    for (const x of [loading, a!, b!, c!]) h.s.schedule(x);
    h.frame();
    expect(h.log).toEqual(['loading', 'c2']);
    expect(h.s.pending).toBe(2);
    h.frame();
    // Later first draws share the first-draw budget as before.
    expect(h.log).toEqual(['loading', 'c2', 'c3', 'c4']);
    // Live updates (no first draw) keep their order and budget.
    const live = ['x', 'y'].map((n) => ({ flush: () => (h.log.push(n), h.spend(5)) }));
    live.forEach((l) => h.s.schedule(l));
    h.frame();
    expect(h.log.slice(4)).toEqual(['x']);
  });

  test('afterFirstDraw tells once, in the frame the first chart is drawn with its data, not for a flush that drew nothing', () => {
    const h = harness(1, 4, 50);
    const told: string[] = [];
    h.s.afterFirstDraw(() => told.push(`told after ${h.log.join(',')}`));
    const loading = chart(h, 'loading', 1, false);
    h.s.schedule(loading);
    h.frame();
    expect(told).toEqual([]);
    const [a, b] = [2, 3].map((o) => chart(h, `c${o}`, o));
    h.s.schedule(a!);
    h.s.schedule(b!);
    h.frame();
    expect(told).toEqual(['told after loading,c2']);
    h.frame();
    expect(told).toHaveLength(1);
    // Asked after the first draw: told at once.
    h.s.afterFirstDraw(() => told.push('late'));
    expect(told).toEqual(['told after loading,c2', 'late']);
  });
});
