// Seed groups on a chart: groups among the drawn runs, bands from drawn points, datasets, coverage notes, readout rows.

import { describe, expect, test } from 'vitest';
import { runColor } from '../../../src/shared/charts/chart-theme';
import type { Pt } from '../../../src/shared/charts/series-model';
import { BAND_MEANING } from '../../../src/shared/compare/group-stats';
import type { Readout } from '../../../src/renderer/src/charts/readout';
import {
  bandCaption,
  chartGroups,
  coverageNote,
  drawnGroups,
  finiteRuns,
  gridIndex,
  groupDatasets,
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
      { label: 'b', runs: ['b_s2', 'b_s1'], colorIndex: 1 },
      { label: 'a', runs: ['a_s1', 'a_s2'], colorIndex: 2 },
    ]);
  });
});

describe('drawnGroups and groupDatasets', () => {
  const pts: Record<string, Pt[]> = {
    r0: line(11, (x) => x),
    r1: line(11, (x) => x + 2),
    r2: line(6, (x) => x + 4), // stops at x = 50
  };
  const g = { label: 'g', runs: ['r0', 'r1', 'r2'], colorIndex: 3 };

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
      'g (3 runs) (lower)',
      'g (3 runs) (upper)',
      'g (3 runs) (mean)',
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
  test('each drop in n is said with the last x every run reached', () => {
    const band = { x: Float64Array.of(0, 100, 200, 300, 400), n: Int32Array.of(3, 3, 2, 2, 1) };
    expect(coverageNote(band, 3, 'step')).toBe('n = 2 of 3 after step 100, n = 1 of 3 after step 300');
    expect(coverageNote({ x: Float64Array.of(0, 1), n: Int32Array.of(2, 2) }, 2, 'step')).toBe('');
  });

  test('the caption states the band meaning, the IQM line and the coverage per group', () => {
    const [d] = drawnGroups(
      [{ label: 'lr=0.1', runs: ['a', 'b'], colorIndex: 0 }],
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
    [{ label: 'g', runs: ['r0', 'r1'], colorIndex: 0 }],
    (r) => line(11, (x) => x + (r === 'r0' ? 0 : 2)),
    'minmax',
    11,
  );

  test('gridIndex finds the nearest grid point, -1 outside', () => {
    expect(gridIndex(d!.band.x, 34)).toBe(3);
    expect(gridIndex(d!.band.x, 36)).toBe(4);
    expect(gridIndex(d!.band.x, 101)).toBe(-1);
  });

  test("a group's row is its mean with the band's edges; its runs' rows are replaced", () => {
    expect(groupRows([d!], 30, { iqm: false, smoothing: false })[0]).toMatchObject({
      run: 'g (2 runs)',
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
    const out = withGroupRows(r, [d!], 30, { iqm: true, smoothing: false }, 1);
    expect(out!.rows.map((x) => x.run)).toEqual(['g (2 runs)']);
    expect(out!.rows[0]!.raw).toBe('31 [30, 32] IQM 31');
    expect(out!.more).toBe(1);
    expect(withGroupRows(r, [], 30, { iqm: false, smoothing: false })).toBe(r);
  });
});
