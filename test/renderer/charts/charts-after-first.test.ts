// The grid's first chart is made alone; the others once it is drawn (in a task after that frame) or at the bound (#36).

import { describe, expect, test } from 'vitest';
import { ChartsAfterFirst, OTHERS_WAIT_MS } from '../../../src/renderer/src/charts/charts-after-first';

function harness(drawnAlready = false) {
  const made: string[] = [];
  const timers = new Map<number, { cb: () => void; ms: number }>();
  let nextTimer = 1;
  let told: (() => void) | null = null;
  const frames: (() => void)[] = [];
  const gate = new ChartsAfterFirst((tag) => made.push(tag), {
    afterFirstDraw: (listener) => (drawnAlready ? listener() : (told = listener)),
    setTimer: (cb, ms) => {
      timers.set(nextTimer, { cb, ms });
      return nextTimer++;
    },
    clearTimer: (h) => void timers.delete(h as number),
    afterNextFrame: (cb) => void frames.push(cb),
  });
  /** Runs the pending timers of `ms` (each once). */
  const fire = (ms: number): void => {
    for (const [id, t] of [...timers]) {
      if (t.ms !== ms) continue;
      timers.delete(id);
      t.cb();
    }
  };
  /** The next frame has passed (and the task after it run). */
  const nextFrame = (): void => frames.splice(0).forEach((f) => f());
  return { gate, made, timers, fire, nextFrame, draw: () => told?.() };
}

describe('ChartsAfterFirst', () => {
  test('the first chart is made at once; the others only after the frame that drew it', () => {
    const h = harness();
    for (const tag of ['a', 'b', 'c']) h.gate.admit(tag);
    expect(h.made).toEqual(['a']);
    expect(h.gate.waiting).toBe(2);
    h.draw();
    // Not inside the frame that drew the first chart: after the next one, so the page is free while it is shown.
    expect(h.made).toEqual(['a']);
    h.nextFrame();
    expect(h.made).toEqual(['a', 'b', 'c']);
    // Scrolled near later: made at once; the bound's timer is gone.
    h.gate.admit('d');
    expect(h.made).toEqual(['a', 'b', 'c', 'd']);
    expect(h.timers.size).toBe(0);
  });

  test('a chart admitted twice while held is made once', () => {
    const h = harness();
    for (const tag of ['a', 'b', 'b']) h.gate.admit(tag);
    expect(h.gate.waiting).toBe(1);
    h.draw();
    h.nextFrame();
    expect(h.made).toEqual(['a', 'b']);
  });

  test('with no first draw, the others are made at the bound', () => {
    const h = harness();
    h.gate.admit('a');
    expect(h.timers.size).toBe(0);
    h.gate.admit('b');
    h.gate.admit('c');
    expect([...h.timers.values()].map((t) => t.ms)).toEqual([OTHERS_WAIT_MS]);
    h.fire(OTHERS_WAIT_MS);
    expect(h.made).toEqual(['a', 'b', 'c']);
    // A first draw after the bound changes nothing.
    h.draw();
    h.nextFrame();
    expect(h.made).toEqual(['a', 'b', 'c']);
  });

  test('a chart already drawn when the grid comes (back from the table view): every chart is made at once', () => {
    const h = harness(true);
    for (const tag of ['a', 'b', 'c']) h.gate.admit(tag);
    expect(h.made).toEqual(['a', 'b', 'c']);
    expect(h.timers.size).toBe(0);
  });

  test('disposed (the grid is gone): the bound does not fire', () => {
    const h = harness();
    h.gate.admit('a');
    h.gate.admit('b');
    h.gate.dispose();
    expect(h.timers.size).toBe(0);
    expect(h.made).toEqual(['a']);
  });
});
