// The memory cap on stored points: envelopes keep spikes, NaN/Inf and restarts; held bytes stay under a small cap; the words.

import { describe, expect, test } from 'vitest';
import { LiveView } from '../../../src/core/series/live-view';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { envelopeIndices, thinSeries } from '../../../src/core/series/thin';
import {
  MEMORY_CAP_ENV,
  MemoryCap,
  memoryCapSetting,
  thinnedStatement,
  TRIGGER_SHARE,
  type HeldSeries,
} from '../../../src/core/series/memory-cap';

/** A noisy series of `n` points with a spike, a dip, NaN and ±Inf at the given indices. */
function noisy(n: number, marks: Record<number, number> = {}): ScalarSeries {
  const s = new ScalarSeries(16);
  for (let i = 0; i < n; i++) s.append(i, 1000 + i, marks[i] ?? Math.sin(i * 0.37) * 0.1 + 1);
  return s;
}

describe('thinning into an envelope', () => {
  test('keeps every NaN and ±Inf, the spike and the dip, the first and last point, in step order', () => {
    const marks = { 1234: 50, 4321: -50, 777: Number.NaN, 778: Number.NaN, 5000: Infinity, 9000: -Infinity };
    const s = noisy(10_000, marks);
    const dropped = thinSeries(s, 16);
    expect(dropped).toBeGreaterThan(10_000 * 0.7);
    expect(s.length + s.dropped).toBe(10_000);
    const steps = [...s.steps()];
    const values = [...s.values()];
    for (const [at, v] of Object.entries(marks)) {
      const k = steps.indexOf(Number(at));
      expect(k, `step ${at} kept`).toBeGreaterThanOrEqual(0);
      if (Number.isNaN(v)) expect(values[k]).toBeNaN();
      else expect(values[k]).toBe(v);
    }
    expect(steps[0]).toBe(0);
    expect(steps[steps.length - 1]).toBe(9_999);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    // Wall times travel with their points.
    expect([...s.wallTimes()]).toEqual(steps.map((st) => 1000 + st));
    // The envelope's min and max are the series' own.
    const finite = values.filter(Number.isFinite);
    expect(Math.max(...finite)).toBe(50);
    expect(Math.min(...finite)).toBe(-50);
  });

  test('a step going back (a restart) keeps both sides of it', () => {
    const steps = Array.from({ length: 64 }, (_, i) => (i < 40 ? i : i - 20));
    const values = steps.map(() => 1);
    const { keep, n } = envelopeIndices(steps, values, 64, 16);
    const kept = [...keep.subarray(0, n)];
    expect(kept).toContain(39);
    expect(kept).toContain(40);
  });

  test('thinning an envelope again still keeps the extremes and NaN (a long read thins several times)', () => {
    const s = noisy(100_000, { 31_337: 9, 70_000: Number.NaN });
    thinSeries(s, 16);
    for (let i = 100_000; i < 120_000; i++) s.append(i, 1000 + i, 1);
    thinSeries(s, 16);
    expect(s.length + s.dropped).toBe(120_000);
    expect(Math.max(...[...s.values()].filter(Number.isFinite))).toBe(9);
    expect([...s.values()].some(Number.isNaN)).toBe(true);
    // New points append after the thinned ones as before.
    s.append(120_000, 0, 2);
    expect(s.step(s.length - 1)).toBe(120_000);
  });
});

test('a view over a series thinned after it was fed starts over at once: a bulk reset, then the envelope', () => {
  const s = noisy(10_000, { 5_000: Number.NaN });
  const view = new LiveView();
  view.setParts([s], 'bulk');
  view.feed(Infinity);
  expect(view.takeDelta()?.steps.length).toBe(10_000);
  thinSeries(s, 16);
  // Before the next feed a window must not read the old indices.
  expect(view.dropStale()).toBe(true);
  expect(view.length).toBe(0);
  view.feed(Infinity);
  expect(view.takeReset()).toBe('bulk');
  const d = view.takeDelta()!;
  expect(d.steps.length).toBe(s.length);
  expect(d.steps[[...d.values].findIndex(Number.isNaN)]).toBe(5_000);
});

describe('MemoryCap', () => {
  const held = (sets: ScalarSeries[]): HeldSeries[] =>
    sets.map((series, k) => ({ owner: `run${k % 3}`, series }));
  const bytes = (sets: ScalarSeries[]): number => sets.reduce((a, s) => a + s.byteSize, 0);

  test('keeps the held series under a small cap as they grow, thinning the largest, and never throws', () => {
    const cap = new MemoryCap(2 * 2 ** 20); // 2 MB: 131k points of 16 B in all
    const sets = Array.from({ length: 12 }, () => new ScalarSeries(16));
    let thinned = 0;
    for (let step = 0; step < 200_000; step++) {
      for (const s of sets) s.append(step, step, step % 997 === 0 ? Number.NaN : Math.cos(step));
      if (step % 1000 === 999) {
        const r = cap.enforce(held(sets));
        if (r) thinned += r.thinned.length;
        expect(bytes(sets)).toBeLessThanOrEqual(cap.triggerBytes);
      }
    }
    expect(thinned).toBeGreaterThan(0);
    // 2.4M points were read, far past the cap; every one is counted as kept or dropped, NaN kept.
    for (const s of sets) {
      expect(s.length + s.dropped).toBe(200_000);
      expect(countNaN(s)).toBe(Math.floor(199_999 / 997) + 1);
    }
  });

  test('under the trigger nothing is thinned', () => {
    const cap = new MemoryCap(2 ** 30);
    const s = noisy(10_000);
    expect(cap.enforce(held([s]))).toBeNull();
    expect(s.dropped).toBe(0);
  });

  test('past the cap with only short series: reported over the cap, nothing thrown', () => {
    const cap = new MemoryCap(1024);
    const sets = Array.from({ length: 10 }, () => noisy(100));
    const r = cap.enforce(held(sets));
    expect(r?.overCap).toBe(true);
    expect(sets.every((s) => s.dropped === 0)).toBe(true);
    expect(bytes(sets)).toBeGreaterThan(1024 * TRIGGER_SHARE);
  });
});

function countNaN(s: ScalarSeries): number {
  return [...s.values()].filter(Number.isNaN).length;
}

describe('the setting and the words', () => {
  test(`${MEMORY_CAP_ENV} sets the cap in MB; else min(2 GB, a quarter of the memory)`, () => {
    expect(memoryCapSetting({ [MEMORY_CAP_ENV]: '300' }, 64 * 2 ** 30)).toEqual({
      bytes: 300 * 2 ** 20,
      fromEnv: true,
    });
    expect(memoryCapSetting({}, 64 * 2 ** 30)).toEqual({ bytes: 2 * 2 ** 30, fromEnv: false });
    expect(memoryCapSetting({ [MEMORY_CAP_ENV]: 'lots' }, 4 * 2 ** 30)).toEqual({
      bytes: 2 ** 30,
      fromEnv: false,
    });
    expect(memoryCapSetting({ [MEMORY_CAP_ENV]: '-5' }, 4 * 2 ** 30).fromEnv).toBe(false);
  });

  test('the statement says what was kept, of how many runs, under which cap, and what zoom and export show', () => {
    const text = thinnedStatement(
      { kept: 12_500_000, read: 500_000_000, runs: 12 },
      { bytes: 2 * 2 ** 30, fromEnv: false },
    );
    expect(text).toBe(
      'rlwatch kept 1 in 40 points (12,500,000 of 500,000,000) of 12 runs to stay under the 2 GB memory cap ' +
        `(${MEMORY_CAP_ENV} sets it): charts show each thinned series' min/max envelope ` +
        '(every spike, NaN and Inf kept); a zoomed chart and its export read the exact points back from the files, ' +
        'which still hold every point',
    );
    const over = thinnedStatement(
      { kept: 10, read: 20, runs: 1 },
      { bytes: 300 * 2 ** 20, fromEnv: true },
      true,
    );
    expect(over).toContain('1 in 2 points (10 of 20) of 1 run to stay under the 300 MB memory cap (set by');
    expect(over).toContain('The cap is still passed');
  });
});
