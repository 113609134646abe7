// A composed chart's lines (each tag × run, named by both), the caption's note on tags some runs do not log, and each
// line's own colour and dash in the legend and readout.

import { describe, expect, test } from 'vitest';
import { composedLines, lineLooks, missingNote } from '../../../src/shared/charts/composed';
import { readoutAt, type ReadoutSeries } from '../../../src/renderer/src/charts/readout';
import { runColor, runDash, tagDash } from '../../../src/shared/charts/chart-theme';
import { legendEntries, swatchBackground } from '../../../src/shared/charts/legend';

describe('composed chart lines', () => {
  test('tag-major, each named by tag and run; one run: by tag alone', () => {
    const lines = composedLines(['rollout/ep_rew_mean', 'eval/mean_reward'], ['A2C_1', 'PPO_1']);
    expect(lines.map((l) => [l.key, l.run, l.tag])).toEqual([
      ['rollout/ep_rew_mean · A2C_1', 'A2C_1', 'rollout/ep_rew_mean'],
      ['rollout/ep_rew_mean · PPO_1', 'PPO_1', 'rollout/ep_rew_mean'],
      ['eval/mean_reward · A2C_1', 'A2C_1', 'eval/mean_reward'],
      ['eval/mean_reward · PPO_1', 'PPO_1', 'eval/mean_reward'],
    ]);
    expect(composedLines(['a', 'b'], ['r']).map((l) => l.key)).toEqual(['a', 'b']);
  });

  test('labels that would read the same are kept apart', () => {
    const keys = composedLines(['a · b', 'a'], ['c', 'b · c']).map((l) => l.key);
    expect(new Set(keys).size).toBe(4);
  });

  test('the caption names each missing tag with the runs lacking it', () => {
    const lines = composedLines(['r', 'e'], ['A', 'B']);
    expect(missingNote(lines, new Set(), true)).toBe('');
    expect(missingNote(lines, new Set(['e · A', 'e · B', 'r · B']), true)).toBe(
      'not logged, skipped: r (B); e (A, B)',
    );
    expect(missingNote(composedLines(['r', 'e'], ['A']), new Set(['e']), false)).toBe(
      'not logged, skipped: e',
    );
    const five = composedLines(['e'], ['A', 'B', 'C', 'D', 'E']);
    expect(missingNote(five, new Set(five.map((l) => l.key)), true)).toBe(
      'not logged, skipped: e (A, B, C +2 more)',
    );
  });
});

describe('each line’s look (the window’s chart and its exported figure: one rule)', () => {
  test('colour: the run’s stable index, else its position; dash: a composed chart’s tag’s, else none given', () => {
    const stable = new Map([['B', 5]]);
    const composed = lineLooks(composedLines(['r', 'e'], ['A', 'B']), ['A', 'B'], ['r', 'e'], (run) =>
      stable.get(run),
    );
    expect([...composed]).toEqual([
      ['r · A', { colorIndex: 0, dash: tagDash(0) }],
      ['r · B', { colorIndex: 5, dash: tagDash(0) }],
      ['e · A', { colorIndex: 0, dash: tagDash(1) }],
      ['e · B', { colorIndex: 5, dash: tagDash(1) }],
    ]);
    const lines = ['A', 'B'].map((run) => ({ key: run, run, tag: 'loss' }));
    expect([...lineLooks(lines, ['A', 'B'], null, (run) => stable.get(run))]).toEqual([
      ['A', { colorIndex: 0 }],
      ['B', { colorIndex: 5 }],
    ]);
  });
});

describe('line looks in the legend and readout', () => {
  const series = (
    run: string,
    colorIndex?: number,
    dash?: number[],
  ): ReadoutSeries & { colorIndex?: number } => ({
    run,
    raw: [{ x: 0, y: 1 }],
    values: [1],
    steps: [0],
    walls: [0],
    origin: 0,
    smoothedAt: () => 1,
    ...(colorIndex === undefined ? {} : { colorIndex }),
    ...(dash === undefined ? {} : { dash }),
  });

  test('a line with a stable palette index shows that colour and dash, not its position’s', () => {
    const lines = [series('a', 5), series('b'), series('c', 1, [2, 3])];
    expect(legendEntries(lines)).toEqual([
      { run: 'a', colour: runColor(5), dash: runDash(5) },
      { run: 'b', colour: runColor(1), dash: [] },
      { run: 'c', colour: runColor(1), dash: [2, 3] },
    ]);
    const rows = readoutAt(lines, 0, { xAxis: 'step', smoothing: 0, span: 1, multiRun: true })!.rows;
    expect(rows.map((r) => [r.run, r.colour, r.dash ?? []])).toEqual([
      ['a', runColor(5), runDash(5)],
      ['b', runColor(1), []],
      ['c', runColor(1), [2, 3]],
    ]);
    expect(runDash(5).length).toBeGreaterThan(0);
    expect(swatchBackground({ colour: runColor(5), dash: runDash(5) })).toMatch(/repeating-linear-gradient/);
  });
});
