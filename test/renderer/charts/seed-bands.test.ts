// Seed groups on a chart: groups among the drawn runs, bands from drawn points, datasets, coverage notes, readout rows.

import { describe, expect, test } from 'vitest';
import { runColor } from '../../../src/shared/charts/chart-theme';
import type { Pt } from '../../../src/shared/charts/series-model';
import { BAND_MEANING } from '../../../src/shared/compare/group-stats';
import type { Readout } from '../../../src/renderer/src/charts/readout';
import {
  bandCaption,
  chartGroups,
  bandFills,
  coverageDrops,
  coverageNote,
  drawnGroups,
  finiteRuns,
  groupDatasets,
  groupLegend,
  groupRows,
  withGroupRows,
} from '../../../src/renderer/src/charts/seed-bands';

const line = (n: number, f: (x: number) => number, step = 10): Pt[] =>
  Array.from({ length: n }, (_, i) => ({ x: i * step, y: f(i * step) }));

describe('chartGroups', () => {
  test('keeps groups with two or more runs drawn here, in chart order, coloured by their first run', () => {
    const runs = ['solo', 'b_s2', 'a_s1', 'b_s1', 'a_s2'];
    const groups = chartGroups(runs, [
      { label: 'a', runs: ['a_s1', 'a_s2', 'a_s3'], by: 'name', seeds: ['run name'] },
      { label: 'b', runs: ['b_s1', 'b_s2'], by: 'name', seeds: ['run name'] },
      { label: 'c', runs: ['c_s1', 'solo'], by: 'name', seeds: ['run name'] },
    ]);
    expect(groups).toEqual([
      { label: 'b', runs: ['b_s2', 'b_s1'], seeds: ['run name'], colorIndex: 1 },
      { label: 'a', runs: ['a_s1', 'a_s2'], seeds: ['run name'], colorIndex: 2 },
    ]);
  });
});

test('the legend names a group by what sets it apart and what it folds, its members on hover', () => {
  expect(
    groupLegend([{ label: 'lr=3e-4', runs: ['PPO_1', 'PPO_2', 'PPO_3'], seeds: ['seed'], colorIndex: 2 }]),
  ).toEqual([
    {
      run: 'lr=3e-4 (over seed ×3)',
      colour: runColor(2),
      dash: [],
      title: 'lr=3e-4 over seed: PPO_1, PPO_2, PPO_3',
    },
  ]);
});

describe('drawnGroups and groupDatasets', () => {
  const pts: Record<string, Pt[]> = {
    r0: line(11, (x) => x),
    r1: line(11, (x) => x + 2),
    r2: line(6, (x) => x + 4), // stops at x = 50
  };
  const g = { label: 'g', runs: ['r0', 'r1', 'r2'], seeds: ['seed'], colorIndex: 3 };

  test('min–max band over the drawn points lies between the lowest and highest run', () => {
    const [d] = drawnGroups([g], (r) => pts[r], 'minmax', 11);
    expect(Array.from(d!.band.x)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(d!.band.lower[2]).toBe(20);
    expect(d!.band.upper[2]).toBe(24);
    expect(d!.band.mean[2]).toBe(22);
    // After r2 ends only r0 and r1 remain.
    expect(d!.band.upper[8]).toBe(82);
    expect(Array.from(d!.band.n)).toEqual([3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2]);
  });

  test('a run with no points here is left out of its group', () => {
    const [d] = drawnGroups([g], (r) => (r === 'r2' ? [] : pts[r]), 'minmax', 11);
    expect(Array.from(d!.band.n).every((n) => n === 2)).toBe(true);
  });

  test('datasets: hidden band edges, the mean in the group colour, the dashed IQM only when asked', () => {
    const drawn = drawnGroups([g], (r) => pts[r], 'std', 11);
    const without = groupDatasets(drawn, false);
    expect(without.map((d) => d.label)).toEqual([
      'g (over seed ×3) (lower)',
      'g (over seed ×3) (upper)',
      'g (over seed ×3) (mean)',
    ]);
    expect(without[0]!.showLine).toBe(false);
    expect(without[2]!.borderColor).toBe(runColor(3));
    expect(without[2]!.data[1]).toEqual({ x: 10, y: 12 });
    const withIqm = groupDatasets(drawn, true);
    expect(withIqm).toHaveLength(4);
    expect(withIqm[3]!.borderDash).toEqual([6, 3]);
  });
});

describe('coverage and caption', () => {
  test('each drop in n is said at the last step the run that ended logged, not at a grid point', () => {
    // Logged every 2048 steps; the runs end at 61286 (a last, odd step), 81920 and 102400. The 11-point grid
    // (every 10240) has no point at 61286: the note names the step the run logged.
    const logged = (last: number): Pt[] => [
      ...Array.from({ length: Math.floor(last / 2048) + 1 }, (_, i) => ({ x: i * 2048, y: i })),
      ...(last % 2048 === 0 ? [] : [{ x: last, y: 0 }]),
    ];
    const ends: Record<string, number> = { a: 61286, b: 81920, c: 102400 };
    const [d] = drawnGroups(
      [{ label: 'g', runs: ['a', 'b', 'c'], seeds: ['seed'], colorIndex: 0 }],
      (r) => logged(ends[r]!),
      'minmax',
      11,
    );
    expect(coverageNote(d!, 3, 'step')).toBe('n = 2 of 3 after step 61286, n = 1 of 3 after step 81920');
    expect(coverageDrops(d!)).toEqual([
      { k: 2, after: 61286 },
      { k: 1, after: 81920 },
    ]);
    // The plot marks them: each group's fill carries its drops.
    expect(bandFills([d!])[0]!.drops).toEqual(coverageDrops(d!));
    const [same] = drawnGroups(
      [{ label: 'g', runs: ['a', 'b'], seeds: ['seed'], colorIndex: 0 }],
      () => logged(4096),
      'minmax',
      11,
    );
    expect(coverageNote(same!, 2, 'step')).toBe('');
  });

  test('the caption states the band meaning, the IQM line and the coverage per group', () => {
    const [d] = drawnGroups(
      [{ label: 'lr=0.1', runs: ['a', 'b'], seeds: ['seed'], colorIndex: 0 }],
      (r) => (r === 'a' ? line(11, () => 1) : line(6, () => 3)),
      'ci95',
      11,
    );
    expect(bandCaption([d!], 'ci95', true, 'step')).toBe(
      `${BAND_MEANING.ci95}; dashed: interquartile mean; lr=0.1: n = 1 of 2 after step 50`,
    );
  });

  test('finiteRuns splits the band at gaps', () => {
    expect(finiteRuns([1, 2, NaN, 4, 5, 6], [2, 3, 4, NaN, 7, 8])).toEqual([
      [0, 1],
      [4, 5],
    ]);
  });
});

describe('readout rows', () => {
  const [d] = drawnGroups(
    [{ label: 'g', runs: ['r0', 'r1'], seeds: ['seed'], colorIndex: 0 }],
    (r) => line(11, (x) => x + (r === 'r0' ? 0 : 2)),
    'minmax',
    11,
  );

  test('at a step every run logged the row gives the logged values, not the band grid; elsewhere it says interpolated', () => {
    // Curved runs logged every 7 steps to 70; the 12-point grid lies every 6.36 steps (its point nearest 49 is
    // 50.9), so its values are interpolations.
    const curve = (k: number): Pt[] =>
      Array.from({ length: 11 }, (_, i) => ({ x: i * 7, y: (i * 7) ** 2 + k }));
    const [c] = drawnGroups(
      [{ label: 'g', runs: ['r0', 'r1', 'r2'], seeds: ['seed'], colorIndex: 0 }],
      (r) => curve(Number(r.slice(1)) * 10),
      'minmax',
      12,
    );
    expect(Array.from(c!.band.x)).not.toContain(49);
    // Step 49 (logged by all): 2401, 2411, 2421.
    expect(groupRows([c!], 49, { iqm: false, smoothing: false })[0]!.raw).toBe('2411 [2401, 2421]');
    // Step 50 (logged by none): interpolated between 49 and 56, and said so.
    expect(groupRows([c!], 50, { iqm: false, smoothing: false })[0]!.raw).toBe(
      '2516 [2506, 2526] (interpolated)',
    );
    // One run logged at 49 and another not: interpolated.
    const [mixed] = drawnGroups(
      [{ label: 'g', runs: ['r0', 'r1'], seeds: ['seed'], colorIndex: 0 }],
      (r) => (r === 'r0' ? curve(0) : curve(0).map((p) => ({ x: p.x + 1, y: p.y }))),
      'minmax',
      11,
    );
    expect(groupRows([mixed!], 49, { iqm: false, smoothing: false })[0]!.raw).toMatch(/\(interpolated\)$/);
  });

  test("a group's row is its mean with the band's edges; its runs' rows are replaced", () => {
    expect(groupRows([d!], 30, { iqm: false, smoothing: false })[0]).toMatchObject({
      run: 'g (over seed ×2)',
      raw: '31 [30, 32]',
      smooth: null,
    });
    const r: Readout = {
      x: 'step 30',
      at: 30,
      more: 0,
      rows: [
        { run: 'r1', colour: '', raw: '32', smooth: null, step: null },
        { run: 'solo', colour: '', raw: '7', smooth: null, step: null },
        { run: 'r0', colour: '', raw: '30', smooth: null, step: null },
      ],
    };
    const out = withGroupRows(r, [d!], { iqm: true, smoothing: false }, 1);
    expect(out!.rows.map((x) => x.run)).toEqual(['g (over seed ×2)']);
    expect(out!.rows[0]!.raw).toBe('31 [30, 32] IQM 31');
    expect(out!.more).toBe(1);
    expect(withGroupRows(r, [], { iqm: false, smoothing: false })).toBe(r);
  });
});
