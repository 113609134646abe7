// The standalone figure's panel configuration: its legend lists the runs drawn, as the dashboard's does.

import type { LegendItem } from 'chart.js';
import { describe, expect, test } from 'vitest';
import { runColor } from '../../../src/shared/charts/chart-theme';
import { figureTheme, panelConfiguration, type FigurePanel } from '../../../src/shared/charts/figure';

const panel = (series: FigurePanel['spec']['series']): FigurePanel => ({
  title: 'approx_kl',
  spec: { view: { xAxis: 'step', logY: false, smoothing: 0 }, series, band: null },
});

function legend(p: FigurePanel): { display: boolean; items: LegendItem[] } {
  const labels = panelConfiguration(p, figureTheme('light')).options!.plugins!.legend!;
  const gen = labels.labels!.generateLabels as unknown as () => LegendItem[];
  return { display: labels.display === true, items: gen() };
}

describe('figure legend', () => {
  test('a run with no drawable point in this chart is not listed; the others keep their line colour', () => {
    const pts = [{ x: 0, y: 1 }];
    const { display, items } = legend(
      panel([
        { run: 'empty', raw: [], smoothed: [] },
        { run: 'nan-only', raw: [{ x: 0, y: Number.NaN }], smoothed: [] },
        { run: 'b', raw: pts, smoothed: pts },
      ]),
    );
    expect(display).toBe(true);
    expect(items.map((i) => [i.text, i.fillStyle])).toEqual([['b', runColor(2)]]);
  });

  test('no run drawn: no legend', () => {
    expect(legend(panel([{ run: 'empty', raw: [], smoothed: [] }])).display).toBe(false);
  });
});
