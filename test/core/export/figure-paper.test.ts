// The paper preset: a column-sized figure at 300 dpi with 8–9 pt text and thin lines, the band's meaning kept whole in
// the caption, and the health bands switch.

import { describe, expect, test } from 'vitest';
import { renderFigure } from '../../../src/core/export/figure-render';
import {
  figureTheme,
  panelConfiguration,
  withoutHealthBands,
  type Figure,
} from '../../../src/shared/charts/figure';
import { captionLines, FIGURE_STYLES, PAPER_SIZE } from '../../../src/shared/charts/figure-style';
import { drawnGroups } from '../../../src/shared/charts/group-bands';
import type { Pt } from '../../../src/shared/charts/series-model';
import { BAND_MEANING } from '../../../src/shared/compare/group-stats';

const line = (k: number, last = 100): Pt[] =>
  Array.from({ length: last / 10 + 1 }, (_, i) => ({ x: i * 10, y: i * 10 + k * 3 + Math.sin(i + k) }));

/** A seed group's figure as the export builds one: the band's meaning first in the caption, then the runs. */
function groupFigure(): Figure {
  const drawn = drawnGroups(
    [{ label: 'learning_rate=3e-4', runs: ['PPO_1', 'PPO_2', 'PPO_3'], seeds: ['seed'], colorIndex: 0 }],
    (r) => (r === 'PPO_3' ? line(3, 60) : line(Number(r.slice(-1)))),
    'ci95',
    50,
  );
  return {
    title: 'Seed group learning_rate=3e-4 (over seed ×3): reward',
    subtitle: [
      `${BAND_MEANING.ci95}; learning_rate=3e-4: n = 2 of 3 after step 60`,
      'learning_rate=3e-4: 3 runs',
    ].join(' · '),
    panels: [
      {
        title: 'reward',
        spec: {
          view: { xAxis: 'step', logY: false, smoothing: 0 },
          series: [],
          band: { min: 10, max: 90, target: null },
        },
        groups: { drawn, iqm: false },
      },
    ],
  };
}

/** The text of an SVG's <text> elements. */
const svgText = (svg: Buffer): string[] =>
  [...svg.toString('utf8').matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

describe('the paper preset', () => {
  test('a PNG of one column at 300 dpi: 3.5 in wide, its density written', () => {
    const png = renderFigure(groupFigure(), {
      format: 'png',
      ...PAPER_SIZE,
      theme: 'light',
      style: 'paper',
    });
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1050, 788]);
    const phys = png.indexOf('pHYs');
    expect(png.readUInt32BE(phys + 4)).toBe(Math.round(300 * 39.3701));
  });

  test('the caption keeps what the band means whole, wrapped over lines (the screen look cuts it at this width)', () => {
    const paper = svgText(
      renderFigure(groupFigure(), { format: 'svg', ...PAPER_SIZE, theme: 'light', style: 'paper' }),
    ).join(' ');
    expect(paper).toContain('95 % bootstrap confidence interval of the mean');
    expect(paper).toContain('n = 2 of 3 after step 60');
    expect(paper).not.toContain('…');
    const screen = svgText(
      renderFigure(groupFigure(), { format: 'svg', ...PAPER_SIZE, theme: 'light' }),
    ).join(' ');
    expect(screen).toContain('…');
  });

  test('paper-sized text (8–9 pt) and lines (1–1.5 px) on the panel', () => {
    const paper = FIGURE_STYLES.paper;
    expect(paper.textPx).toBeCloseTo((8 * 96) / 72);
    expect(paper.titlePx).toBeCloseTo((9 * 96) / 72);
    const fig = groupFigure();
    const config = panelConfiguration(fig.panels[0]!, figureTheme('light'), 1, 336, paper);
    const mean = config.data.datasets.find((d) => d.label?.endsWith('(mean)'))!;
    expect(mean.borderWidth).toBe(1.5);
    const plugins = config.options!.plugins!;
    expect((plugins.legend!.labels!.font as { size: number }).size).toBeCloseTo(paper.textPx);
    expect((plugins.title!.font as { size: number }).size).toBeCloseTo(paper.panelTitlePx);
    const ticks = (config.options!.scales!.x as { ticks: { font: { size: number } } }).ticks;
    expect(ticks.font.size).toBeCloseTo(paper.textPx);
    // The screen look as before: 11 px text, a 2 px mean line.
    const screen = panelConfiguration(fig.panels[0]!, figureTheme('light'), 1, 800);
    expect(screen.data.datasets.find((d) => d.label?.endsWith('(mean)'))!.borderWidth).toBe(2);
    expect((screen.options!.plugins!.legend!.labels!.font as { size: number }).size).toBe(11);
  });

  test('captionLines wraps at " · " and at spaces, and cuts only past its line budget', () => {
    const measure = (s: string): number => s.length;
    expect(captionLines('aaa · bbb · cc', 9, 3, measure)).toEqual(['aaa · bbb', 'cc']);
    expect(captionLines('one two three four', 8, 4, measure)).toEqual(['one two', 'three', 'four']);
    expect(captionLines('one two three four', 8, 2, measure)).toEqual(['one two', 'three four']);
    expect(captionLines('', 8, 2, measure)).toEqual([]);
  });

  test('the health bands switch: the shaded range is drawn, or not; the groups stay', () => {
    const fig = groupFigure();
    expect(withoutHealthBands(fig).panels[0]!.spec.band).toBeNull();
    expect(withoutHealthBands(fig).panels[0]!.groups).toBe(fig.panels[0]!.groups);
    // The healthy band's fill is the theme's band colour; the group band is its own colour.
    const fill = figureTheme('light').band;
    const on = renderFigure(fig, { format: 'svg', ...PAPER_SIZE, theme: 'light', style: 'paper' });
    const off = renderFigure(fig, {
      format: 'svg',
      ...PAPER_SIZE,
      theme: 'light',
      style: 'paper',
      healthBands: false,
    });
    const shaded = (svg: Buffer): boolean =>
      /fill="rgb\(22,\s*163,\s*74\)"|#16a34a/i.test(svg.toString('utf8'));
    expect(fill).toContain('22, 163, 74');
    expect(shaded(on)).toBe(true);
    expect(shaded(off)).toBe(false);
  });
});
