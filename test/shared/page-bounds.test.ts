// The page's bounded stores: notices kept once per message and at most MAX_NOTICES, alert changes merged in one pass,
// and bursts coalesced into at most one apply per gap.

import { describe, expect, test } from 'vitest';
import { PendingAlerts } from '../../src/shared/alert-changes';
import { Coalescer, type CoalesceTimers } from '../../src/shared/coalescer';
import type { AlertInfo } from '../../src/shared/domain';
import { MAX_NOTICES, NoticeList } from '../../src/shared/notice-list';

describe('NoticeList', () => {
  test('one notice per message; past the bound the oldest go and are counted', () => {
    const list = new NoticeList();
    expect(list.add({ level: 'info', message: 'a' })).toBe(true);
    expect(list.add({ level: 'error', message: 'a' })).toBe(false);
    for (let i = 0; i < 100_000; i++) list.add({ level: 'warning', message: `flood ${i}` });
    const items = list.items();
    expect(items).toHaveLength(MAX_NOTICES);
    expect(items.map((n) => n.message)).toEqual(
      Array.from({ length: MAX_NOTICES }, (_, k) => `flood ${100_000 - MAX_NOTICES + k}`),
    );
    expect(list.dropped).toBe(100_001 - MAX_NOTICES);
    // A message let go may come back.
    expect(list.add({ level: 'info', message: 'a' })).toBe(true);
  });

  test('dismissing removes one notice by id; its message may be shown again', () => {
    const list = new NoticeList(3);
    list.add({ level: 'info', message: 'x' });
    list.add({ level: 'info', message: 'y' });
    const [x] = list.items();
    expect(list.dismiss(x!.id)).toBe(true);
    expect(list.dismiss(x!.id)).toBe(false);
    expect(list.items().map((n) => n.message)).toEqual(['y']);
    expect(list.add({ level: 'info', message: 'x' })).toBe(true);
    expect(list.items().map((n) => n.message)).toEqual(['y', 'x']);
  });
});

/** Timers the test moves by hand. */
function manualTimers(): CoalesceTimers & { advance(ms: number): void } {
  let now = 0;
  let due: { at: number; fn: () => void; h: number }[] = [];
  let next = 1;
  return {
    now: () => now,
    set(fn, ms) {
      due.push({ at: now + ms, fn, h: next });
      return next++;
    },
    clear(h) {
      due = due.filter((d) => d.h !== h);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const d = due.filter((x) => x.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!d) break;
        due = due.filter((x) => x !== d);
        now = d.at;
        d.fn();
      }
      now = until;
    },
  };
}

describe('Coalescer', () => {
  test('a burst of requests is one flush on the next turn, then at most one per gap', () => {
    const t = manualTimers();
    let flushes = 0;
    const c = new Coalescer(() => flushes++, 100, t);
    for (let i = 0; i < 1000; i++) c.request();
    expect(flushes).toBe(0);
    t.advance(0);
    expect(flushes).toBe(1);
    // Requests every millisecond for a second: about ten flushes, not a thousand.
    for (let ms = 0; ms < 1000; ms++) {
      c.request();
      t.advance(1);
    }
    expect(flushes).toBeGreaterThanOrEqual(10);
    expect(flushes).toBeLessThanOrEqual(12);
    // After a quiet gap the next request flushes at once again.
    t.advance(500);
    const before = flushes;
    c.request();
    t.advance(0);
    expect(flushes).toBe(before + 1);
  });

  test('now() flushes at once and drops the waiting one; cancel() drops it', () => {
    const t = manualTimers();
    let flushes = 0;
    const c = new Coalescer(() => flushes++, 100, t);
    c.request();
    c.now();
    expect(flushes).toBe(1);
    t.advance(1000);
    expect(flushes).toBe(1);
    c.request();
    c.cancel();
    t.advance(1000);
    expect(flushes).toBe(1);
  });
});

const alert = (id: string, step: number): AlertInfo => ({ id, step, active: true }) as unknown as AlertInfo;

describe('PendingAlerts', () => {
  test('changes replace alerts in place and new ones are appended, the newest state of each once', () => {
    const p = new PendingAlerts();
    p.add(alert('b', 2));
    p.add(alert('c', 1));
    p.add(alert('c', 3));
    expect(p.size).toBe(2);
    const out = p.applyTo([alert('a', 0), alert('b', 0)]);
    expect(out.map((a) => [a.id, a.step])).toEqual([
      ['a', 0],
      ['b', 2],
      ['c', 3],
    ]);
    expect(p.size).toBe(0);
  });

  test('past the cap the oldest alerts go', () => {
    const p = new PendingAlerts();
    for (let i = 0; i < 10; i++) p.add(alert(`n${i}`, i));
    expect(p.applyTo([alert('old', 0)], 5).map((a) => a.id)).toEqual(['n5', 'n6', 'n7', 'n8', 'n9']);
  });
});
