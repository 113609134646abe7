// The linked hover: one x for every chart, set by the hovered chart, cleared only by it, marked only on the same x-axis mode, settled once the pointer rests.

import { describe, expect, test } from 'vitest';
import {
  LinkedHover,
  linkedHover,
  linkedX,
  type HoverPoint,
  type SettleTimers,
} from '../../../src/renderer/src/charts/linked-hover';

/** Timers run by hand: `fire()` runs the one pending timer. */
function manualTimers(): SettleTimers & { fire(): void; readonly pending: number } {
  let next = 1;
  const pending = new Map<number, () => void>();
  return {
    setTimeout(fn) {
      pending.set(next, fn);
      return next++;
    },
    clearTimeout(h) {
      pending.delete(h as number);
    },
    fire() {
      const [k, fn] = [...pending][0]!;
      pending.delete(k);
      fn();
    },
    get pending() {
      return pending.size;
    },
  };
}

describe('LinkedHover', () => {
  test('set tells every listener the point; an unchanged set tells nobody', () => {
    const h = new LinkedHover(120, manualTimers());
    const a = {};
    const seen: (HoverPoint | null)[][] = [[], []];
    h.subscribe((p) => seen[0]!.push(p));
    h.subscribe((p) => seen[1]!.push(p));
    h.set(a, 'step', 10);
    h.set(a, 'step', 10);
    h.set(a, 'step', 20);
    expect(seen[0]).toEqual([
      { source: a, axis: 'step', x: 10, settled: false },
      { source: a, axis: 'step', x: 20, settled: false },
    ]);
    expect(seen[1]).toEqual(seen[0]);
    expect(h.current).toEqual({ source: a, axis: 'step', x: 20, settled: false });
  });

  test('a chart the pointer left clears the hover only while it owns it', () => {
    const h = new LinkedHover(120, manualTimers());
    const a = {};
    const b = {};
    const calls: (HoverPoint | null)[] = [];
    h.subscribe((p) => calls.push(p));
    h.set(a, 'step', 5);
    // The pointer moved straight onto chart b: a's late leave must not clear b's hover.
    h.set(b, 'relative', 7);
    h.clear(a);
    expect(h.current).toEqual({ source: b, axis: 'relative', x: 7, settled: false });
    h.clear(b);
    expect(h.current).toBeNull();
    h.clear(b);
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBeNull();
  });

  test('an unsubscribed chart hears nothing more', () => {
    const h = new LinkedHover(120, manualTimers());
    let n = 0;
    const off = h.subscribe(() => n++);
    expect(h.listenerCount).toBe(1);
    h.set({}, 'step', 1);
    off();
    h.set({}, 'step', 2);
    expect(n).toBe(1);
    expect(h.listenerCount).toBe(0);
  });

  test('linkedX: the x on the same axis mode, null on another or without a hover', () => {
    const p: HoverPoint = { source: {}, axis: 'wall', x: 1_700_000_000, settled: true };
    expect(linkedX(p, 'wall')).toBe(1_700_000_000);
    expect(linkedX(p, 'step')).toBeNull();
    expect(linkedX(p, 'relative')).toBeNull();
    expect(linkedX(null, 'wall')).toBeNull();
  });

  test('the hover settles once the pointer rests: each move starts the wait again, leaving cancels it', () => {
    const t = manualTimers();
    const h = new LinkedHover(120, t);
    const a = {};
    const seen: (HoverPoint | null)[] = [];
    h.subscribe((p) => seen.push(p));
    h.set(a, 'step', 10);
    h.set(a, 'step', 20);
    // One wait pending (the first move's was cancelled by the second).
    expect(t.pending).toBe(1);
    expect(h.current?.settled).toBe(false);
    t.fire();
    expect(h.current).toEqual({ source: a, axis: 'step', x: 20, settled: true });
    expect(seen.map((p) => p?.settled)).toEqual([false, false, true]);
    // The same x again is no move: it stays settled and tells nobody.
    h.set(a, 'step', 20);
    expect(seen).toHaveLength(3);
    h.set(a, 'step', 30);
    expect(h.current?.settled).toBe(false);
    h.clear(a);
    expect(t.pending).toBe(0);
    expect(seen.at(-1)).toBeNull();
  });

  test('linkedHover is one store for the page', () => {
    expect(linkedHover()).toBe(linkedHover());
  });
});
