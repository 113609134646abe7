// `inspect --table` with seed groups: each group's row (n, mean ± 95 % CI per metric) before its runs in text, JSON
// (`kind: "group"` rows with the numbers) and CSV (`kind` and `group` columns first), from one builder.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runsTableOutput } from '../../src/cli/runs-table-output';
import { inspectPath, type InspectReport } from '../../src/core/inspect';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { GROUP_CI_RESAMPLES, GROUP_CI_SEED, groupStatText } from '../../src/shared/compare/group-rows';
import { bootstrapMeanCi, seededRandom } from '../../src/shared/compare/group-stats';

/** Final rewards: a 2-seed group, a 3-seed group, one run alone (float32-exact values). */
const FINAL: Record<string, number> = {
  a_seed0: 10.5,
  a_seed1: 12.25,
  b_seed0: 20,
  b_seed1: 21.5,
  b_seed2: 25,
  solo: 3,
};
const LR: Record<string, number> = { a: 0.1, b: 0.01, solo: 0.5 };

describe('inspect --table with seed groups', () => {
  let root: string;
  let report: InspectReport;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'rlwatch-table-groups-'));
    for (const [run, last] of Object.entries(FINAL)) {
      const dir = join(root, run);
      mkdirSync(dir);
      const [cfg, seed] = run === 'solo' ? ['solo', 0] : [run.split('_')[0]!, Number(run.at(-1))];
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ lr: LR[cfg], seed }));
      const w = new EventFileWriter(dir, { wallTime: 1_700_000_000 });
      w.scalars(0, [{ tag: 'reward', value: 0 }], 'simple', 1_700_000_000);
      w.scalars(10, [{ tag: 'reward', value: last }], 'simple', 1_700_000_010);
      w.close();
    }
    report = await inspectPath(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const expected = (runs: string[]): string => {
    const xs = runs.map((r) => FINAL[r]!);
    const [lower, upper] = bootstrapMeanCi(xs, GROUP_CI_RESAMPLES, seededRandom(GROUP_CI_SEED));
    return groupStatText({ n: xs.length, mean: xs.reduce((s, x) => s + x, 0) / xs.length, lower, upper }, 6)!;
  };

  test('text: a group row with n runs and mean ± CI, its runs indented beneath; the meaning said under it', () => {
    const lines = runsTableOutput(report, 'text').split('\n');
    const at = (start: string): number => lines.findIndex((l) => l.startsWith(start));
    expect(at('lr=0.1 (over seed ×2)')).toBe(at('  a_seed0') - 1);
    expect(at('lr=0.01 (over seed ×3)')).toBe(at('  b_seed0') - 1);
    expect(lines[at('lr=0.1 (over seed ×2)')]).toContain(expected(['a_seed0', 'a_seed1']));
    expect(lines[at('lr=0.01 (over seed ×3)')]).toContain(expected(['b_seed0', 'b_seed1', 'b_seed2']));
    expect(at('solo')).toBeGreaterThan(0);
    expect(lines).toContain("2 seed groups: mean ± [95 % bootstrap CI] of the runs' values");
  });

  test('JSON: kind "group" rows with n, runs and the numbers, before their kind "run" rows', () => {
    const doc = JSON.parse(runsTableOutput(report, 'json')) as {
      rows: (
        | { kind: 'run'; group: string | null; run: string }
        | {
            kind: 'group';
            group: string;
            n: number;
            runs: string[];
            stats: Record<string, { mean: number } | null>;
          }
      )[];
    };
    expect(doc.rows.map((r) => (r.kind === 'group' ? `[${r.group}]` : `${r.group ?? '-'}:${r.run}`))).toEqual(
      [
        '[lr=0.1]',
        'lr=0.1:a_seed0',
        'lr=0.1:a_seed1',
        '[lr=0.01]',
        'lr=0.01:b_seed0',
        'lr=0.01:b_seed1',
        'lr=0.01:b_seed2',
        '-:solo',
      ],
    );
    const b = doc.rows[3]!;
    expect(b.kind === 'group' && [b.n, b.runs, b.stats['reward.last']!.mean]).toEqual([
      3,
      ['b_seed0', 'b_seed1', 'b_seed2'],
      22.166666666666668,
    ]);
  });

  test('CSV: kind and group columns first; the group row carries the statistic as number columns', () => {
    const rows = parse(runsTableOutput(report, 'csv')) as string[][];
    expect(rows[0]!.slice(0, 3)).toEqual(['kind', 'group', 'run']);
    const reward = rows[0]!.indexOf('reward (last)');
    expect(rows.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([
      ['group', 'lr=0.1', 'lr=0.1 (over seed ×2)'],
      ['run', 'lr=0.1', 'a_seed0'],
      ['run', 'lr=0.1', 'a_seed1'],
      ['group', 'lr=0.01', 'lr=0.01 (over seed ×3)'],
      ['run', 'lr=0.01', 'b_seed0'],
      ['run', 'lr=0.01', 'b_seed1'],
      ['run', 'lr=0.01', 'b_seed2'],
      ['run', '', 'solo'],
    ]);
    // The group's statistic in the columns after the metric's (mean, lower, upper, n, band), as numbers.
    expect(rows[0]!.slice(reward, reward + 6)).toEqual(
      ['', ' mean', ' lower', ' upper', ' n', ' band'].map((f) => `reward (last)${f}`),
    );
    const [lower, upper] = bootstrapMeanCi([10.5, 12.25], GROUP_CI_RESAMPLES, seededRandom(GROUP_CI_SEED));
    expect(rows[1]!.slice(reward, reward + 6)).toEqual([
      '',
      '11.375',
      String(lower),
      String(upper),
      '2',
      'ci95',
    ]);
    // The config the group's runs share, not their seeds.
    expect([rows[1]![rows[0]!.indexOf('lr')], rows[1]![rows[0]!.indexOf('seed')]]).toEqual(['0.1', '']);
    expect(rows[2]![reward]).toBe('10.5');
  });
});
