// Which figures a run makes: seed 003's set by catalog role, evaluation tags, system tags, the per-tag cap, restarts.

import { describe, expect, test } from 'vitest';
import {
  bandNote,
  isEvalTag,
  mainTag,
  planRunFigures,
  shownSeries,
  systemTags,
  type FigureRun,
} from '../../../src/core/export/figure-set';
import { planComparison, TagComparisons } from '../../../src/core/export/figure-compare';
import { figureRunOf } from '../../../src/core/export/export-run';
import { figureLines } from '../../../src/core/export/figure-series';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { resolveBand } from '../../../src/shared/charts/band';
import { panelNotes } from '../../../src/shared/charts/figure-notes';
import type { AlertInfo } from '../../../src/shared/domain';

function series(steps: number[], value = (s: number) => s): ScalarSeries {
  const s = new ScalarSeries(steps.length);
  steps.forEach((step, i) => s.append(step, 1_700_000_000 + i, value(step)));
  return s;
}
const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

function run(tags: Record<string, number>, name = 'r'): FigureRun {
  return {
    run: name,
    series: new Map(Object.entries(tags).map(([t, n]) => [t, [series(range(n))]])),
    thresholds: {},
  };
}
const opts = { smoothing: 0, pixels: 400 };
const names = (r: FigureRun, o = opts): string[] => planRunFigures(r, o).figures.map((f) => f.name);

describe('evaluation tags', () => {
  test.each([
    ['eval/mean_reward', true],
    ['eval_loss', true],
    ['val_loss', true],
    ['validation/accuracy', true],
    ['test/score', true],
    ['bertscore', true],
    ['codebleu', true],
    ['metrics/rouge_l', true],
    ['eval_runtime', false],
    ['eval_samples_per_second', false],
    ['value_loss', false],
    ['reward', false],
    ['train/loss', false],
  ])('%s → %s', (tag, expected) => {
    expect(isEvalTag(tag)).toBe(expected);
  });
});

describe('seed 003 set', () => {
  test('training_progress uses the main loss and reward; eval copies of a role are not the main tag', () => {
    const r = run({
      'Train/Loss': 50,
      reward: 50,
      reward_mean: 50,
      'Train/AvgReward': 40,
      'eval/mean_reward': 90,
    });
    expect(mainTag(r.series, ['reward'])).toBe('reward');
    expect(mainTag(r.series, ['loss'])).toBe('Train/Loss');
    const built = planRunFigures(r, opts)
      .figures.find((f) => f.name === 'training_progress')!
      .build();
    expect(built.panels.map((p) => p.title)).toEqual(['Train/Loss', 'reward']);
    expect(built.subtitle).toContain('run r');
  });

  test('a run with neither loss nor reward gets no training_progress, with a notice saying why', () => {
    const plan = planRunFigures(run({ 'charts/fps': 10 }), opts);
    expect(plan.figures.map((f) => f.name)).toEqual(['figures/charts__fps']);
    expect(plan.notices).toEqual([
      'r: no training_progress figure: the run logs no loss or reward tag',
      'r: no policy_metrics figure: the run logs no KL or entropy tag',
    ]);
  });

  test('policy_metrics has KL and entropy with their band notes; evaluation puts every eval tag on one chart', () => {
    const r = run({ approx_kl: 30, entropy: 30, 'eval/bleu': 5, 'eval/rouge': 5, eval_runtime: 5 });
    expect(names(r)).toEqual([
      'policy_metrics',
      'evaluation_metrics',
      'figures/approx_kl',
      'figures/entropy',
      'figures/eval__bleu',
      'figures/eval__rouge',
      'figures/eval_runtime',
    ]);
    const plan = planRunFigures({ ...r, thresholds: { target_kl: 0.02, entropy_min: 0.5 } }, opts);
    const policy = plan.figures.find((f) => f.name === 'policy_metrics')!.build();
    expect(policy.subtitle).toBe(
      'run r · approx_kl: green band and dashed line: healthy below 0.02 (target_kl 0.02) · entropy: green band and dashed line: healthy above 0.5 (entropy_min 0.5)',
    );
    // Neither set: their rules derive their lines from the run, so no default band is drawn or noted.
    const unset = planRunFigures(r, opts)
      .figures.find((f) => f.name === 'policy_metrics')!
      .build();
    expect(unset.subtitle).toBe('run r');
    const evals = plan.figures.find((f) => f.name === 'evaluation_metrics')!.build();
    expect(evals.panels).toHaveLength(1);
    expect(evals.panels[0]!.spec.series.map((s) => s.run)).toEqual(['eval/bleu', 'eval/rouge']);
  });

  test('thresholds come from the user settings over the run config over the defaults, as the app resolves them', () => {
    const config = { ppo: { target_kl: 0.05 } };
    const of = (user: object | undefined) =>
      figureRunOf({ run: '.', config }, '/runs/ppo-7', new Map(), { userThresholds: user }).thresholds;
    // Only what the user or the config set: the rest fall back to the catalog's default, or to no line where the
    // rule derives its own (entropy_min).
    expect(of(undefined)).toEqual({ target_kl: 0.05 });
    expect(of({ target_kl: 0.01 })).toMatchObject({ target_kl: 0.01 });
    expect(figureRunOf({ run: '.', config: null }, '/runs/ppo-7', new Map(), {}).label).toBe('ppo-7');
  });

  test("the run's thresholds move the band and its note", () => {
    const r = { ...run({ approx_kl: 30 }), thresholds: { target_kl: 0.05 } };
    const fig = planRunFigures(r, opts)
      .figures.find((f) => f.name === 'figures/approx_kl')!
      .build();
    expect(fig.panels[0]!.spec.band).toMatchObject({ max: 0.05, target: 0.05 });
    expect(fig.subtitle).toBe('run r · green band and dashed line: healthy below 0.05 (target_kl 0.05)');
    expect(fig.title).toMatch(/^approx_kl — ./);
    expect(bandNote(resolveBand('clip_fraction'))).toBe(
      'green band: healthy 0.1 – 0.3 (clip_low 0.1, clip_high 0.3)',
    );
  });

  test('system shows GPU utilisation, memory, temperature, CPU and memory first', () => {
    expect(
      systemTags(['system/cpu.0.cpu_percent', 'system/disk', 'system/memory', 'system/gpu.0.gpu', 'reward']),
    ).toEqual(['system/gpu.0.gpu', 'system/memory', 'system/cpu.0.cpu_percent', 'system/disk']);
    expect(names(run({ 'system/gpu.0.gpu': 5, reward: 5 }))).toContain('system');
  });

  test('system panels are drawn against time since the start (as the dashboard draws them), the rest against step', () => {
    const plan = planRunFigures(run({ 'system/gpu.0.gpu': 5, reward: 5 }), opts);
    const system = plan.figures.find((f) => f.name === 'system')!.build();
    expect(system.panels.map((p) => p.spec.view.xAxis)).toEqual(['relative']);
    // Wall times are 1 s apart: seconds since the first point, not steps.
    expect(system.panels[0]!.spec.series[0]!.raw.map((p) => p.x)).toEqual([0, 1, 2, 3, 4]);
    const progress = plan.figures.find((f) => f.name === 'training_progress')!.build();
    expect(progress.panels.map((p) => p.spec.view.xAxis)).toEqual(['step']);
  });

  test('training_progress is titled by what it draws', () => {
    const title = (tags: Record<string, number>): string =>
      planRunFigures(run(tags), opts)
        .figures.find((f) => f.name === 'training_progress')!
        .build().title;
    expect(title({ loss: 5, reward: 5 })).toBe('Training progress: loss and reward');
    expect(title({ loss: 5 })).toBe('Training progress: loss');
    expect(title({ reward: 5 })).toBe('Training progress: reward');
  });

  test('per-tag figures stop at the cap with a notice naming --tags; names are file-safe and unique', () => {
    const tags = Object.fromEntries(range(12).map((i) => [`a/t${String(i).padStart(2, '0')}`, 3]));
    const plan = planRunFigures(run({ ...tags, a__t00: 3 }), { ...opts, maxTagFigures: 5 });
    expect(plan.figures.map((f) => f.name)).toEqual(range(5).map((i) => `figures/a__t0${i}`));
    // A case-insensitive disk holds one of `A__B` and `a__b`: names differ beyond case.
    expect(names(run({ 'a/b': 1, a__b: 1, 'A/B': 1 }))).toEqual([
      'figures/A__B',
      'figures/a__b-2',
      'figures/a__b-3',
    ]);
    expect(plan.notices).toContain(
      'r: 13 tags: figures of the first 5 by catalog group (reward, policy, loss first; per-core system metrics together); choose others with --tags REGEX',
    );
  });

  test('alerts on the tag and restarts become markers', () => {
    const alert = {
      run: 'r',
      tag: 'approx_kl',
      step: 7,
      severity: 'critical',
      message: 'KL high',
      active: true,
    };
    const r: FigureRun = {
      run: 'r',
      series: new Map([['approx_kl', [series(range(10)), series(range(5, 4))]]]),
      thresholds: {},
      alerts: [alert as AlertInfo, { ...alert, tag: 'entropy' } as AlertInfo],
    };
    const fig = planRunFigures(r, opts)
      .figures.find((f) => f.name === 'figures/approx_kl')!
      .build();
    expect(fig.panels[0]!.spec.markers!.map((m) => [m.kind, m.x])).toEqual([
      ['restart', 4],
      ['alert', 7],
    ]);
  });

  test('comparison overlays the main reward of each run, only with two runs or more', () => {
    const a = run({ reward: 10 }, 'a');
    const b = run({ 'rollout/ep_rew_mean': 10 }, 'b');
    expect(planComparison([a], opts)).toBeNull();
    const fig = planComparison([a, b, run({ loss: 3 }, 'c')], opts)!.build();
    expect(fig.panels[0]!.spec.series.map((s) => s.run)).toEqual(['a', 'b']);
    expect(fig.subtitle).toBe('a (reward) · b (rollout/ep_rew_mean)');
  });

  test('several runs on one figure keep their looks (the folder’s stable indexes), else their positions', () => {
    const a = run({ reward: 10 }, 'a');
    const b = run({ reward: 5 }, 'b');
    const looks = new Map([
      ['a', 4],
      ['b', 1],
    ]);
    const fig = planComparison([a, b], { ...opts, looks })!.build();
    expect(fig.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex])).toEqual([
      ['a', 4],
      ['b', 1],
    ]);
    const plain = planComparison([a, b], opts)!.build();
    expect(plain.panels[0]!.spec.series.map((s) => s.colorIndex)).toEqual([0, 1]);
    const shared = new TagComparisons({ ...opts, looks });
    shared.add(a);
    shared.add(b);
    const reward = shared
      .plan()
      .figures.find((f) => f.name === 'comparisons/reward')!
      .build();
    expect(reward.panels[0]!.spec.series.map((s) => [s.run, s.colorIndex])).toEqual([
      ['a', 4],
      ['b', 1],
    ]);
  });
});

describe('tag comparisons', () => {
  test('each tag holds its first 8 runs; tags past the 96 held are named in their own notice', () => {
    const shared = new TagComparisons(opts);
    // Four runs with 24 tags of their own each fill the 96 tags held.
    for (let r = 0; r < 4; r++)
      shared.add(
        run(Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`own${r}/t${i}`, 3])), `own${r}`),
      );
    // Ten runs share `loss`, which came too late to be held.
    for (let r = 0; r < 10; r++) shared.add(run({ loss: 3 }, `late${r}`));
    const plan = shared.plan();
    expect(plan.figures.map((f) => f.name)).toEqual([]);
    expect(plan.notices).toContain(
      'comparisons hold 96 tags at most, the first met; 1 more not compared (choose with --tags REGEX or --runs REGEX)',
    );
    expect(plan.notices.some((n) => n.includes('first 24 tags'))).toBe(false);

    const room = new TagComparisons(opts);
    for (let r = 0; r < 10; r++) room.add(run({ loss: 3 }, `r${r}`));
    const fig = room
      .plan()
      .figures.find((f) => f.name === 'comparisons/loss')!
      .build();
    expect(fig.panels[0]!.spec.series.map((l) => l.run)).toEqual(
      Array.from({ length: 8 }, (_, r) => `r${r}`),
    );
  });
});

describe('figure lines', () => {
  test("steps going back restart the line there (the dashboard's rule): no zig-zag, the mark is kept", () => {
    const lines = figureLines('r', [series(range(10)), series([4, 5, 6], (s) => -s)], {
      xAxis: 'step',
      smoothing: 0,
      pixels: 100,
    });
    expect(lines.raw.map((p) => [p.x, p.y])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
      [4, -4],
      [5, -5],
      [6, -6],
    ]);
    expect(lines.restarts.map((r) => r.step)).toEqual([4]);
  });

  test('a long series keeps at most four points per pixel, its extremes included', () => {
    const lines = figureLines('r', [series(range(100_000), (s) => (s === 54_321 ? 1e6 : Math.sin(s)))], {
      xAxis: 'step',
      smoothing: 0.9,
      pixels: 200,
    });
    expect(lines.raw.length).toBeLessThanOrEqual(800);
    expect(Math.max(...lines.raw.map((p) => p.y))).toBe(1e6);
    expect(lines.smoothed.length).toBeLessThanOrEqual(800);
  });

  test('only the best format of a tag is shown (the demo writes the same tag to an event file and a CSV)', () => {
    const ev = series(range(5));
    const csv = series(range(5));
    const shown = shownSeries(
      new Map([['reward', [ev, csv]]]),
      (s) => (s === ev ? 'tfevents' : 'csv'),
      (s) => (s === ev ? 'events.out.tfevents.1.h' : 'metrics.csv'),
    );
    expect(shown.get('reward')).toEqual([ev]);
  });
});

describe('a tag without wall times', () => {
  test('a system metric from a source that logs no time is drawn by step, and the panel says so', () => {
    const untimed = new ScalarSeries();
    for (const st of range(10)) untimed.append(st, Number.NaN, 50 + st);
    const r: FigureRun = { run: 'r', series: new Map([['system/gpu_util', [untimed]]]), thresholds: {} };
    const fig = planRunFigures(r, opts)
      .figures.find((f) => f.name === 'figures/system__gpu_util')!
      .build();
    const spec = fig.panels[0]!.spec;
    expect(spec.view.xAxis).toBe('step');
    expect(spec.askedXAxis).toBe('relative');
    expect(spec.series[0]!.raw.map((p) => p.x)).toEqual(range(10));
    expect(panelNotes(spec)).toContain('by step: no wall times logged (time since start needs them)');
  });
});
