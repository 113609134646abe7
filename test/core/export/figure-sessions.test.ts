// Figures after a restart: the live line as the dashboard draws it, every earlier session whole (faded), and the
// panel says so; writers written at once are separate series.

import { describe, expect, test } from 'vitest';
import { figureLines, withEarlier } from '../../../src/core/export/figure-series';
import { planRunFigures, shownSeries } from '../../../src/core/export/figure-set';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { panelNotes } from '../../../src/shared/charts/figure-notes';
import { legendEntries } from '../../../src/shared/charts/legend';

/** Session 1: 44 updates, KL 0.01 then 0.65 from update 30 (the blow-up); killed; session 2 from 0: 31 updates at 0.008. */
function crashed(): ScalarSeries[] {
  const first = new ScalarSeries();
  for (let k = 1; k <= 44; k++) first.append(k * 1024, 1000 + k, k < 30 ? 0.01 : 0.65);
  const second = new ScalarSeries();
  for (let k = 1; k <= 31; k++) second.append(k * 1024, 9000 + k, 0.008);
  return [first, second];
}

const maxY = (pts: { y: number }[]): number => Math.max(...pts.map((p) => p.y));

describe('figures and sessions', () => {
  test("the crashed session's blow-up is drawn, faded, beside the current session; notes say so", () => {
    const lines = figureLines('ppo', crashed(), { xAxis: 'step', smoothing: 0, pixels: 800 });
    expect(lines.raw).toHaveLength(31);
    expect(maxY(lines.raw)).toBeCloseTo(0.008, 6);
    expect(lines.restarts).toEqual([{ step: 1024, wallTime: 9001 }]);
    expect(lines.earlier).toHaveLength(1);
    expect(lines.earlier[0]!.raw).toHaveLength(44);
    expect(maxY(lines.earlier[0]!.raw)).toBeCloseTo(0.65, 6);
    const drawn = withEarlier([lines]);
    expect(drawn.map((s) => [s.run, s.faded ?? false, s.colorIndex ?? 0])).toEqual([
      ['ppo', false, 0],
      ['ppo · session 1', true, 0],
    ]);
    // The legend lists the run once; the notes name the faded session.
    expect(legendEntries(drawn).map((e) => e.run)).toEqual(['ppo']);
    const notes = panelNotes({
      view: { xAxis: 'step', logY: false, smoothing: 0 },
      series: drawn,
      band: null,
    });
    expect(notes).toContain('1 earlier session dashed and faded (every point it wrote)');
    expect(
      figureLines('ppo', crashed(), { xAxis: 'step', smoothing: 0, pixels: 800, currentOnly: true }).earlier,
    ).toEqual([]);
  });

  test("a run's figure set draws the earlier session in the tag's panel", () => {
    const plan = planRunFigures(
      { run: 'ppo', series: new Map([['train/approx_kl', crashed()]]), thresholds: {} },
      { smoothing: 0, pixels: 800 },
    );
    const panels = plan.figures.flatMap((f) => f.build().panels);
    const kl = panels.find((p) => p.title === 'train/approx_kl')!;
    expect(kl.spec.series.filter((s) => s.faded).map((s) => s.raw.length)).toEqual([44]);
  });

  test('shownSeries: files written at the same time are two series, the second named by its writer', () => {
    const train = new ScalarSeries();
    const test_ = new ScalarSeries();
    for (let k = 0; k < 10; k++) {
      train.append(k, 100 + k, 1 - k / 10);
      test_.append(k, 100.5 + k, 2 - k / 10);
    }
    const names = new Map([
      [train, 'events.out.tfevents.1.h.19.0.v2'],
      [test_, 'events.out.tfevents.1.h.19.1.v2'],
    ]);
    const shown = shownSeries(
      new Map([['loss', [train, test_]]]),
      () => 'tfevents',
      (s) => names.get(s)!,
    );
    expect([...shown.keys()]).toEqual(['loss', 'loss (writer 2)']);
    expect(shown.get('loss')).toEqual([train]);
  });
});
