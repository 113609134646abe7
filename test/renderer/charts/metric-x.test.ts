// Unit tests of the metric-x chart's pure parts: step colour scale, axis titles, join caption, datasets from pairByStep.

import { describe, expect, test } from 'vitest';
import { pairByStep } from '../../../src/shared/compare/metric-pairs';
import { PALETTE, runDash, withAlpha } from '../../../src/shared/charts/chart-theme';
import {
  joinCaption,
  metricAxisTitles,
  metricChartConfig,
  metricDatasets,
  pairsText,
  STEP_SCALE,
  stepColour,
  stepGradientCss,
  stepRange,
  type PairedRun,
} from '../../../src/renderer/src/charts/metric-x';
import type { ChartTheme } from '../../../src/shared/charts/chart-theme';

/** sRGB relative luminance of `#rrggbb` (WCAG). */
function luminance(hex: string): number {
  const n = parseInt(hex.slice(1), 16);
  const lin = (c: number): number => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

const series = (steps: number[], values: number[]): { steps: number[]; values: number[] } => ({
  steps,
  values,
});

describe('step colour scale', () => {
  test('runs from the first stop to the last, hits the stops exactly and clamps outside [0, 1]', () => {
    expect(stepColour(0)).toBe(STEP_SCALE[0]);
    expect(stepColour(1)).toBe(STEP_SCALE.at(-1));
    expect(stepColour(0.5)).toBe(STEP_SCALE[4]);
    expect(stepColour(-3)).toBe(STEP_SCALE[0]);
    expect(stepColour(7)).toBe(STEP_SCALE.at(-1));
    expect(stepColour(Number.NaN)).toBe(STEP_SCALE[0]);
    expect(stepColour(1 / 16)).toMatch(/^#[0-9a-f]{6}$/);
  });

  test('is sequential: lightness rises with the step, so order reads without hue (grey, colour-blind)', () => {
    const ls = Array.from({ length: 41 }, (_, i) => luminance(stepColour(i / 40)));
    for (let i = 1; i < ls.length; i++) expect(ls[i]!).toBeGreaterThan(ls[i - 1]!);
    // Far apart end to end: the first and last steps differ clearly in lightness alone.
    expect(ls.at(-1)! / ls[0]!).toBeGreaterThan(20);
  });

  test('the legend gradient lists every stop, first step left', () => {
    const css = stepGradientCss();
    expect(css.startsWith('linear-gradient(to right, #440154')).toBe(true);
    for (const c of STEP_SCALE) expect(css).toContain(c);
  });
});

describe('axis titles and join caption', () => {
  test('y is the chart tag, x the chosen metric; the canvas name says both', () => {
    expect(metricAxisTitles('train/kl', 'train/reward')).toEqual({
      x: 'train/kl',
      y: 'train/reward',
      label: 'train/reward against train/kl',
    });
  });

  const run = (name: string, xs: number[], xSteps: number[], ySteps: number[]): PairedRun => ({
    run: name,
    colorIndex: 0,
    pairs: pairByStep(
      series(xSteps, xs),
      series(
        ySteps,
        ySteps.map((s) => s * 2),
      ),
    ),
  });

  test('says same step, interpolated, or each run when they differ; nothing without pairs', () => {
    const same = run('a', [1, 2, 3], [0, 10, 20], [0, 10, 20]);
    const interp = run('b', [1, 2, 3], [0, 10, 20], [5, 15]);
    const none = run('c', [], [], [5, 15]);
    expect(same.pairs.joined).toBe('same-step');
    expect(interp.pairs.joined).toBe('interpolated');
    expect(joinCaption([same], 'kl')).toBe('pairs logged at the same step');
    expect(joinCaption([interp, none], 'kl')).toBe("kl interpolated at this metric's steps");
    expect(joinCaption([same, interp], 'kl')).toBe(
      "a: pairs logged at the same step; b: kl interpolated at this metric's steps",
    );
    expect(joinCaption([none], 'kl')).toBe('');
  });
});

describe('datasets from pairByStep', () => {
  // reward = 10 × kl at every step; kl rises and falls, so x is not monotonic in step.
  const steps = [0, 10, 20, 30, 40];
  const kl = [0.5, 0.1, 0.3, 0.2, 0.4];
  const reward = kl.map((v) => 10 * v);
  const pairs = pairByStep(series(steps, kl), series(steps, reward));
  const runs: PairedRun[] = [
    { run: 'r0', colorIndex: 0, pairs },
    { run: 'r3', colorIndex: 3, pairs: pairByStep(series([20, 40], [1, 2]), series([20, 40], [-1, 3])) },
  ];

  test('points in step order on y = 10 x, coloured by step over the range shared by all runs', () => {
    const range = stepRange(runs);
    expect(range).toEqual({ first: 0, last: 40 });
    const [d0, d3] = metricDatasets(runs, range, false);
    expect(d0!.label).toBe('r0');
    expect(d0!.data.map((p) => p.x)).toEqual(kl);
    for (const p of d0!.data) expect(p.y).toBeCloseTo(10 * p.x, 12);
    const colours = d0!.pointBackgroundColor as string[];
    expect(colours).toEqual(steps.map((s) => stepColour(s / 40)));
    // The second run's steps 20 and 40 take the colours those steps have in the first run.
    expect(d3!.pointBackgroundColor).toEqual([colours[2], colours[4]]);
    // Runs keep their palette colour (faded for the joining line) and dash, as on the step charts.
    expect(d3!.borderColor).toBe(withAlpha(PALETTE[3]!, 0.55));
    expect(d3!.borderDash).toEqual(runDash(3));
    expect(d0!.borderDash).toBeUndefined();
  });

  test('log y leaves out values ≤ 0 with their colours', () => {
    const [, d3] = metricDatasets(runs, stepRange(runs), true);
    expect(d3!.data).toEqual([{ x: 2, y: 3 }]);
    expect(d3!.pointBackgroundColor).toEqual([stepColour(1)]);
  });

  test('a single step draws its points at the last colour; no pairs gives no range', () => {
    const one: PairedRun[] = [
      { run: 'a', colorIndex: 0, pairs: pairByStep(series([5], [1]), series([5], [2])) },
    ];
    expect(stepRange(one)).toEqual({ first: 5, last: 5 });
    expect(metricDatasets(one, stepRange(one), false)[0]!.pointBackgroundColor).toEqual([stepColour(1)]);
    expect(
      stepRange([{ run: 'b', colorIndex: 0, pairs: pairByStep(series([], []), series([1], [1])) }]),
    ).toBe(null);
  });

  test('the chart config titles both axes with the tags and keeps parsing on (x is not sorted)', () => {
    const theme = { muted: '#555555', grid: '#dddddd' } as ChartTheme;
    const cfg = metricChartConfig(
      metricDatasets(runs, stepRange(runs), false),
      { x: 'kl', y: 'reward' },
      theme,
      true,
    );
    const scales = cfg.options!.scales as Record<
      string,
      { type: string; title: { text: string; display: boolean } }
    >;
    expect(scales.x!.title).toMatchObject({ display: true, text: 'kl' });
    expect(scales.y!.title).toMatchObject({ display: true, text: 'reward' });
    expect(scales.x!.type).toBe('linear');
    expect(scales.y!.type).toBe('logarithmic');
    expect(cfg.options!.parsing).toBeUndefined();
  });

  test('the download lists run, step, x and y per pair, tags quoted where CSV needs it', () => {
    const csv = pairsText(runs.slice(0, 1), 'kl,mean', 'reward', 'csv').trim().split('\n');
    expect(csv[0]).toBe('run,step,"kl,mean",reward');
    expect(csv.slice(1)).toEqual(steps.map((s, i) => `r0,${s},${kl[i]},${reward[i]}`));
    const json = JSON.parse(pairsText(runs, 'kl', 'reward', 'json')) as Record<string, unknown>[];
    expect(json).toHaveLength(7);
    expect(json[1]).toEqual({ run: 'r0', step: 10, kl: 0.1, reward: 1 });
  });
});
