// The first screen's early windows: asked before the charts exist (the series followed first), taken once by the chart
// that asks for the same series at a width within the slack, with the pushes that came meanwhile; dropped otherwise.

import { afterEach, describe, expect, test, vi } from 'vitest';
import type { RequestArgs } from '../../../src/shared/contract';
import type { SeriesDelta, SeriesWindow } from '../../../src/shared/domain';
import type { Result } from '../../../src/shared/result';
import {
  EARLY_TTL_MS,
  EarlyWindows,
  MAX_EARLY_SERIES,
  PIXEL_SLACK,
  gridPlotPixels,
} from '../../../src/renderer/src/charts/early-windows';
import { createSeriesFeed } from '../../../src/renderer/src/charts/series-feed';

/** A backend that logs each request in order (follows and series.get) and lets pushes be emitted. */
function harness() {
  const log: string[] = [];
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const backend = {
    on(event: string, l: (p: never) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(l as (p: unknown) => void);
      return () => set.delete(l as (p: unknown) => void);
    },
    invoke(channel: string, args: { run: string; tag: string; follow?: boolean }) {
      log.push(`${channel} ${args.run}/${args.tag}${args.follow === undefined ? '' : ` ${args.follow}`}`);
      return Promise.resolve({ ok: true, value: null });
    },
  };
  const feed = createSeriesFeed(backend as never);
  const answers: ((r: Result<SeriesWindow>) => void)[] = [];
  const fetchWindow = vi.fn((args: RequestArgs['series.get']) => {
    log.push(`series.get ${args.run}/${args.tag} ${args.pixels}`);
    return new Promise<Result<SeriesWindow>>((resolve) => answers.push(resolve));
  });
  const early = new EarlyWindows(fetchWindow, feed);
  const emit = (event: string, payload: unknown): void => listeners.get(event)?.forEach((l) => l(payload));
  return { log, feed, fetchWindow, early, emit, answers };
}

const delta = (run: string, tag: string, from: number): SeriesDelta => ({
  run,
  tag,
  from,
  steps: new Float64Array([from]),
  wallTimes: new Float64Array([from]),
  values: new Float64Array([from]),
});

afterEach(() => vi.useRealTimers());

describe('EarlyWindows', () => {
  test('asks each series once, following it before asking its window; the chart takes the answer once', async () => {
    const h = harness();
    h.early.ask(
      [
        { run: 'r1', tag: 'loss' },
        { run: 'r1', tag: 'kl' },
      ],
      500,
    );
    h.early.ask([{ run: 'r1', tag: 'loss' }], 500);
    expect(h.log).toEqual([
      'series.follow r1/loss true',
      'series.get r1/loss 500',
      'series.follow r1/kl true',
      'series.get r1/kl 500',
    ]);
    const took = h.early.take({ run: 'r1', tag: 'loss', pixels: 520 });
    expect(took).not.toBeNull();
    h.answers[0]!({ ok: false, error: { code: 'not-found', message: 'x' } });
    expect(await took!.answer).toEqual({ ok: false, error: { code: 'not-found', message: 'x' } });
    // Taken once: the next request for it is the chart's own.
    expect(h.early.take({ run: 'r1', tag: 'loss', pixels: 520 })).toBeNull();
    expect(h.early.size).toBe(1);
    expect(h.fetchWindow).toHaveBeenCalledTimes(2);
  });

  test('hands over the pushes since it was asked, and stops taking them once taken (the chart subscribed first)', () => {
    const h = harness();
    h.early.ask([{ run: 'r', tag: 'loss' }], 400);
    h.emit('series.appended', delta('r', 'loss', 0));
    h.emit('series.appended', delta('r', 'other', 0));
    const chartGot: SeriesDelta[] = [];
    const off = h.feed.subscribe('r', 'loss', { append: (d) => chartGot.push(d), reset: () => {} });
    const took = h.early.take({ run: 'r', tag: 'loss', pixels: 400 });
    h.emit('series.appended', delta('r', 'loss', 1));
    expect(took!.deltas.map((d) => d.from)).toEqual([0]);
    expect(chartGot.map((d) => d.from)).toEqual([1]);
    // The series stays followed while the chart holds it; unfollowed when the chart lets go.
    expect(h.log.filter((l) => l.startsWith('series.follow'))).toEqual(['series.follow r/loss true']);
    off();
    expect(h.log.at(-1)).toBe('series.follow r/loss false');
  });

  test('a chart of another width, a zoomed window or an earlier session gets no early answer', () => {
    const h = harness();
    h.early.ask(
      [
        { run: 'r', tag: 'a' },
        { run: 'r', tag: 'b' },
        { run: 'r', tag: 'c' },
      ],
      400,
    );
    expect(h.early.take({ run: 'r', tag: 'a', pixels: Math.ceil(400 * PIXEL_SLACK) + 1 })).toBeNull();
    expect(h.early.take({ run: 'r', tag: 'b', pixels: 400, xMin: 0, xMax: 10, axis: 'step' })).toBeNull();
    expect(h.early.take({ run: 'r', tag: 'c', pixels: 400, session: 0 })).toBeNull();
    // The width that did not fit dropped its answer (and unfollowed); the others still wait for their whole series.
    expect(h.log).toContain('series.follow r/a false');
    expect(h.early.take({ run: 'r', tag: 'b', pixels: Math.ceil(400 / PIXEL_SLACK) })).not.toBeNull();
    expect(h.early.take({ run: 'r', tag: 'c', pixels: 400 })).not.toBeNull();
  });

  test('a reset of the series, or no chart taking it in time, drops the answer and unfollows', () => {
    vi.useFakeTimers();
    const h = harness();
    h.early.ask(
      [
        { run: 'r', tag: 'a' },
        { run: 'r', tag: 'b' },
      ],
      400,
    );
    h.emit('series.reset', { run: 'r', tag: 'a', reason: 'bulk' });
    expect(h.early.take({ run: 'r', tag: 'a', pixels: 400 })).toBeNull();
    expect(h.log).toContain('series.follow r/a false');
    vi.advanceTimersByTime(EARLY_TTL_MS);
    expect(h.early.size).toBe(0);
    expect(h.log.at(-1)).toBe('series.follow r/b false');
    expect(h.feed.size).toBe(0);
  });
});

describe('EarlyWindows of a sweep', () => {
  test("asks at most MAX_EARLY_SERIES series at once, the first chart's runs first: 8 charts × 50 runs would pass the server's 512 waiting requests", () => {
    const h = harness();
    const tags = ['reward', 'kl', 'loss', 'entropy', 'clip', 'lr', 'grad', 'value'];
    const runs = Array.from({ length: 50 }, (_, i) => `run${i}`);
    h.early.ask(
      tags.flatMap((tag) => runs.map((run) => ({ run, tag }))),
      800,
    );
    expect(h.fetchWindow).toHaveBeenCalledTimes(MAX_EARLY_SERIES);
    expect(h.early.size).toBe(MAX_EARLY_SERIES);
    expect(2 * MAX_EARLY_SERIES).toBeLessThan(512);
    const asked = h.fetchWindow.mock.calls.map(([a]) => `${a.run}/${a.tag}`);
    expect(asked.slice(0, 50)).toEqual(runs.map((r) => `${r}/reward`));
    expect(asked[50]).toBe('run0/kl');
    // A chart past it asks its own: no early answer for it.
    expect(h.early.take({ run: 'run49', tag: 'value', pixels: 800 })).toBeNull();
    h.early.dispose();
  });
});

describe('gridPlotPixels', () => {
  test('one column per 340 px and more, the plot narrower than its cell, in device pixels', () => {
    // Every width from a narrow window to a wide screen: the plot never exceeds its area, and the columns grow so a
    // plot is never narrower than the grid's minimum column less the chart's inset.
    for (let w = 400; w <= 4000; w += 7) {
      const p = gridPlotPixels(w, 1);
      expect(p).toBeLessThan(w);
      expect(p).toBeGreaterThanOrEqual(340 - 22);
      expect(p).toBeLessThan(2 * 340);
      expect(Math.abs(gridPlotPixels(w, 2) - 2 * p)).toBeLessThanOrEqual(1);
    }
  });
});
