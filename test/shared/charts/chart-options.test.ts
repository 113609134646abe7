// The pure chart definition: log vs linear y, step vs wall x labels, the band's range, theme colours, datasets.

import type { Scale } from 'chart.js';
import { describe, expect, test } from 'vitest';
import {
  bandRange,
  chartConfiguration,
  chartOptions,
  lineDatasets,
  overlayPoints,
  RIGHT_PADDING,
  TOP_PADDING,
  xScaleOptions,
  yBounds,
  roundTicksWithin,
  tickDigits,
  yTickLabel,
  yScaleOptions,
  type ScaleOptions,
} from '../../../src/shared/charts/chart-options';
import type { ChartSpec, SeriesLines } from '../../../src/shared/charts/chart-spec';
import type { BandRange } from '../../../src/shared/charts/band';
import { runColor, withAlpha, type ChartTheme } from '../../../src/shared/charts/chart-theme';
import type { OverlayState } from '../../../src/shared/charts/overlay-plugin';
import type { ViewOptions } from '../../../src/shared/charts/series-model';
import { fitY } from '../../../src/shared/charts/y-range';

const theme: ChartTheme = {
  text: '#010101',
  muted: '#020202',
  grid: '#030303',
  panel: '#040404',
  warning: '#050505',
  critical: '#060606',
  band: 'rgba(1, 2, 3, 0.1)',
  target: 'rgba(4, 5, 6, 0.9)',
  restart: '#070707',
  focus: '#080808',
  dark: true,
};

const lines = (run: string): SeriesLines => ({
  run,
  raw: [
    { x: 0, y: 1 },
    { x: 1, y: 2 },
  ],
  smoothed: [
    { x: 0, y: 1 },
    { x: 1, y: 1.5 },
  ],
});

function spec(view: Partial<ViewOptions> = {}, over: Partial<ChartSpec> = {}): ChartSpec {
  return {
    view: { xAxis: 'step', logY: false, smoothing: 0, ...view },
    series: [lines('a')],
    band: null,
    ...over,
  };
}

/** Calls a scale's tick callback as chart.js does (`this` is the scale, with its visible min and max). */
function tickLabel(scale: ScaleOptions, value: number, min = 0, max = 100): unknown {
  const ticks = (
    scale as { ticks: { callback: (this: Partial<Scale>, v: number, i: number, t: []) => unknown } }
  ).ticks;
  return ticks.callback.call({ min, max }, value, 0, []);
}

describe('y axis', () => {
  test('linear by default, logarithmic with log y', () => {
    expect(yScaleOptions(false, null, theme).type).toBe('linear');
    expect(yScaleOptions(true, null, theme).type).toBe('logarithmic');
    expect(chartOptions(spec({ logY: true }), theme).scales!.y!.type).toBe('logarithmic');
  });

  test('log y labels only powers of ten; linear y labels every tick with the shared formatter', () => {
    const log = yScaleOptions(true, null, theme);
    expect(tickLabel(log, 100)).toBe('100');
    expect(tickLabel(log, 0.0001)).toBe('1.00e-4');
    expect(tickLabel(log, 50)).toBe('');
    const linear = yScaleOptions(false, null, theme);
    expect(tickLabel(linear, 50)).toBe('50');
    expect(tickLabel(linear, 0.123456)).toBe('0.1235');
  });
});

describe('x axis', () => {
  test('step axis labels compact steps', () => {
    const x = xScaleOptions('step', theme);
    expect(x.type).toBe('linear');
    expect(tickLabel(x, 12_000)).toBe('12k');
    expect((x as { title: { text: string } }).title.text).toBe('step');
  });

  test('a zoomed step axis labels every tick apart: as many digits as neighbouring ticks need', () => {
    const x = xScaleOptions('step', theme);
    const callback = (
      x as {
        ticks: { callback: (this: Partial<Scale>, v: number, i: number, t: { value: number }[]) => unknown };
      }
    ).ticks.callback;
    const labels = (values: number[]): unknown[] =>
      values.map((v, i) =>
        callback.call(
          { min: values[0], max: values[values.length - 1] },
          v,
          i,
          values.map((value) => ({ value })),
        ),
      );
    expect(labels([20_020, 20_040, 20_060, 20_080])).toEqual(['20.02k', '20.04k', '20.06k', '20.08k']);
    expect(labels([2_000_001, 2_000_002, 2_000_003])).toEqual(['2.000001M', '2.000002M', '2.000003M']);
    expect(labels([0, 20_000, 40_000])).toEqual(['0', '20k', '40k']);
  });

  test('the x axis ends where the data ends, not at the next round tick; its ticks stay round', () => {
    for (const mode of ['step', 'relative', 'wall'] as const)
      expect((xScaleOptions(mode, theme) as { bounds?: string }).bounds).toBe('data');
    // chart.js with bounds 'data' counts from the data's first x: 25, 1025, … and ends on the last.
    const fromData = [25, 1025, 2025, 3025, 4025, 5000].map((value) => ({ value }));
    expect(roundTicksWithin(fromData, 25, 5000).map((t) => t.value)).toEqual([1000, 2000, 3000, 4000, 5000]);
    const sb3 = [2048, 202048, 402048, 601600].map((value) => ({ value }));
    expect(roundTicksWithin(sb3, 2048, 601600).map((t) => t.value)).toEqual([200000, 400000, 600000]);
    expect(
      roundTicksWithin([{ value: 0.1 }, { value: 0.2 }, { value: 0.3 }], 0.1, 0.3).map((t) => t.value),
    ).toEqual([0.1, 0.2, 0.3]);
  });

  test('wall axis labels clock times (with the date when the visible span is over a day)', () => {
    const x = xScaleOptions('wall', theme);
    const at = new Date(2026, 0, 2, 3, 4, 5).getTime() / 1000;
    expect(tickLabel(x, at, at - 60, at + 60)).toBe('03:04:05');
    expect(tickLabel(x, at, at - 2 * 86400, at)).toBe('2026-01-02 03:04');
    expect((x as { title: { text: string } }).title.text).toBe('wall time');
  });

  test('relative axis labels durations; the options follow the spec view', () => {
    const x = chartOptions(spec({ xAxis: 'relative' }), theme).scales!.x!;
    expect(tickLabel(x, 200)).toBe('3m 20s');
  });
});

describe('band', () => {
  test('absent: no suggested y-range', () => {
    const y = yScaleOptions(false, null, theme);
    expect(y.suggestedMin).toBeUndefined();
    expect(y.suggestedMax).toBeUndefined();
  });

  test('present: the y-range covers its finite edges', () => {
    const y = chartOptions(spec({}, { band: { min: 0.1, max: 0.3, target: null } }), theme).scales!.y!;
    expect(y.suggestedMin).toBe(0.1);
    expect(y.suggestedMax).toBe(0.3);
    expect(bandRange({ min: null, max: 0.02, target: 0.02 }, false)).toEqual({
      suggestedMin: undefined,
      suggestedMax: 0.02,
    });
  });

  test('log y drops edges a log axis cannot show (≤ 0)', () => {
    expect(bandRange({ min: 0, max: 5, target: null }, true)).toEqual({
      suggestedMin: undefined,
      suggestedMax: 5,
    });
    expect(bandRange({ min: 0, max: 5, target: null }, false)).toEqual({ suggestedMin: 0, suggestedMax: 5 });
  });

  test('the overlay fills the spec band in the theme colour, or draws the state it is given', () => {
    const band: BandRange = { min: 0.1, max: 0.3, target: null };
    const fills: { style: unknown; rect: number[] }[] = [];
    const ctx = {
      fillStyle: '' as unknown,
      save() {},
      restore() {},
      fillRect(...rect: number[]) {
        fills.push({ style: this.fillStyle, rect });
      },
    };
    // y: value v at pixel 100 - 100v, the plot area 0..100 on both axes.
    const chart = {
      ctx,
      chartArea: { left: 0, right: 100, top: 0, bottom: 100 },
      scales: { y: { type: 'linear', getPixelForValue: (v: number) => 100 - 100 * v } },
    };
    const drawBand = (config: ReturnType<typeof chartConfiguration>): void => {
      const hook = config.plugins![0]!.beforeDatasetsDraw as unknown as (c: typeof chart) => void;
      hook(chart);
    };
    drawBand(chartConfiguration(spec({}, { band }), theme));
    expect(fills).toEqual([{ style: theme.band, rect: [0, 70, 100, 20] }]);

    fills.length = 0;
    drawBand(chartConfiguration(spec(), theme));
    expect(fills).toEqual([]);

    const live: OverlayState = { theme, band: null, markers: [] };
    const config = chartConfiguration(spec(), theme, live);
    live.band = { min: 0.5, max: null, target: 0.5 };
    drawBand(config);
    expect(fills).toEqual([{ style: theme.band, rect: [0, 0, 100, 50] }]);
  });
});

describe('theme', () => {
  test('grid and tick colours come from the theme on both axes', () => {
    const { x, y } = chartOptions(spec(), theme).scales! as Record<
      string,
      Record<string, { color?: string }>
    >;
    for (const scale of [x!, y!]) {
      expect(scale.grid!.color).toBe(theme.grid);
      expect(scale.border!.color).toBe(theme.grid);
      expect(scale.ticks!.color).toBe(theme.muted);
    }
  });

  test('another theme, other colours', () => {
    const light = { ...theme, grid: '#d8dde3', muted: '#5b6470' };
    const y = yScaleOptions(false, null, light) as { grid: { color: string }; ticks: { color: string } };
    expect(y.grid.color).toBe('#d8dde3');
    expect(y.ticks.color).toBe('#5b6470');
  });
});

describe('datasets', () => {
  test('one line per run in palette order, without smoothing', () => {
    const ds = lineDatasets([lines('a'), lines('b')], 0);
    expect(ds.map((d) => d.label)).toEqual(['a', 'b']);
    expect(ds.map((d) => d.borderColor)).toEqual([runColor(0), runColor(1)]);
    expect(ds[0]!.borderWidth).toBe(1.5);
  });

  test('with smoothing: a faint raw line under a full-colour smoothed one', () => {
    const ds = lineDatasets([lines('a')], 0.6);
    expect(ds.map((d) => d.label)).toEqual(['a', 'a (smoothed)']);
    expect(ds[0]!.borderColor).toBe(withAlpha(runColor(0), 0.28));
    expect(ds[1]!.borderColor).toBe(runColor(0));
    expect(ds[1]!.data).toEqual(lines('a').smoothed);
  });

  test('the configuration is a static line chart of those datasets', () => {
    const config = chartConfiguration(spec({ smoothing: 0.5 }, { series: [lines('a'), lines('b')] }), theme);
    expect(config.type).toBe('line');
    expect(config.data.datasets).toHaveLength(4);
    expect(config.options).toMatchObject({ animation: false, responsive: false, parsing: false, events: [] });
  });
});

describe('truthful y-axes', () => {
  const ticks = (...values: number[]): { value: number }[] => values.map((value) => ({ value }));
  const labels = (logY: boolean, ...values: number[]): string[] =>
    values.map((v, i, all) => yTickLabel(logY)(v, i, ticks(...all)));

  test('tick labels carry as many digits as it takes to differ', () => {
    // A narrow range: chart.js's ticks 722.5179 … 722.5181 all read "722.5" at four digits.
    expect(labels(false, 722.51795, 722.518, 722.51805, 722.5181)).toEqual([
      '722.51795',
      '722.518',
      '722.51805',
      '722.5181',
    ]);
    expect(labels(false, 1.4, 1.5, 1.6)).toEqual(['1.4', '1.5', '1.6']);
    expect(labels(false, 1, 2, 3)).toEqual(['1', '2', '3']);
    expect(tickDigits([0.1, 0.2])).toBe(4);
  });

  test('a lone tick shows its value in full (a single value, a flat series)', () => {
    expect(labels(false, 54713.18)).toEqual(['54713.18']);
    expect(labels(false, Math.fround(0.1))).toEqual(['0.1']);
    expect(labels(false, 5.27162132754432e20)).toEqual(['5.27162132754432e+20']);
  });

  test('log y labels the powers of ten, and a lone tick whatever it is', () => {
    expect(labels(true, 1, 2, 10, 20, 100)).toEqual(['1', '', '10', '', '100']);
    expect(labels(true, 1.5)).toEqual(['1.5']);
  });

  test('a flat series gets room around it and one tick at its value', () => {
    const b = yBounds(null, false, fitY([{ raw: [{ x: 0, y: 1.5 }] }], false, false));
    expect([b.suggestedMin, b.suggestedMax]).toEqual([1.35, 1.65]);
    const scale = { ticks: [{ value: 1.4 }, { value: 1.5 }, { value: 1.6 }] };
    b.afterBuildTicks!(scale as unknown as Scale);
    expect(scale.ticks).toEqual([{ value: 1.5 }]);
  });

  test('a band widens a flat range and keeps the usual ticks', () => {
    const b = yBounds(
      { min: 0, max: 10, target: null },
      false,
      fitY([{ raw: [{ x: 0, y: 1.5 }] }], false, false),
    );
    expect([b.suggestedMin, b.suggestedMax]).toEqual([0, 10]);
    expect(b.afterBuildTicks).toBeUndefined();
  });

  test('ignoring outliers gives hard bounds; otherwise none', () => {
    const spiky = {
      raw: [...Array.from({ length: 50 }, (_, x) => ({ x, y: 1 + (x % 5) / 100 })), { x: 50, y: 900 }],
    };
    expect(yBounds(null, false, fitY([spiky], false, false)).max).toBeUndefined();
    expect(yBounds(null, false, fitY([spiky], false, true)).max).toBeLessThan(2);
  });

  test('the options leave room above the top tick and measure every y label', () => {
    const o = chartOptions(spec(), theme);
    expect(o.layout).toEqual({ padding: { top: TOP_PADDING, right: RIGHT_PADDING } });
    expect((o.scales!.y as { ticks: { sampleSize?: number } }).ticks.sampleSize).toBeUndefined();
    const logTicks = (yScaleOptions(true, null, theme) as { ticks: { maxTicksLimit?: number } }).ticks;
    expect(logTicks.maxTicksLimit).toBeUndefined();
    expect((o.scales!.y as { ticks: { includeBounds?: boolean } }).ticks.includeBounds).toBe(false);
  });

  test('the overlay gets lone points as dots in their run colour, and clipped points when outliers are ignored', () => {
    const a: SeriesLines = { run: 'a', raw: [{ x: 0, y: 1 }], smoothed: [] };
    const b: SeriesLines = {
      run: 'b',
      raw: [...Array.from({ length: 50 }, (_, x) => ({ x, y: 1 })), { x: 50, y: 1 }, { x: 51, y: 500 }],
      smoothed: [],
    };
    const fit = fitY([a, b], false, true);
    const o = overlayPoints([a, b], fit);
    expect(o.dots).toEqual([{ x: 0, y: 1, colour: runColor(0) }]);
    expect(o.clipped).toEqual([{ x: 51, above: true, colour: runColor(1) }]);
  });
});
