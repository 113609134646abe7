// The runs table's aggregate: which runs make each group and task, what is left out, comparisons over shared tasks,
// and the tidy CSV.

import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { aggregateEstimates, probabilityOfImprovement } from '../../../src/shared/compare/aggregate-scores';
import {
  AggregateInputError,
  aggregateCsv,
  aggregateProfiles,
  aggregateTable,
  compareGroups,
  profileCsv,
} from '../../../src/shared/compare/aggregate-table';
import { buildRunsTable, type TableRunInput } from '../../../src/shared/compare/runs-table';

const run = (name: string, config: Record<string, unknown> | null): TableRunInput => ({
  run: name,
  status: null,
  formats: ['csv'],
  step: 10,
  points: 2,
  sessions: 1,
  startWall: null,
  endWall: null,
  scalars: {},
  config,
});

const SCORES: Record<string, number | null> = {
  'ppo-hop-s0': 3,
  'ppo-hop-s1': 5,
  'ppo-walk-s0': 1,
  'ppo-walk-s1': 2,
  'ppo-ant-s0': 7,
  'sac-hop-s0': 4,
  'sac-hop-s1': 1,
  'sac-walk-s0': 0.5,
  'sac-walk-s1': null,
  lone: 9,
};

const table = buildRunsTable(
  Object.keys(SCORES).map((name) => {
    const [algo, env, seed] = name.split('-');
    return run(name, name === 'lone' ? null : { algo, env, seed: Number(seed!.slice(1)), gamma: 0.99 });
  }),
);
const score = (r: string): number | null => SCORES[r] ?? null;
const opts = { reps: 300, seed: 5 };

describe('aggregate of the runs table', () => {
  test('--by and --task: a group per value, its runs split by task in name order; no value or no key: left out', () => {
    const r = aggregateTable(table, { metric: 'reward.last', score, by: 'algo', task: 'env', ...opts });
    expect(r.groups.map((g) => [g.label, g.tasks.map((t) => `${t.task}:${t.scores.join('/')}`)])).toEqual([
      ['algo=ppo', ['ant:7', 'hop:3/5', 'walk:1/2']],
      ['algo=sac', ['hop:4/1', 'walk:0.5']],
      ['algo=(none)', ['(none):9']],
    ]);
    expect(r.leftOut).toEqual(['sac-walk-s1']);
    expect(r.groups[0]!.estimates).toEqual(aggregateEstimates([[7], [3, 5], [1, 2]], opts));
    expect(r.gamma).toBeNull();
  });

  test('seed groups by default: runs in none are left out; normalised scores get γ = 1', () => {
    const r = aggregateTable(table, {
      metric: 'reward.last',
      score,
      normalise: { min: 0, max: 10 },
      ...opts,
    });
    expect(r.groups.map((g) => [g.label, g.tasks[0]!.scores])).toEqual([
      ['algo=ppo, env=hop', [0.3, 0.5]],
      ['algo=ppo, env=walk', [0.1, 0.2]],
      ['algo=sac, env=hop', [0.4, 0.1]],
      ['algo=sac, env=walk', [0.05]],
    ]);
    expect(r.leftOut.sort()).toEqual(['lone', 'ppo-ant-s0', 'sac-walk-s1']);
    expect(r.gamma).toBe(1);
    expect(r.groups[0]!.estimates.optimalityGap!.value).toBeCloseTo(0.6, 12);
  });

  test('a key equal in every run is one group; an unknown key is a typed error', () => {
    const same = buildRunsTable([run('a', { gamma: 0.99, seed: 1 }), run('b', { gamma: 0.99, seed: 2 })]);
    expect(same.equal.map((e) => e.key)).toEqual(['gamma']);
    const r = aggregateTable(same, { metric: 'm', score: () => 1, by: 'gamma', ...opts });
    expect(r.groups.map((g) => g.label)).toEqual(['gamma=0.99']);
    expect(() => aggregateTable(table, { metric: 'm', score, by: 'nope' })).toThrow(AggregateInputError);
  });

  test('P(X > Y) over the tasks both groups have (ant is ppo only)', () => {
    const r = aggregateTable(table, { metric: 'm', score, by: 'algo', task: 'env', ...opts });
    const c = compareGroups(r, 'algo=ppo', 'algo=sac');
    expect(c.tasks).toEqual(['hop', 'walk']);
    expect(c.improvement.value).toBe(
      probabilityOfImprovement(
        [
          [3, 5],
          [1, 2],
        ],
        [[4, 1], [0.5]],
      ),
    );
    expect(() => compareGroups(r, 'algo=ppo', 'algo=(none)')).toThrow(/share no task/);
  });

  test('CSV: a line per group and statistic; a label a spreadsheet would run is guarded, numbers stay numbers', () => {
    const evil = buildRunsTable([run('=cmd()_seed1', { seed: 1 }), run('=cmd()_seed2', { seed: 2 })]);
    const r = aggregateTable(evil, { metric: 'm', score: () => 1, ...opts });
    const rows = parse(aggregateCsv(r), { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => [x.group, x.statistic, x.value, x.runs])).toEqual([
      ["'=cmd()", 'iqm', '1', '2'],
      ["'=cmd()", 'mean', '1', '2'],
      ["'=cmd()", 'median', '1', '2'],
    ]);
    const profile = parse(profileCsv(aggregateProfiles(r, 3)), { columns: true }) as Record<string, string>[];
    expect(profile.map((p) => [p.tau, p.fraction])).toEqual([['1', '0']]);
  });
});
