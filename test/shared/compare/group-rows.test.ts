// The runs table's seed-group rows: groups by the charts' rule, n, mean and the seeded 95 % bootstrap CI (against numpy
// and the same mulberry32 bootstrap written in Python), the text form, and the CLI's one row order (group, then its runs).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import {
  flatRows,
  GROUP_CI_RESAMPLES,
  GROUP_CI_SEED,
  groupStatText,
} from '../../../src/shared/compare/group-rows';
import { buildRunsTable, runsTableCsv, type TableRunInput } from '../../../src/shared/compare/runs-table';

/** numpy's mean and percentiles over the same seeded resamples (mulberry32 from its definition). */
/** test/helpers: the Python references import mulberry32 from there. */
const HELPERS = join(import.meta.dirname, '..', '..', 'helpers');

const REFERENCE = String.raw`
import json, sys
import numpy as np

sys.dont_write_bytecode = True  # nothing written into test/helpers
sys.path.insert(0, sys.argv[1])
from mulberry32 import mulberry32

q = json.load(sys.stdin)
out = []
for xs in q["samples"]:
    r = mulberry32(q["seed"])
    n = len(xs)
    means = [sum(xs[int(r() * n)] for _ in range(n)) / n for _ in range(q["resamples"])]
    lo, hi = np.percentile(means, [2.5, 97.5])
    out.append([float(np.mean(xs)), float(lo), float(hi)])
json.dump(out, sys.stdout)
`;

const reference = (samples: number[][]): [number, number, number][] =>
  JSON.parse(
    execFileSync('python3', ['-c', REFERENCE, HELPERS], {
      input: JSON.stringify({ samples, seed: GROUP_CI_SEED, resamples: GROUP_CI_RESAMPLES }),
    }).toString(),
  );

/** Final rewards and losses per seed: two configs × three seeds, and one run alone. */
const REWARD: Record<string, number> = {
  lr1_seed0: 412.5,
  lr1_seed1: 398.25,
  lr1_seed2: 431.0,
  lr2_seed0: 120.0,
  lr2_seed1: 97.5,
  lr2_seed2: 140.75,
  baseline: 10,
};

const run = (name: string, config: Record<string, unknown>, loss: number | null): TableRunInput => ({
  run: name,
  status: null,
  formats: ['tfevents'],
  step: 100,
  points: 200,
  sessions: 1,
  startWall: null,
  endWall: null,
  scalars: {
    'rollout/ep_rew_mean': { last: REWARD[name]!, min: 0, max: REWARD[name]! + 5 },
    ...(loss === null ? {} : { 'train/loss': { last: loss, min: loss / 2, max: 3 } }),
  },
  config,
});

const RUNS: TableRunInput[] = [
  run('lr1_seed0', { lr: 1, env: 'CartPole', seed: 0, output_dir: '/out/a' }, 0.5),
  run('baseline', { lr: 0.5, env: 'CartPole', seed: 0 }, 0.9),
  run('lr2_seed0', { lr: 2, env: 'CartPole', seed: 0 }, null),
  run('lr1_seed1', { lr: 1, env: 'CartPole', seed: 1, output_dir: '/out/b' }, 0.4),
  run('lr2_seed1', { lr: 2, env: 'CartPole', seed: 1 }, 0.8),
  run('lr1_seed2', { lr: 1, env: 'CartPole', seed: 2, output_dir: '/out/c' }, 0.3),
  run('lr2_seed2', { lr: 2, env: 'CartPole', seed: 2 }, null),
];

describe('seed-group rows', () => {
  const t = buildRunsTable(RUNS);

  test('groups of runs differing only by seed (identity keys ignored), n and the runs in table order', () => {
    expect(t.groups.map((g) => [g.label, g.runs, g.by])).toEqual([
      ['lr=1', ['lr1_seed0', 'lr1_seed1', 'lr1_seed2'], 'config'],
      ['lr=2', ['lr2_seed0', 'lr2_seed1', 'lr2_seed2'], 'config'],
    ]);
    expect(t.groups[0]!.seeds).toEqual(['seed']);
    // The config columns its runs share (lr); not the seed, which differs.
    expect(t.groups.map((g) => g.shared)).toEqual([{ 'config.lr': 1 }, { 'config.lr': 2 }]);
  });

  test('each metric column: mean and the 95 % bootstrap CI of the runs with a value, as numpy computes them', () => {
    const samples = [
      ['lr1_seed0', 'lr1_seed1', 'lr1_seed2'].map((r) => REWARD[r]!),
      ['lr2_seed0', 'lr2_seed1', 'lr2_seed2'].map((r) => REWARD[r]!),
      ['lr1_seed0', 'lr1_seed1', 'lr1_seed2'].map((r) => REWARD[r]! + 5),
      [0.5, 0.4, 0.3],
    ];
    const ref = reference(samples);
    const got = [
      t.groups[0]!.stats['reward.last'],
      t.groups[1]!.stats['reward.last'],
      t.groups[0]!.stats['reward.best'],
      t.groups[0]!.stats['loss.last'],
    ];
    got.forEach((s, i) => {
      expect(s!.n).toBe(3);
      expect(s!.mean).toBeCloseTo(ref[i]![0], 10);
      expect(s!.lower).toBeCloseTo(ref[i]![1], 10);
      expect(s!.upper).toBeCloseTo(ref[i]![2], 10);
      expect(s!.lower).toBeLessThan(s!.mean);
      expect(s!.upper).toBeGreaterThan(s!.mean);
    });
    // lr2 has a loss in one run only: n = 1, the interval that one value; no KL anywhere: no statistic.
    expect(t.groups[1]!.stats['loss.last']).toEqual({ n: 1, mean: 0.8, lower: 0.8, upper: 0.8 });
    expect(t.groups[0]!.stats['kl.last']).toBeNull();
  });

  test('a statistic does not depend on the other columns or groups (each cell its own seeded generator)', () => {
    const alone = buildRunsTable(RUNS.filter((r) => r.run.startsWith('lr2')));
    expect(alone.groups[0]!.stats['reward.last']).toEqual(t.groups[1]!.stats['reward.last']);
  });

  test('the text form goes through the shared number formatter', () => {
    expect(groupStatText({ n: 3, mean: 412.345, lower: 398.123, upper: 425.0 })).toBe('412.3 ± [398.1, 425]');
    expect(groupStatText({ n: 2, mean: 1.5e-5, lower: 1e-5, upper: 2e-5 })).toBe(
      '1.50e-5 ± [1.00e-5, 2.00e-5]',
    );
    expect(groupStatText(null)).toBeNull();
  });

  test("the CLI's order: each group's row where its first run stood, then its runs; others in place", () => {
    const flat = flatRows(t.columns, t.rows, t.groups);
    expect(flat.map((r) => `${r.kind}:${r.group ?? ''}:${r.cells.run}`)).toEqual([
      'group:lr=1:lr=1 (over seed ×3)',
      'run:lr=1:lr1_seed0',
      'run:lr=1:lr1_seed1',
      'run:lr=1:lr1_seed2',
      'run::baseline',
      'group:lr=2:lr=2 (over seed ×3)',
      'run:lr=2:lr2_seed0',
      'run:lr=2:lr2_seed1',
      'run:lr=2:lr2_seed2',
    ]);
    expect(flat[0]!.cells['reward.last']).toBe(groupStatText(t.groups[0]!.stats['reward.last']!));
    expect(flat[0]!.cells['config.lr']).toBe(1);
    expect(flat[0]!.cells['config.seed']).toBeUndefined();
    // A filtered table keeps a group's row over the runs left of it.
    const some = flatRows(
      t.columns,
      t.rows.filter((r) => r.run !== 'lr1_seed1'),
      t.groups,
    );
    expect(some.filter((r) => r.group === 'lr=1').map((r) => r.cells.run)).toEqual([
      'lr=1 (over seed ×3)',
      'lr1_seed0',
      'lr1_seed2',
    ]);
  });

  test('the CSV with groups: kind and group columns first, group rows before their runs; without, unchanged', () => {
    const rows = parse(runsTableCsv(t, { groups: true })) as string[][];
    expect(rows[0]!.slice(0, 3)).toEqual(['kind', 'group', 'run']);
    expect(rows.slice(1).map((r) => r[0])).toEqual([
      'group',
      'run',
      'run',
      'run',
      'run',
      'group',
      'run',
      'run',
      'run',
    ]);
    expect(rows[0]![0]).toBe('kind');
    expect((parse(runsTableCsv(t)) as string[][])[0]![0]).toBe('run');
    const none = buildRunsTable(RUNS.slice(0, 2));
    expect(runsTableCsv(none, { groups: true })).toBe(runsTableCsv(none));
  });

  test('group statistics are tidy number columns per metric (mean, lower, upper, n, band), a negative one as it is', () => {
    // lr2's losses negated: a group whose mean is negative (its CSV cell was `'-0.8 ± …`, text behind an apostrophe).
    const neg = buildRunsTable(
      RUNS.map((r) =>
        r.run === 'lr2_seed1'
          ? { ...r, scalars: { ...r.scalars, 'train/loss': { last: -0.433381, min: -1, max: 0 } } }
          : r,
      ),
    );
    const csv = runsTableCsv(neg, { groups: true });
    const header = (parse(csv) as string[][])[0]!;
    const at = header.indexOf('reward (last)');
    expect(header.slice(at, at + 6)).toEqual([
      'reward (last)',
      'reward (last) mean',
      'reward (last) lower',
      'reward (last) upper',
      'reward (last) n',
      'reward (last) band',
    ]);
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const lr1 = rows.find((r) => r.kind === 'group' && r.group === 'lr=1')!;
    const stat = neg.groups[0]!.stats['reward.last']!;
    expect(lr1).toMatchObject({
      'reward (last)': '',
      'reward (last) mean': String(stat.mean),
      'reward (last) lower': String(stat.lower),
      'reward (last) upper': String(stat.upper),
      'reward (last) n': '3',
      'reward (last) band': 'ci95',
    });
    const lr2 = rows.find((r) => r.kind === 'group' && r.group === 'lr=2')!;
    expect(lr2['loss (last) mean']).toBe('-0.433381');
    expect(lr2['loss (last) n']).toBe('1');
    // A run row keeps its value in the metric's column and leaves the statistics empty.
    expect(rows.find((r) => r.run === 'lr1_seed0')).toMatchObject({
      'reward (last)': '412.5',
      'reward (last) mean': '',
    });
    // No cell is guarded text: every statistic and metric cell a reader parses as a number (Python's csv + float).
    expect(csv).not.toContain("'");
    const py = String.raw`
import csv, sys
rows = list(csv.DictReader(sys.stdin))
stats = [float(v) for r in rows for k, v in r.items() if v and k.endswith((" mean", " lower", " upper", " n"))]
values = [float(v) for r in rows for k, v in r.items() if v and k.endswith(("(last)", "(best)"))]
print(len(rows), len(stats), len(values))
`;
    const out = execFileSync('python3', ['-c', py], { input: csv }).toString().trim().split(' ').map(Number);
    const stats = neg.groups.flatMap((g) => Object.values(g.stats)).filter((x) => x !== null).length;
    const values = neg.rows.flatMap((r) =>
      neg.columns.filter((c) => c.kind === 'metric' && typeof r.cells[c.id] === 'number'),
    ).length;
    expect(out).toEqual([rows.length, stats * 4, values]);
  });
});
