// export.figure of a composed chart: a line per run × tag in the run's stable colour and the tag's dash (checked in
// the PNG's pixels and the SVG's paths), legend, title and subtitle as the window's chart says them; the contract's bounds.

import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, test } from 'vitest';
import { svgPaths } from '../../helpers/svg-paths';
import { chartFigure, exportChartFigure, type ChartSource } from '../../../src/core/app/chart-figure';
import { runColor, runDash, tagDash } from '../../../src/shared/charts/chart-theme';
import { MAX_COMPOSED_TAGS } from '../../../src/shared/charts/composed';
import { requestSchemas } from '../../../src/shared/contract';
import type { SeriesWindow } from '../../../src/shared/domain';
import { figureArgs } from './figure-args';

/** The folder's runs, sorted: alpha 0 (blue), beta 1, gamma 2 (bluish green), whichever the chart draws. */
const FOLDER = ['gamma', 'beta', 'alpha'];
/** Each line a constant, so it is a horizontal line of its own: alpha logs three tags, gamma two (no entropy). */
const LOGGED: Record<string, Record<string, number>> = {
  alpha: { loss: 1, kl: 2, entropy: 3 },
  gamma: { loss: 4, kl: 5 },
  beta: { loss: 9, kl: 9, entropy: 9 },
};
const TAGS = ['loss', 'kl', 'entropy'];
const POINTS = 50;

function constantWindow(run: string, tag: string, value: number): SeriesWindow {
  const steps = Float64Array.from({ length: POINTS }, (_, i) => i);
  return {
    run,
    tag,
    steps,
    wallTimes: Float64Array.from(steps, (s) => 1000 + s),
    values: new Float64Array(POINTS).fill(value),
    length: POINTS,
    inRange: POINTS,
    downsampled: false,
    extent: { stepMin: 0, stepMax: POINTS - 1, wallMin: 1000, wallMax: 1000 + POINTS - 1 },
    restarts: [],
    sessions: [
      {
        index: 1,
        startStep: 0,
        endStep: POINTS - 1,
        startWall: 1000,
        endWall: 1000 + POINTS - 1,
        points: POINTS,
      },
    ],
    untimed: 0,
  };
}

const source: ChartSource = {
  runs: () => FOLDER,
  window: (run, tag) => {
    const v = LOGGED[run]?.[tag];
    return v === undefined ? null : constantWindow(run, tag, v);
  },
  alerts: () => [
    // An alert on a composed tag: a composed chart marks none (the window's composed chart has no alerts).
    {
      id: 'x',
      run: 'alpha',
      tag: 'kl',
      step: 10,
      severity: 'critical',
      active: true,
      message: 'KL high',
    } as never,
  ],
  thresholds: () => ({ target_kl: 3 }),
  scope: () => 'classic',
};

/** gamma first, as the window hands its runs; the composed chart named "mix". */
const composed = (over: Partial<Parameters<typeof figureArgs>[0]> = {}) =>
  figureArgs({ runs: ['gamma', 'alpha'], tag: 'mix', tags: TAGS, width: 600, height: 400, ...over });

const hex = (c: string): number[] => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));

/**
 * The horizontal lines of colour `rgb` in a PNG: rows holding it in at least `minColumns` columns, adjacent rows one
 * line; per line its top row and the share of columns between its first and last that hold the colour (1: solid).
 */
async function horizontalLines(
  png: Uint8Array,
  rgb: readonly number[],
  minColumns: number,
): Promise<{ y: number; coverage: number }[]> {
  const img = await loadImage(png);
  const ctx = createCanvas(img.width, img.height).getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  const w = img.width;
  const mask = new Uint8Array(w * img.height);
  for (let p = 0; p < mask.length; p++)
    mask[p] = [0, 1, 2].every((c) => Math.abs(d[p * 4 + c]! - rgb[c]!) < 24) ? 1 : 0;
  const rows: number[] = [];
  for (let y = 0; y < img.height; y++) {
    let n = 0;
    for (let x = 0; x < w; x++) n += mask[y * w + x]!;
    if (n >= minColumns) rows.push(y);
  }
  const groups: number[][] = [];
  for (const y of rows) {
    const last = groups.at(-1);
    if (last && y - last.at(-1)! <= 1) last.push(y);
    else groups.push([y]);
  }
  return groups.map((g) => {
    const cols = Array.from({ length: w }, (_, x) => g.some((y) => mask[y * w + x] === 1));
    const first = cols.indexOf(true);
    const last = cols.lastIndexOf(true);
    const held = cols.slice(first, last + 1).filter(Boolean).length;
    return { y: g[0]!, coverage: held / (last - first + 1) };
  });
}

describe('a composed chart as a figure', () => {
  test('a line per run × tag, tag-major as the window keys them, in the run’s stable colour and the tag’s dash', () => {
    const f = chartFigure(source, composed());
    const spec = f.panels[0]!.spec;
    expect(spec.series.map((s) => [s.run, s.colorIndex, s.dash])).toEqual([
      ['loss · gamma', 2, tagDash(0)],
      ['loss · alpha', 0, tagDash(0)],
      ['kl · gamma', 2, tagDash(1)],
      ['kl · alpha', 0, tagDash(1)],
      ['entropy · alpha', 0, tagDash(2)],
    ]);
    expect(spec.series.map((s) => s.raw[0]!.y)).toEqual([4, 1, 5, 2, 3]);
    expect(tagDash(1)).not.toEqual(tagDash(2));
    // No band, no alert markers: a composed chart's tags are several metrics (the window draws none either).
    expect(spec.band).toBeNull();
    expect(spec.markers).toEqual([]);
    expect(f.title).toBe('mix — loss, kl, entropy');
    expect(f.subtitle).toBe('runs: gamma, alpha · not logged, skipped: entropy (gamma)');
    expect(f.panels[0]!.yTitle).toBe('');
  });

  test('one run: its lines are named by tag alone, the run in the subtitle; a tag chart is unchanged', () => {
    const f = chartFigure(source, composed({ runs: ['gamma'] }));
    expect(f.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex, s.dash])).toEqual([
      ['loss', 2, tagDash(0)],
      ['kl', 2, tagDash(1)],
    ]);
    expect(f.subtitle).toBe('run: gamma · not logged, skipped: entropy');
    // Without tags: the tag's chart, each run's own dash (none given: the palette's), the band and the alert.
    const one = chartFigure(source, figureArgs({ runs: ['gamma', 'alpha'], tag: 'kl' }));
    expect(one.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex, s.dash])).toEqual([
      ['gamma', 2, undefined],
      ['alpha', 0, undefined],
    ]);
    expect(one.panels[0]!.spec.markers).toHaveLength(1);
    expect(runDash(2)).toEqual([]);
  });

  test('no run logs any of the tags: not-found, naming them', () => {
    expect(() => chartFigure(source, composed({ tags: ['nope', 'neither'] }))).toThrow(
      /no series nope, neither in these runs/,
    );
  });

  test('the PNG: each run’s lines in its colour, solid, dashed and dotted by tag, at the values logged', async () => {
    const png = await exportChartFigure(source, composed({ scale: 2 }));
    expect(png).toMatchObject({ fileName: 'mix.png', mime: 'image/png', width: 1200, height: 800 });
    const blue = await horizontalLines(png.bytes, hex(runColor(0)), 200);
    const green = await horizontalLines(png.bytes, hex(runColor(2)), 200);
    // Top to bottom, highest value first: alpha's entropy (3), kl (2), loss (1); gamma's kl (5), loss (4).
    expect(blue).toHaveLength(3);
    expect(green).toHaveLength(2);
    expect(Math.max(...green.map((l) => l.y))).toBeLessThan(Math.min(...blue.map((l) => l.y)));
    // Values 5, 4, 3, 2, 1 on a linear axis: five lines one step apart.
    const ys = [...green, ...blue].map((l) => l.y);
    const gaps = ys.slice(1).map((y, i) => y - ys[i]!);
    for (const g of gaps) expect(Math.abs(g - gaps[0]!)).toBeLessThanOrEqual(2);
    expect(gaps[0]).toBeGreaterThan(50);
    const [entropy, kl, loss] = blue;
    // loss solid; kl [8, 4]: two thirds of its length; entropy [2, 3]: two fifths (anti-aliasing widens each dash).
    expect(loss!.coverage).toBeGreaterThan(0.97);
    expect(kl!.coverage).toBeGreaterThan(0.55);
    expect(kl!.coverage).toBeLessThan(0.85);
    expect(entropy!.coverage).toBeGreaterThan(0.3);
    expect(entropy!.coverage).toBeLessThan(0.6);
    expect(green[1]!.coverage).toBeGreaterThan(0.97);
    expect(green[0]!.coverage).toBeGreaterThan(0.55);
    expect(green[0]!.coverage).toBeLessThan(0.85);
    // beta is not charted: not a pixel of its colour.
    expect(await horizontalLines(png.bytes, hex(runColor(1)), 20)).toEqual([]);
  });

  test('the SVG: per run, its first tag’s line a stroked path, its second and third tags’ dashed outlines', async () => {
    const svgOf = async (over: Parameters<typeof composed>[0]): Promise<string> => {
      const f = await exportChartFigure(source, composed({ format: 'svg', ...over }));
      expect(f).toMatchObject({ fileName: 'mix.svg', mime: 'image/svg+xml' });
      return Buffer.from(f.bytes).toString('utf8');
    };
    const svg = await svgOf({});
    // alpha: loss solid, kl and entropy dashed; gamma: loss solid, kl dashed (no entropy).
    expect(svgPaths(svg, runColor(0))).toEqual({ stroked: 1, dashed: 2 });
    expect(svgPaths(svg, runColor(2))).toEqual({ stroked: 1, dashed: 1 });
    // Only the first tag: every line solid.
    expect(svgPaths(await svgOf({ tags: ['loss'] }), runColor(0))).toEqual({ stroked: 1, dashed: 0 });
    // The legend names tag and run.
    expect(svg).toContain('kl · alpha');
    expect(svg).toContain('entropy · alpha');
  });
});

describe("the contract's tags", () => {
  const parse = (over: object): boolean =>
    requestSchemas['export.figure'].safeParse({ ...figureArgs(), ...over }).success;

  test('a composed chart takes 1 to MAX_COMPOSED_TAGS distinct tags; absent: the tag’s chart', () => {
    const many = (n: number): string[] => Array.from({ length: n }, (_, i) => `t${i}`);
    expect(parse({})).toBe(true);
    expect(parse({ tags: ['a'] })).toBe(true);
    expect(parse({ tags: many(MAX_COMPOSED_TAGS) })).toBe(true);
    expect(parse({ tags: many(MAX_COMPOSED_TAGS + 1) })).toBe(false);
    expect(parse({ tags: [] })).toBe(false);
    expect(parse({ tags: ['a', 'b', 'a'] })).toBe(false);
    expect(parse({ tags: ['a', ''] })).toBe(false);
    expect(parse({ tags: ['a', 'x'.repeat(4097)] })).toBe(false);
    expect(parse({ tags: 'a' })).toBe(false);
    expect(parse({ tags: [1, 2] })).toBe(false);
  });
});
