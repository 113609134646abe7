// Seed group figures: which runs group, the files planned, the band drawn against groupBand, and what the figure says.

import { describe, expect, test } from 'vitest';
import { svgTextRuns } from '../../../src/core/export/figure-render';
import { GroupFigures, type GroupFigureOptions } from '../../../src/core/export/group-figures';
import type { FigureRun } from '../../../src/core/export/figure-set';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { figureTheme, panelConfiguration } from '../../../src/shared/charts/figure';
import { runColor } from '../../../src/shared/charts/chart-theme';
import { BAND_POINTS } from '../../../src/shared/charts/group-bands';
import type { Pt } from '../../../src/shared/charts/series-model';
import { BAND_MEANING, groupBand, type StepSeries } from '../../../src/shared/compare/group-stats';

const REWARD = 'rollout/ep_rew_mean';
const LOSS = 'train/loss';

/** A run's reward: a per-config base, a per-seed offset and wiggle (seeds cross each other along the run). */
const reward = (base: number, seed: number, step: number): number =>
  base + step / 100 + Math.sin(step / 30 + seed) + seed * 0.5;

function series(last: number, f: (step: number) => number): ScalarSeries {
  const s = new ScalarSeries(64, 'f64');
  for (let step = 0; step <= last; step += 10) s.append(step, 1_700_000_000 + step, f(step));
  return s;
}

interface TestRun {
  run: FigureRun;
  config: Record<string, unknown> | null;
  steps: number[];
  values: number[];
}

function testRun(name: string, lr: number, seed: number, last = 500, tags = [REWARD, LOSS]): TestRun {
  const base = lr === 0.1 ? 0 : 10;
  const s = series(last, (step) => reward(base, seed, step));
  const steps: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < s.length; i++) {
    steps.push(s.step(i));
    values.push(s.value(i));
  }
  return {
    run: {
      run: name,
      series: new Map(tags.map((t) => [t, [t === REWARD ? s : series(last, (x) => 1 / (1 + x))]])),
      thresholds: {},
    },
    config: { lr, seed, output_dir: `/runs/${name}` },
    steps,
    values,
  };
}

const OPTS: GroupFigureOptions = { smoothing: 0, pixels: 1600, band: 'minmax', iqm: false };

function collect(runs: readonly TestRun[], o: Partial<GroupFigureOptions> = {}): GroupFigures {
  const g = new GroupFigures({ ...OPTS, ...o });
  for (const r of runs) g.add(r.run, r.config);
  return g;
}

const SIX = [0.1, 0.01].flatMap((lr) => [0, 1, 2].map((seed) => testRun(`lr${lr}_seed${seed}`, lr, seed)));

describe('planned files', () => {
  test('per group and shared tag a figure under groups/GROUP/, the groups compared under groups/comparison/', () => {
    const plan = collect(SIX).plan();
    expect(plan.figures.map((f) => f.name).sort()).toEqual([
      'groups/comparison/rollout__ep_rew_mean',
      'groups/comparison/train__loss',
      'groups/lr=0.01/rollout__ep_rew_mean',
      'groups/lr=0.01/train__loss',
      'groups/lr=0.1/rollout__ep_rew_mean',
      'groups/lr=0.1/train__loss',
    ]);
    expect(plan.notices).toEqual([]);
  });

  test('a group is foldered by a safe form of its name: what sets it apart, listed keys joined by _', () => {
    const runs = [0.1, 0.01].flatMap((lr) =>
      [0, 1].map((seed) => {
        const r = testRun(`run${lr}_seed${seed}`, lr, seed);
        return { ...r, config: { ...r.config, clip: lr === 0.1 ? 0.2 : 0.3 } };
      }),
    );
    const dirs = new Set(
      collect(runs)
        .plan()
        .figures.map((f) => f.name.split('/')[1]),
    );
    expect([...dirs].sort()).toEqual(['clip=0.2_lr=0.1', 'clip=0.3_lr=0.01', 'comparison']);
  });

  test('a group named like the comparison folder, or with unsafe characters, gets a safe distinct folder', () => {
    // Runs without a config are grouped, and named, by their names.
    const runs = [
      ...[0, 1].map((s) => ({ ...testRun(`comparison_seed${s}`, 0.1, s), config: null })),
      ...[0, 1].map((s) => ({ ...testRun(`a/b:c_seed${s}`, 0.01, s), config: null })),
    ];
    const dirs = new Set(
      collect(runs)
        .plan()
        .figures.map((f) => f.name.split('/')[1]),
    );
    expect([...dirs].sort()).toEqual(['a__b_c', 'comparison', 'comparison-2']);
  });

  test('runs in no seed group are left out and named in a notice; one group makes no comparison', () => {
    const runs = [...SIX.slice(0, 3), testRun('solo_seed0', 0.5, 0), testRun('other', 0.7, 1)];
    const plan = collect(runs).plan();
    expect(plan.figures.map((f) => f.name).sort()).toEqual([
      'groups/lr=0.1/rollout__ep_rew_mean',
      'groups/lr=0.1/train__loss',
    ]);
    expect(plan.notices).toEqual([
      'groups/ leaves out 2 runs in no seed group (no other run differs from it only in its seed): solo_seed0, other',
    ]);
  });

  test('no seed group at all: no figure, and said', () => {
    const plan = collect([testRun('a', 0.1, 0), testRun('b', 0.01, 0)]).plan();
    expect(plan.figures).toEqual([]);
    expect(plan.notices[0]).toMatch(/^no seed groups: no two of the 2 runs differ only in their seed/);
  });

  test('a tag only one run of a group logs has no figure of that group', () => {
    const runs = [testRun('x_seed0', 0.1, 0), testRun('x_seed1', 0.1, 1, 500, [REWARD])];
    expect(
      collect(runs)
        .plan()
        .figures.map((f) => f.name),
    ).toEqual(['groups/x/rollout__ep_rew_mean']);
  });
});

/** The y values of a dataset, as numbers. */
const ys = (data: readonly Pt[]): number[] => data.map((p) => p.y);

describe('the group figure', () => {
  const figureOf = (name: string, runs: readonly TestRun[] = SIX, o: Partial<GroupFigureOptions> = {}) =>
    collect(runs, o)
      .plan()
      .figures.find((f) => f.name === name)!
      .build();

  test.each(['minmax', 'std', 'ci95'] as const)(
    'the %s band drawn is groupBand of the group runs, and the subtitle says what it means',
    (band) => {
      const fig = figureOf('groups/lr=0.01/rollout__ep_rew_mean', SIX, { band });
      const members = SIX.slice(3);
      const expected = groupBand(
        members.map((r): StepSeries => ({ steps: r.steps, values: r.values })),
        { points: BAND_POINTS, band },
      );
      const panel = fig.panels[0]!;
      const config = panelConfiguration(panel, figureTheme('light'));
      const data = (label: string): Pt[] => config.data.datasets.find((d) => d.label === label)!.data;
      expect(ys(data('lr=0.01 (over seed ×3) (lower)'))).toEqual([...expected.lower]);
      expect(ys(data('lr=0.01 (over seed ×3) (upper)'))).toEqual([...expected.upper]);
      expect(ys(data('lr=0.01 (over seed ×3) (mean)'))).toEqual([...expected.mean]);
      // The fill drawn between the edges is the same band.
      const fill = config.plugins!.find((p) => p.id === 'rlwatchSeedBands') as unknown as {
        state: { fills: { lower: Float64Array; upper: Float64Array }[] };
      };
      expect([...fill.state.fills[0]!.lower]).toEqual([...expected.lower]);
      expect([...fill.state.fills[0]!.upper]).toEqual([...expected.upper]);
      // The band is not degenerate: the seeds differ.
      expect(expected.upper.some((u, i) => u > expected.lower[i]! + 0.1)).toBe(true);
      expect(fig.title).toBe(`Seed group lr=0.01 (over seed ×3): ${REWARD}`);
      expect(fig.subtitle).toContain(BAND_MEANING[band]);
      expect(fig.subtitle).toContain('lr=0.01: 3 runs');
    },
  );

  test('the legend names each group with its run count; --iqm adds a dashed IQM line and says so', () => {
    const fig = figureOf('groups/comparison/rollout__ep_rew_mean', SIX, { iqm: true });
    const config = panelConfiguration(fig.panels[0]!, figureTheme('light'));
    const labels = config.data.datasets.map((d) => d.label);
    expect(labels).toContain('lr=0.1 (over seed ×3) (IQM)');
    expect(labels).toContain('lr=0.01 (over seed ×3) (IQM)');
    const iqm = config.data.datasets.find((d) => d.label === 'lr=0.1 (over seed ×3) (IQM)')!;
    expect((iqm as { borderDash?: number[] }).borderDash?.length).toBeGreaterThan(0);
    const legend = config.options!.plugins!.legend!.labels!.generateLabels!(null as never).map((l) => l.text);
    expect(legend).toEqual(['lr=0.1 (over seed ×3)', 'lr=0.01 (over seed ×3)']);
    expect(fig.subtitle).toContain('dashed: interquartile mean');
    // With 3 runs trim_mean cuts nothing: the figure says why no dashed line shows apart from the mean.
    expect(fig.subtitle).toContain('IQM = mean where fewer than 4 runs');
    const four = [0, 1, 2, 3].map((s) => testRun(`w_seed${s}`, 0.1, s));
    expect(figureOf('groups/w/rollout__ep_rew_mean', four, { iqm: true }).subtitle).not.toContain(
      'IQM = mean',
    );
    // No "no points" message over a panel that draws groups and no single run.
    const overlay = config.plugins!.find((p) => p.id === 'rlwatchOverlay') as unknown as {
      state: { message?: string | null };
    };
    expect(overlay.state.message ?? null).toBeNull();
  });

  test("each group has its first member's look, as in the window, in every figure (else its place)", () => {
    const colourOf = (fig: ReturnType<typeof figureOf>, label: string): unknown => {
      const config = panelConfiguration(fig.panels[0]!, figureTheme('light'));
      return config.data.datasets.find((d) => d.label === `${label} (mean)`)!.borderColor;
    };
    // The folder's sorted order puts the lr0.01 runs first: that group takes looks 0-2, lr0.1 looks 3-5.
    const looks = new Map([...SIX.map((r) => r.run.run)].sort().map((r, i) => [r, i]));
    const compared = figureOf('groups/comparison/rollout__ep_rew_mean', SIX, { looks });
    const own = figureOf('groups/lr=0.1/rollout__ep_rew_mean', SIX, { looks });
    expect(colourOf(compared, 'lr=0.01 (over seed ×3)')).toBe(runColor(0));
    expect(colourOf(compared, 'lr=0.1 (over seed ×3)')).toBe(runColor(3));
    expect(colourOf(own, 'lr=0.1 (over seed ×3)')).toBe(runColor(3));
    // Without looks (no folder order known), groups take palette colours by their place.
    const plain = figureOf('groups/comparison/rollout__ep_rew_mean', SIX);
    expect(colourOf(plain, 'lr=0.1 (over seed ×3)')).toBe(runColor(0));
    expect(colourOf(plain, 'lr=0.01 (over seed ×3)')).toBe(runColor(1));
  });

  test('a run that ends early: "n = 2 of 3 after step S" on the figure', () => {
    const runs = [
      testRun('lr0.1_seed0', 0.1, 0, 990),
      testRun('lr0.1_seed1', 0.1, 1, 990),
      testRun('lr0.1_seed2', 0.1, 2, 600),
    ];
    const fig = figureOf('groups/lr0.1/rollout__ep_rew_mean', runs);
    // The step the short run last logged, not the band grid's point before it (597): a step no run logged.
    const grid = Array.from({ length: BAND_POINTS }, (_, i) => (990 * i) / (BAND_POINTS - 1));
    expect(grid).not.toContain(600);
    expect(fig.subtitle).toContain('lr0.1: n = 2 of 3 after step 600');
    // And the plot marks it: the band plugin draws a tick where n drops.
    const config = panelConfiguration(fig.panels[0]!, figureTheme('light'));
    const fill = config.plugins!.find((p) => p.id === 'rlwatchSeedBands') as unknown as {
      state: { fills: { drops: { k: number; after: number }[] }[] };
    };
    expect(fill.state.fills[0]!.drops).toEqual([{ k: 2, after: 600 }]);
  });

  test('a group some of whose runs lack the tag says how many log it', () => {
    const runs = [
      testRun('x_seed0', 0.1, 0),
      testRun('x_seed1', 0.1, 1),
      testRun('x_seed2', 0.1, 2, 500, [REWARD]),
    ];
    const fig = figureOf('groups/x/train__loss', runs);
    expect(fig.subtitle).toContain(`x: 2 runs (1 of its 3 log no ${LOSS})`);
  });
});

test("an SVG's text spells out the ligatures Skia shapes, so the band's meaning can be found in it", () => {
  expect(svgTextRuns('<text x="1, 2, " y="3, ">conﬁdence ﬂat oﬀ</text>')).toBe(
    '<text x="1" y="3">confidence flat off</text>',
  );
  expect(svgTextRuns(`<text x="1" y="2">${BAND_MEANING.ci95.replace('fi', 'ﬁ')}</text>`)).toContain(
    BAND_MEANING.ci95,
  );
});
