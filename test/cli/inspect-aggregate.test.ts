// `inspect --table --aggregate`: two algorithms × two environments × three seeds, each group's rliable statistics from
// its runs' last rewards split by task, P(X > Y), the tidy CSV, the profile files, and the usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { main } from '../../src/cli/main';
import { UsageError } from '../../src/cli/usage';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { aggregateEstimates, improvementEstimate } from '../../src/shared/compare/aggregate-scores';
import { AGGREGATE_REPS, AGGREGATE_SEED, PROFILE_POINTS } from '../../src/shared/compare/aggregate-table';
import { formatValue } from '../../src/shared/format';

/** Last reward per algorithm, environment and seed (float32-exact). */
const FINAL: Record<string, Record<string, number[]>> = {
  ppo: { CartPole: [450, 500, 475.5], Pendulum: [-150.5, -140, -180] },
  a2c: { CartPole: [300, 420.25, 380], Pendulum: [-400, -220.5, -260] },
};

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  try {
    return { code: await main(args), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const ci = (e: { value: number; lower: number; upper: number }): string =>
  `${formatValue(e.value, 6)} [${formatValue(e.lower, 6)}, ${formatValue(e.upper, 6)}]`;

describe('inspect --table --aggregate', () => {
  let root: string;
  let outside: string;
  const opts = { reps: AGGREGATE_REPS, seed: AGGREGATE_SEED };
  const tasks = (algo: string): number[][] => ['CartPole', 'Pendulum'].map((env) => FINAL[algo]![env]!);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'rlwatch-aggregate-'));
    outside = mkdtempSync(join(tmpdir(), 'rlwatch-aggregate-out-'));
    for (const [algo, envs] of Object.entries(FINAL))
      for (const [env, lasts] of Object.entries(envs))
        lasts.forEach((last, seed) => {
          const dir = join(root, `${algo}_${env}_seed${seed}`);
          mkdirSync(dir);
          writeFileSync(join(dir, 'config.json'), JSON.stringify({ algo, env, seed, lr: 3e-4 }));
          const w = new EventFileWriter(dir, { wallTime: 1_700_000_000 });
          w.scalars(0, [{ tag: 'rollout/ep_rew_mean', value: 0 }], 'simple', 1_700_000_000);
          w.scalars(10, [{ tag: 'rollout/ep_rew_mean', value: last }], 'simple', 1_700_000_010);
          w.close();
        });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test('text: per group its runs, tasks and IQM, mean, median with their stratified CIs; P(X > Y) under it', async () => {
    const r = await cli([
      'inspect',
      root,
      '--table',
      '--aggregate',
      'reward.last',
      '--by',
      'algo',
      '--task',
      'env',
      '--compare',
      'algo=ppo',
      '--compare',
      'algo=a2c',
    ]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    for (const algo of ['ppo', 'a2c']) {
      const e = aggregateEstimates(tasks(algo), opts);
      const row = lines.find((l) => l.startsWith(`algo=${algo} `))!;
      expect(row.split(/\s{2,}/).slice(0, 6)).toEqual([
        `algo=${algo}`,
        '6',
        '2',
        ci(e.iqm),
        ci(e.mean),
        ci(e.median),
      ]);
    }
    const p = improvementEstimate(tasks('ppo'), tasks('a2c'), opts);
    expect(r.out).toContain(`P(algo=ppo > algo=a2c) = ${ci(p)} over 2 tasks`);
    expect(r.out).toContain('optimality gap: give --min/--max (normalised scores) or --gamma');
    expect(r.out).toContain('note: the IQM and the median pool raw scores of different tasks');
  });

  test('CSV: tidy lines (group, statistic, value, lower, upper, runs, tasks, versus) that parse as numbers', async () => {
    const r = await cli([
      'inspect',
      root,
      '--table',
      '--aggregate',
      'rollout/ep_rew_mean',
      '--by',
      'algo',
      '--task',
      'env',
      '--min=-500',
      '--max',
      '500',
      '--compare',
      'algo=a2c',
      '--compare',
      'algo=ppo',
      '--csv',
    ]);
    const rows = parse(r.out, { columns: true, cast: true }) as Record<string, string | number>[];
    expect(Object.keys(rows[0]!)).toEqual([
      'group',
      'statistic',
      'value',
      'lower',
      'upper',
      'runs',
      'tasks',
      'versus',
    ]);
    const norm = (algo: string): number[][] => tasks(algo).map((t) => t.map((x) => (x + 500) / 1000));
    const e = aggregateEstimates(norm('a2c'), { ...opts, gamma: 1 });
    const gap = rows.find((x) => x.group === 'algo=a2c' && x.statistic === 'optimality_gap')!;
    expect([gap.value, gap.lower, gap.upper, gap.runs, gap.tasks]).toEqual([
      e.optimalityGap!.value,
      e.optimalityGap!.lower,
      e.optimalityGap!.upper,
      6,
      2,
    ]);
    expect(rows.map((x) => `${x.group}:${x.statistic}`).sort()).toEqual(
      [
        ...['algo=ppo', 'algo=a2c'].flatMap((g) =>
          ['iqm', 'mean', 'median', 'optimality_gap'].map((s) => `${g}:${s}`),
        ),
        'algo=a2c:probability_of_improvement',
      ].sort(),
    );
    const poi = rows.at(-1)!;
    expect([poi.versus, poi.value]).toEqual([
      'algo=ppo',
      improvementEstimate(norm('a2c'), norm('ppo'), opts).value,
    ]);
  });

  test('--out writes aggregate.csv, profile.csv (a line per group and τ) and a PNG; never into the folder read', async () => {
    const dir = join(outside, 'agg');
    const r = await cli([
      'inspect',
      root,
      '--table',
      '--aggregate',
      'reward.last',
      '--by',
      'algo',
      '--task',
      'env',
      '--out',
      dir,
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(join(dir, 'profile.png'));
    const profile = parse(readFileSync(join(dir, 'profile.csv')), { columns: true, cast: true }) as {
      group: string;
      tau: number;
      fraction: number;
    }[];
    expect(profile).toHaveLength(2 * PROFILE_POINTS);
    // The first τ is the lowest score of all: every run but that one lies above it; at the last none does.
    const a2c = profile.filter((p) => p.group === 'algo=a2c');
    expect(a2c[0]).toMatchObject({ tau: -400, fraction: 5 / 6 });
    expect(a2c.at(-1)).toMatchObject({ tau: 500, fraction: 0 });
    expect(readFileSync(join(dir, 'profile.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(join(dir, 'aggregate.csv'), 'utf8')).toMatch(/^group,statistic,value/);
    await expect(
      cli([
        'inspect',
        root,
        '--table',
        '--aggregate',
        'reward.last',
        '--by',
        'algo',
        '--out',
        join(root, 'x'),
      ]),
    ).rejects.toThrow(/never writes into the folder it reads/);
  });

  test('seed groups by default; bad input is a usage error that names what is wrong', async () => {
    const r = await cli(['inspect', root, '--table', '--aggregate', 'reward.last']);
    // Runs that differ only in their seed: one group per algorithm and environment, three runs each, named by the
    // config keys that set them apart.
    const rows = r.out.split('\n').map((l) => l.split(/\s{2,}/));
    expect(
      rows
        .filter((c) => c[1] === '3' && c[2] === '1')
        .map((c) => c[0])
        .sort(),
    ).toEqual([
      'algo=a2c, env=CartPole',
      'algo=a2c, env=Pendulum',
      'algo=ppo, env=CartPole',
      'algo=ppo, env=Pendulum',
    ]);
    const bad: [string[], RegExp][] = [
      [['--aggregate', 'nope'], /no such metric column \(reward\.last, reward\.best/],
      [['--aggregate', 'reward.last', '--task', 'env'], /--task env needs --by KEY/],
      [['--aggregate', 'reward.last', '--by', 'optimizer'], /no run has a config key optimizer/],
      [
        ['--aggregate', 'reward.last', '--by', 'algo', '--compare', 'algo=dqn', '--compare', 'algo=ppo'],
        /no group algo=dqn/,
      ],
      [['--aggregate', 'reward.last', '--min', '0'], /give both/],
      [['--aggregate', 'reward.last', '--min', '1', '--max', '0'], /--max must be greater/],
      [['--by', 'algo'], /--by goes with --table --aggregate/],
    ];
    for (const [args, message] of bad) {
      const p = cli(['inspect', root, '--table', ...args]);
      await expect(p).rejects.toBeInstanceOf(UsageError);
      await expect(p).rejects.toThrow(message);
    }
  });
});
