// The linked hover: one x for every chart, set by the hovered chart, cleared only by it, marked only on the same x-axis mode.

import { describe, expect, test } from 'vitest';
import {
  LinkedHover,
  linkedHover,
  linkedX,
  type HoverPoint,
} from '../../../src/renderer/src/charts/linked-hover';

describe('LinkedHover', () => {
  test('set tells every listener the point; an unchanged set tells nobody', () => {
    const h = new LinkedHover();
    const a = {};
    const seen: (HoverPoint | null)[][] = [[], []];
    h.subscribe((p) => seen[0]!.push(p));
    h.subscribe((p) => seen[1]!.push(p));
    h.set(a, 'step', 10);
    h.set(a, 'step', 10);
    h.set(a, 'step', 20);
    expect(seen[0]).toEqual([
      { source: a, axis: 'step', x: 10 },
      { source: a, axis: 'step', x: 20 },
    ]);
    expect(seen[1]).toEqual(seen[0]);
    expect(h.current).toEqual({ source: a, axis: 'step', x: 20 });
  });

  test('a chart the pointer left clears the hover only while it owns it', () => {
    const h = new LinkedHover();
    const a = {};
    const b = {};
    const calls: (HoverPoint | null)[] = [];
    h.subscribe((p) => calls.push(p));
    h.set(a, 'step', 5);
    // The pointer moved straight onto chart b: a's late leave must not clear b's hover.
    h.set(b, 'relative', 7);
    h.clear(a);
    expect(h.current).toEqual({ source: b, axis: 'relative', x: 7 });
    h.clear(b);
    expect(h.current).toBeNull();
    h.clear(b);
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBeNull();
  });

  test('an unsubscribed chart hears nothing more', () => {
    const h = new LinkedHover();
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
    const p: HoverPoint = { source: {}, axis: 'wall', x: 1_700_000_000 };
    expect(linkedX(p, 'wall')).toBe(1_700_000_000);
    expect(linkedX(p, 'step')).toBeNull();
    expect(linkedX(p, 'relative')).toBeNull();
    expect(linkedX(null, 'wall')).toBeNull();
  });

  test('linkedHover is one store for the page', () => {
    expect(linkedHover()).toBe(linkedHover());
  });
});
