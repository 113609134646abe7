// LiveView: concatenation without copies, restarts cut in (never a zig-zag), deltas/resets, windows.

import { describe, expect, test, vi } from 'vitest';
import { LiveView } from '../../../src/core/series/live-view';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { viewSession } from '../../../src/shared/session-text';

function series(steps: number[], value = (s: number): number => s / 2, wall0 = 1000): ScalarSeries {
  const s = new ScalarSeries();
  for (const st of steps) s.append(st, wall0 + st, value(st));
  return s;
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

function fed(parts: ScalarSeries[]): LiveView {
  const v = new LiveView();
  v.setParts(parts, 'bulk');
  v.feed(Infinity);
  return v;
}

const stepsOf = (v: LiveView): number[] => [...v.gather(0, v.length).steps];

describe('LiveView', () => {
  test('concatenates parts in order without restarts when steps keep rising', () => {
    const v = fed([series(range(0, 9)), series(range(10, 19))]);
    expect(v.length).toBe(20);
    expect(stepsOf(v)).toEqual(range(0, 19));
    expect(v.restarts).toEqual([]);
  });

  test('a step lower than the highest seen starts a new segment and drops the overlap (0..100, then 60..)', () => {
    const s = series([...range(0, 100), ...range(60, 80)], (st) => st, 1000);
    const v = fed([s]);
    expect(stepsOf(v)).toEqual(range(0, 80));
    expect(v.length).toBe(81);
    expect(v.restarts).toEqual([{ step: 60, wallTime: 1060, dropped: 41 }]);
    // The dropped points stay in the source series.
    expect(s.length).toBe(101 + 21);
    // Never a zig-zag: the view is sorted by step.
    const st = stepsOf(v);
    for (let i = 1; i < st.length; i++) expect(st[i]).toBeGreaterThanOrEqual(st[i - 1]!);
  });

  test('sessions: every point each session wrote stays readable after a restart hid it from the view', () => {
    // A crash at 44 updates (steps 1024..45056), then a restart from 0 that wrote 31: TensorBoard's Python
    // loader keeps all 75 points; the view (the run as it now stands) holds the 31, the sessions all 75.
    const first = series(
      range(1, 44).map((k) => k * 1024),
      (st) => st / 1024,
      1000,
    );
    const second = series(
      range(1, 31).map((k) => k * 1024),
      (st) => -st / 1024,
      9000,
    );
    const v = fed([first, second]);
    expect(v.length).toBe(31);
    expect(v.sessionCount).toBe(2);
    expect(v.sessions()).toEqual([
      { index: 1, startStep: 1024, endStep: 45056, startWall: 2024, endWall: 1000 + 45056, points: 44 },
      { index: 2, startStep: 1024, endStep: 31744, startWall: 10024, endWall: 9000 + 31744, points: 31 },
    ]);
    const crashed = v.sessionPoints(1)!;
    expect([...crashed.values]).toEqual(range(1, 44));
    expect([...v.sessionPoints(2)!.values]).toEqual(range(1, 31).map((k) => -k));
    expect(v.sessionPoints(3)).toBeNull();
    const w = v.sessionWindow(1, { pixels: 1000 })!;
    expect(w.session).toBe(1);
    expect([...w.steps]).toEqual(range(1, 44).map((k) => k * 1024));
    expect(w.extent).toMatchObject({ stepMin: 1024, stepMax: 45056 });
    expect(v.window({ pixels: 1000 }).sessions).toHaveLength(2);
  });

  test('sessions within one file and across a resume from a checkpoint; a rebuild starts them over', () => {
    const s = series([...range(0, 100), ...range(60, 80)], (st) => st, 1000);
    const v = fed([s]);
    expect(v.sessions().map((x) => [x.startStep, x.endStep, x.points])).toEqual([
      [0, 100, 101],
      [60, 80, 21],
    ]);
    // The view keeps session 1's points before the resume step; session 1 keeps its cut tail (61..100).
    expect(v.length).toBe(81);
    expect([...v.sessionPoints(1)!.steps]).toEqual(range(0, 100));
    v.setParts([series([5, 6])], 'bulk');
    v.feed(Infinity);
    expect(v.sessions().map((x) => x.points)).toEqual([2]);
  });

  test('which session wrote each view point follows from the restart marks alone (viewSession), for any restarts', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let trial = 0; trial < 50; trial++) {
      const s = new ScalarSeries(16, 'f64');
      let step = 0;
      let id = 0;
      for (let i = 0; i < 60; i++) {
        step = rand(6) === 0 ? rand(Math.max(1, step)) : step + 1 + rand(3);
        s.append(step, 1000 + i, id++);
      }
      const v = fed([s]);
      const owner = new Map<number, number>();
      for (let k = 1; k <= v.sessionCount; k++)
        for (const val of v.sessionPoints(k)!.values) owner.set(val, k);
      const p = v.gather(0, v.length);
      p.values.forEach((val, i) => expect(viewSession(v.restarts, p.steps[i]!)).toBe(owner.get(val)));
    }
  });

  test('a second file starting lower restarts across parts; equal steps are not a restart', () => {
    const v = fed([series([0, 1, 2, 3, 3, 4, 5]), series([2, 3, 4, 5, 6])]);
    expect(stepsOf(v)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(v.restarts.map((r) => [r.step, r.dropped])).toEqual([[2, 5]]);
  });

  test('a restart below every earlier point leaves only the new segment', () => {
    const v = fed([series([10, 20, 30]), series([0, 1])]);
    expect(stepsOf(v)).toEqual([0, 1]);
    expect(v.restarts).toEqual([{ step: 0, wallTime: 1000, dropped: 3 }]);
  });

  test('deltas carry each point once; a restart after points were sent is a reset and the next delta starts at the cut', () => {
    const s = new ScalarSeries();
    for (const st of range(0, 100)) s.append(st, st, st);
    const v = new LiveView();
    v.setParts([s], 'bulk');
    v.feed(Infinity);
    expect(v.takeReset()).toBeNull();
    const d1 = v.takeDelta()!;
    expect(d1.from).toBe(0);
    expect(d1.steps.length).toBe(101);
    expect(v.takeDelta()).toBeNull();

    for (const st of range(60, 70)) s.append(st, 200 + st, -st);
    v.feed(Infinity);
    expect(v.takeReset()).toBe('restart');
    const d2 = v.takeDelta()!;
    expect(d2.from).toBe(60);
    expect([...d2.steps]).toEqual(range(60, 70));
    expect([...d2.values]).toEqual(range(60, 70).map((x) => -x));
    expect(v.length).toBe(71);
  });

  test('a restart inside points never sent needs no reset (cold read of a restarted file)', () => {
    const v = fed([series([...range(0, 100), ...range(60, 70)])]);
    expect(v.takeReset()).toBeNull();
    expect(v.takeDelta()!.steps.length).toBe(71);
  });

  test('a part replaced by another series (file truncated) starts over: reset, then everything from 0', () => {
    const v = fed([series(range(0, 9))]);
    v.takeDelta();
    v.setParts([series(range(0, 4), () => 7)], 'truncated');
    v.feed(Infinity);
    expect(v.takeReset()).toBe('truncated');
    const d = v.takeDelta()!;
    expect(d.from).toBe(0);
    expect([...d.values]).toEqual([7, 7, 7, 7, 7]);
    expect(v.restarts).toEqual([]);
  });

  test('an earlier part growing after a later one was fed starts over (bulk)', () => {
    const a = series([0, 1]);
    const b = series([10, 11]);
    const v = fed([a, b]);
    v.takeDelta();
    a.append(2, 1002, 1);
    v.feed(Infinity);
    expect(v.takeReset()).toBe('bulk');
    expect([...v.takeDelta()!.steps]).toEqual([0, 1, 2, 10, 11]);
  });

  test('deltas are split at the requested size and feeding honours its budget', () => {
    const v = new LiveView();
    v.setParts([series(range(0, 999))], 'bulk');
    expect(v.feed(300)).toBe(300);
    expect(v.backlog).toBe(700);
    expect(v.feed(Infinity)).toBe(700);
    const sizes: number[] = [];
    const froms: number[] = [];
    for (let d = v.takeDelta(256); d; d = v.takeDelta(256)) {
      sizes.push(d.steps.length);
      froms.push(d.from);
    }
    expect(sizes).toEqual([256, 256, 256, 232]);
    expect(froms).toEqual([0, 256, 512, 768]);
  });

  test('a live delta of a few points copies them point by point, no column views; large or small, the same points', () => {
    // f64 steps and values (a text format's), one point's wall time NaN: every column's number as it is.
    const a = new ScalarSeries(64, 'f64');
    for (let st = 0; st < 100; st++) a.append(st + 0.5, st === 7 ? NaN : 1000 + st, st / 3);
    const v = fed([a, series(range(200, 203))]);
    const whole = v.takeDelta(60)!;
    const views = [vi.spyOn(ScalarSeries.prototype, 'steps'), vi.spyOn(ScalarSeries.prototype, 'values')];
    const d = v.takeDelta(3)!;
    for (const spy of views) expect(spy).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect([...d.steps]).toEqual([60.5, 61.5, 62.5]);
    expect([...d.values]).toEqual([60 / 3, 61 / 3, 62 / 3]);
    // Across the parts' seam, point by point, equals the column copy of the whole.
    const seam = v.gather(98, 102);
    expect([...seam.steps]).toEqual([98.5, 99.5, 200, 201]);
    expect([...seam.wallTimes]).toEqual([1098, 1099, 1200, 1201]);
    expect([...whole.wallTimes.subarray(0, 10)]).toEqual([...v.gather(0, 10).wallTimes]);
    expect(Number.isNaN(v.gather(7, 8).wallTimes[0])).toBe(true);
  });

  describe('window', () => {
    test('points without a wall time are counted, and bound no wall extent', () => {
      const timed = series([0, 1, 2]);
      const untimed = new ScalarSeries();
      for (const st of [3, 4]) untimed.append(st, Number.NaN, st);
      const v = new LiveView();
      v.setParts([untimed], 'bulk');
      v.feed(Infinity);
      expect(v.window({ pixels: 100 })).toMatchObject({
        untimed: 2,
        extent: { stepMin: 3, stepMax: 4, wallMin: NaN, wallMax: NaN },
      });
      const mixed = new LiveView();
      mixed.setParts([timed, untimed], 'bulk');
      mixed.feed(Infinity);
      expect(mixed.window({ pixels: 100 })).toMatchObject({
        untimed: 2,
        extent: { stepMin: 0, stepMax: 4, wallMin: 1000, wallMax: 1002 },
      });
    });

    test('few points come back whole with length, inRange, extent and restart marks', () => {
      const v = fed([series([...range(0, 10), ...range(5, 8)])]);
      const w = v.window({ pixels: 100 });
      expect([...w.steps]).toEqual(range(0, 8));
      expect(w.length).toBe(9);
      expect(w.inRange).toBe(9);
      expect(w.downsampled).toBe(false);
      expect(w.extent).toEqual({ stepMin: 0, stepMax: 8, wallMin: 1000, wallMax: 1008 });
      expect(w.restarts).toEqual([{ step: 5, wallTime: 1005, dropped: 6 }]);
    });

    test('many points are min/max downsampled: at most ~2 per pixel, the spike and NaN survive', () => {
      const s = new ScalarSeries(16, 'f64');
      for (let i = 0; i < 100_000; i++) {
        const v =
          i === 54_321 ? 1e6 : i === 77_777 ? Number.NaN : i === 88_888 ? -Infinity : Math.sin(i / 100);
        s.append(i, 2000 + i * 0.5, v);
      }
      const v = fed([s]);
      const w = v.window({ pixels: 500 });
      expect(w.downsampled).toBe(true);
      expect(w.inRange).toBe(100_000);
      expect(w.length).toBe(100_000);
      expect(w.steps.length).toBeLessThanOrEqual(2 * 500 + 2);
      expect(w.steps.length).toBeGreaterThan(250);
      expect(Math.max(...w.values.filter((x) => Number.isFinite(x)))).toBe(1e6);
      expect([...w.steps]).toContain(54_321);
      expect(w.values.some((x) => Number.isNaN(x))).toBe(true);
      expect(w.values.some((x) => x === -Infinity)).toBe(true);
      // Columns stay aligned: each kept point's wall time is its own.
      for (let i = 0; i < w.steps.length; i++) expect(w.wallTimes[i]).toBe(2000 + w.steps[i]! * 0.5);
      for (let i = 1; i < w.steps.length; i++) expect(w.steps[i]).toBeGreaterThan(w.steps[i - 1]!);
    });

    test('an x-range counts only points inside it and adds the neighbour on each side', () => {
      const v = fed([series(range(0, 99))]);
      const w = v.window({ pixels: 1000, xMin: 10, xMax: 19 });
      expect(w.inRange).toBe(10);
      expect([...w.steps]).toEqual(range(9, 20));
      expect(w.length).toBe(100);
    });

    test('the wall axis selects by seconds; downsampling spans segments of several parts', () => {
      const a = series(range(0, 4999), (st) => (st === 1234 ? 99 : 0), 0);
      const b = series(range(5000, 9999), (st) => (st === 7777 ? -99 : 0), 0);
      const v = fed([a, b]);
      const w = v.window({ pixels: 100, axis: 'wall', xMin: 1000, xMax: 8999 });
      expect(w.inRange).toBe(8000);
      expect(w.downsampled).toBe(true);
      expect(w.steps[0]).toBe(999);
      expect(w.steps[w.steps.length - 1]).toBe(9000);
      expect([...w.values]).toContain(99);
      expect([...w.values]).toContain(-99);
    });

    test.each(['step', 'wall'] as const)(
      'long ranges use block summaries (%s axis): every pixel keeps its exact min, max and first non-finite',
      (axis) => {
        let seed = 7;
        const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const s = new ScalarSeries(16, 'f64');
        const n = 300_000;
        for (let i = 0; i < n; i++) {
          const r = rnd();
          const v = r < 0.0005 ? Number.NaN : r < 0.0007 ? Infinity : r > 0.9999 ? 50 * rnd() : rnd();
          s.append(i * 2, 10_000 + i, v);
        }
        const v = fed([s]);
        const xOf = (i: number): number => (axis === 'step' ? i * 2 : 10_000 + i);
        const [x0, x1] = [xOf(12_345), xOf(287_000)];
        const pixels = 200;
        const w = v.window({ pixels, axis, xMin: x0, xMax: x1 });
        expect(w.downsampled).toBe(true);
        expect(w.inRange).toBe(287_000 - 12_345 + 1);
        const buckets = pixels / 2;
        expect(w.steps.length).toBeLessThanOrEqual(5 * buckets + 2);
        for (let k = 1; k < w.steps.length; k++) expect(w.steps[k]).toBeGreaterThan(w.steps[k - 1]!);
        const kept = new Set(Array.from(w.steps, (st) => st / 2));
        const span = x1 - x0;
        let i = 12_345;
        for (let k = 0; k < buckets; k++) {
          const limit = k === buckets - 1 ? Infinity : x0 + ((k + 1) * span) / buckets;
          let lo = -1;
          let hi = -1;
          let bad = -1;
          for (; i <= 287_000 && xOf(i) < limit; i++) {
            const val = s.value(i);
            if (!Number.isFinite(val)) {
              if (bad < 0) bad = i;
              continue;
            }
            if (lo < 0 || val < s.value(lo)) lo = i;
            if (hi < 0 || val > s.value(hi)) hi = i;
          }
          if (lo >= 0) {
            expect(kept.has(lo)).toBe(true);
            expect(kept.has(hi)).toBe(true);
          }
          if (bad >= 0) expect(kept.has(bad)).toBe(true);
        }
        // Values travel as they are (NaN stays NaN, Infinity stays Infinity), aligned with their steps.
        for (let k = 0; k < w.steps.length; k++)
          expect(Object.is(w.values[k], s.value(w.steps[k]! / 2))).toBe(true);
      },
    );

    test('an empty view answers an empty window with a null extent', () => {
      const w = new LiveView().window({ pixels: 10 });
      expect(w.length).toBe(0);
      expect(w.extent).toBeNull();
      expect(w.steps.length).toBe(0);
    });
  });
});
