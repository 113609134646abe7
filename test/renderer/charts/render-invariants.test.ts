// The render check's invariants (test/e2e/render-check/invariants.ts) on hand-made chart states that pass and fail.

import { describe, expect, test } from 'vitest';
import type { ChartState, PointState, TickLabel } from '../../e2e/render-check/chart-state';
import {
  checkChart,
  flatSeriesIsOneRow,
  freshnessMoved,
  readErrorsShown,
  sessionsShown,
  showsItsRuns,
  timeAxisIsReal,
  singlePointHasMark,
  tickLabelsInside,
  yRangeCoversData,
  yTicksAreDistinct,
} from '../../e2e/render-check/invariants';

const pt = (y: number | null, py = 50, radius = 0, x: number | null = y): PointState => ({
  x,
  y,
  py,
  radius,
});
const yTick = (text: string, top = 40): TickLabel => ({
  axis: 'y',
  text,
  box: { left: 4, top, right: 30, bottom: top + 8 },
});

/** A healthy 400×180 chart of a rising series, y 0…10, its ticks inside and distinct. */
function chart(over: Partial<ChartState> = {}): ChartState {
  return {
    run: 'r',
    tag: 't',
    width: 400,
    height: 180,
    logY: false,
    xAxis: 'step',
    untimed: false,
    yMin: 0,
    yMax: 10,
    series: [{ label: 'r', points: [pt(1, 150), pt(5, 90), pt(9, 30)] }],
    ticks: [yTick('0', 160), yTick('5', 90), yTick('10', 20)],
    trim: null,
    ...over,
  };
}

describe('sessions and time invariants', () => {
  const withEarlier = chart({
    series: [
      { label: 'r', points: [pt(1, 150), pt(5, 90)] },
      { label: 'r · session 1', points: [pt(2, 140), pt(9, 30)] },
      { label: 'r · session 1 (smoothed)', points: [pt(2, 140), pt(8, 40)] },
    ],
  });

  test("(g) several sessions: the badge says so and each earlier one is drawn; an earlier session is the run's own", () => {
    expect(sessionsShown(2, '· 2 sessions', [withEarlier])).toEqual([]);
    expect(showsItsRuns(withEarlier)).toEqual([]);
    expect(sessionsShown(2, null, [withEarlier])).toMatchObject([{ invariant: 'sessions' }]);
    expect(sessionsShown(3, '· 3 sessions', [withEarlier])).toEqual([
      { invariant: 'sessions', detail: 'earlier session 2 drawn on no chart' },
    ]);
    // One session: no badge, no faded line (two writers taken for a restart would draw one).
    expect(sessionsShown(1, null, [chart()])).toEqual([]);
    expect(sessionsShown(1, '· 2 sessions', [chart()])).toMatchObject([{ invariant: 'sessions' }]);
    expect(sessionsShown(1, null, [withEarlier])).toMatchObject([{ invariant: 'sessions' }]);
  });

  test('(h) a time axis never squeezes a series onto one x; untimed series are drawn by step', () => {
    const squeezed = chart({
      xAxis: 'relative',
      series: [{ label: 'r', points: [pt(1, 150, 0, 0), pt(5, 90, 0, 0), pt(9, 30, 0, 0)] }],
    });
    expect(timeAxisIsReal(squeezed)).toMatchObject([{ invariant: 'no-invented-time' }]);
    expect(timeAxisIsReal(chart({ xAxis: 'relative' }))).toEqual([]);
    expect(timeAxisIsReal(chart({ untimed: true }))).toEqual([]);
    expect(timeAxisIsReal(chart({ untimed: true, xAxis: 'wall' }))).toMatchObject([
      { invariant: 'no-invented-time' },
    ]);
  });
});

describe('render invariants', () => {
  test('a healthy chart passes every invariant', () => {
    expect(checkChart(chart())).toEqual([]);
  });

  test('a chart draws only the runs its figure names (raw and smoothed lines)', () => {
    const lines = (...labels: string[]): ChartState =>
      chart({ run: 'a,b', series: labels.map((label) => ({ label, points: [pt(1), pt(2)] })) });
    expect(showsItsRuns(lines('a', 'a (smoothed)', 'b'))).toEqual([]);
    expect(showsItsRuns(lines('a', 'old', 'old (smoothed)'))).toEqual([
      { invariant: 'shows-its-run', detail: 'draws old for a,b' },
    ]);
  });

  test('(a) a series with one finite point needs a visible mark inside the canvas', () => {
    const lone = (p: PointState): ChartState =>
      chart({ series: [{ label: 'r', points: [pt(null), p, pt(null)] }] });
    expect(singlePointHasMark(lone(pt(3, 90, 3)))).toEqual([]);
    expect(singlePointHasMark(lone(pt(3, 90, 0)))).toEqual([
      { invariant: 'single-point-mark', detail: 'r: its one point has radius 0' },
    ]);
    expect(singlePointHasMark(lone(pt(3, 400, 3)))[0]?.invariant).toBe('single-point-mark');
    // Two finite points draw a line: no mark needed.
    expect(singlePointHasMark(chart())).toEqual([]);
  });

  test('(b) a constant series is one pixel row; float noise in the values still counts as constant', () => {
    const flat = (rows: number[], ys = [100, 100, 100]): ChartState =>
      chart({ series: [{ label: 'r', points: ys.map((y, i) => pt(y, rows[i])) }], yMin: 99, yMax: 101 });
    expect(flatSeriesIsOneRow(flat([90, 90, 90]))).toEqual([]);
    expect(flatSeriesIsOneRow(flat([90, 90.4, 90]))).toEqual([]);
    const noisy = flatSeriesIsOneRow(flat([10, 170, 10], [100, 99.99999999999999, 100]));
    expect(noisy).toHaveLength(1);
    expect(noisy[0]!.invariant).toBe('flat-line');
    // A series that really varies may use many rows.
    expect(flatSeriesIsOneRow(flat([10, 170, 10], [100, 90, 100]))).toEqual([]);
  });

  test('(b) y tick labels must not repeat', () => {
    expect(yTicksAreDistinct(chart())).toEqual([]);
    expect(yTicksAreDistinct(chart({ ticks: [yTick('100'), yTick('100'), yTick('100.1')] }))).toEqual([
      { invariant: 'distinct-ticks', detail: 'y tick labels repeat: 100' },
    ]);
  });

  test('(c) a tick label that overhangs the canvas is clipped', () => {
    const at = (left: number, top: number, right: number, bottom: number): ChartState =>
      chart({ ticks: [{ axis: 'y', text: '1000', box: { left, top, right, bottom } }] });
    expect(tickLabelsInside(at(0, 0, 400, 180))).toEqual([]);
    expect(tickLabelsInside(at(-0.4, 2, 20, 10))).toEqual([]);
    expect(tickLabelsInside(at(-2.6, 3.8, 20.1, 11.8))).toHaveLength(1);
    expect(tickLabelsInside(at(10, -3, 30, 5))).toHaveLength(1);
    expect(tickLabelsInside(at(380, 100, 402, 110))).toHaveLength(1);
    expect(tickLabelsInside(at(10, 175, 30, 183))[0]?.invariant).toBe('labels-inside');
  });

  test('(d) the y-range covers every finite value (positive ones on a log scale)', () => {
    expect(yRangeCoversData(chart({ yMin: 1, yMax: 9 }))).toEqual([]);
    expect(yRangeCoversData(chart({ yMin: 2, yMax: 10 }))).toHaveLength(1);
    expect(yRangeCoversData(chart({ yMin: 0, yMax: 8 }))[0]?.invariant).toBe('y-covers-data');
    const logChart = chart({
      logY: true,
      yMin: 1,
      yMax: 10,
      series: [{ label: 'r', points: [pt(-5), pt(0), pt(1), pt(10)] }],
    });
    expect(yRangeCoversData(logChart)).toEqual([]);
  });

  test('(d) with outlier trimming on, the range covers the trimmed range and the clipped points are marked', () => {
    const spiky = (markedClipped: number, yMax = 10): ChartState =>
      chart({
        yMin: 0,
        yMax,
        series: [{ label: 'r', points: [pt(1), pt(5), pt(9), pt(1e6)] }],
        trim: { low: 0, high: 10, markedClipped },
      });
    expect(yRangeCoversData(spiky(1))).toEqual([]);
    expect(yRangeCoversData(spiky(0))).toHaveLength(1);
    expect(yRangeCoversData(spiky(1, 8))).toHaveLength(1);
    // Without trimming the same spike must be inside the range.
    expect(yRangeCoversData(chart({ series: [{ label: 'r', points: [pt(1), pt(1e6)] }] }))).toHaveLength(1);
  });

  test('(e) freshness moves when the run list text or status changes after an append', () => {
    const old = { text: 'last event 3 d ago', status: 'idle' };
    expect(freshnessMoved(old, { text: 'last event 0 s ago', status: 'live' })).toEqual([]);
    expect(freshnessMoved(old, { text: 'last event 3 d ago', status: 'live' })).toEqual([]);
    expect(freshnessMoved(old, { ...old })).toEqual([
      { invariant: 'freshness', detail: 'still "last event 3 d ago" (idle) after a row was appended' },
    ]);
  });

  test('(f) each read error needs some visible text naming its file and kind', () => {
    const errors = [{ file: 'bad-crc.wandb', kind: 'bad-data-crc' }];
    expect(readErrorsShown(errors, ['run-x', 'bad-crc.wandb: bad-data-crc at byte 120'])).toEqual([]);
    expect(readErrorsShown(errors, ['bad-crc.wandb', 'bad-data-crc'])).toEqual([
      { invariant: 'read-errors', detail: 'bad-data-crc in bad-crc.wandb is not shown' },
    ]);
    expect(readErrorsShown([], [])).toEqual([]);
  });
});
