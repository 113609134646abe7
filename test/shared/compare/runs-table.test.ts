// The runs table: key metrics by role, varying config keys as columns, equal ones folded, CSV safe in a spreadsheet.

import { describe, expect, test } from 'vitest';
import { parse } from 'csv-parse/sync';
import { buildRunsTable, runsTableCsv, type TableRunInput } from '../../../src/shared/compare/runs-table';

const run = (
  name: string,
  config: Record<string, unknown> | null,
  over: Partial<TableRunInput> = {},
): TableRunInput => ({
  run: name,
  status: 'finished',
  formats: ['tfevents'],
  step: 1000,
  points: 3000,
  sessions: 1,
  startWall: 1_700_000_000,
  endWall: 1_700_000_600,
  scalars: {
    'rollout/ep_rew_mean': { last: 150, min: 10, max: 200 },
    'train/approx_kl': { last: 0.01, min: 0, max: 0.05 },
    'train/loss': { last: 0.5, min: 0.2, max: 3 },
  },
  config,
  ...over,
});

describe('runs table: entropy in its own sign', () => {
  test("SB3's train/entropy_loss (−entropy) fills the entropy column negated, says so, and sorts as entropy", () => {
    const sb3 = (name: string, entropyLoss: number) =>
      run(name, null, {
        scalars: { 'train/entropy_loss': { last: entropyLoss, min: entropyLoss - 0.2, max: entropyLoss } },
      });
    const t = buildRunsTable([
      sb3('sb3-narrow', -0.31),
      sb3('sb3-wide', -0.66),
      run('verl', null, { scalars: { 'actor/entropy': { last: 0.5, min: 0.4, max: 1 } } }),
    ]);
    const cells = Object.fromEntries(t.rows.map((r) => [r.run, r.cells['entropy.last']]));
    expect(cells).toEqual({ 'sb3-narrow': 0.31, 'sb3-wide': 0.66, verl: 0.5 });
    const col = t.columns.find((c) => c.id === 'entropy.last')!;
    expect(col.label).toBe('entropy (last)');
    expect(col.note).toBe('train/entropy_loss is −entropy: shown negated, as entropy');
    expect(
      (parse(runsTableCsv(t), { columns: true }) as Record<string, string>[]).map((r) => r['entropy (last)']),
    ).toEqual(['0.31', '0.66', '0.5']);
    // Without a negated tag, no note.
    expect(
      buildRunsTable([run('a', null)]).columns.find((c) => c.id === 'entropy.last')!.note,
    ).toBeUndefined();
  });
});

describe('runs table', () => {
  test('key metrics by role (reward best = max, loss best = min), varying keys as columns, equal keys folded', () => {
    const t = buildRunsTable([
      run('ppo_lr3e-4', {
        algo: 'ppo',
        lr: 3e-4,
        env: { id: 'CartPole-v1' },
        _wandb: { cli_version: '0.15' },
      }),
      run(
        'ppo_lr1e-3',
        { algo: 'ppo', lr: 1e-3, env: { id: 'CartPole-v1' }, gamma: 0.99 },
        { status: 'crashed' },
      ),
    ]);
    expect(t.equal).toEqual([
      { key: 'algo', value: 'ppo' },
      { key: 'env.id', value: 'CartPole-v1' },
    ]);
    expect(t.columns.filter((c) => c.kind === 'config').map((c) => c.id)).toEqual([
      'config.gamma',
      'config.lr',
    ]);
    const [a, b] = t.rows;
    expect(a!.cells).toMatchObject({
      run: 'ppo_lr3e-4',
      status: 'finished',
      step: 1000,
      start: '2023-11-14T22:13:20.000Z',
      duration: 600,
      'reward.last': 150,
      'reward.best': 200,
      'kl.last': 0.01,
      'entropy.last': null,
      'loss.last': 0.5,
      'loss.best': 0.2,
      'config.lr': 3e-4,
      'config.gamma': null,
    });
    expect(b!.cells['status']).toBe('crashed');
    expect(b!.cells['config.gamma']).toBe(0.99);
  });

  test('a single run folds nothing; nested values are JSON text; runs without config have empty config cells', () => {
    const one = buildRunsTable([run('a', { lr: 1, layers: [64, 64] })]);
    expect(one.equal).toEqual([]);
    expect(one.rows[0]!.cells['config.layers']).toBe('[64,64]');
    const mixed = buildRunsTable([run('a', { lr: 1 }), run('b', null)]);
    expect(mixed.rows.map((r) => r.cells['config.lr'])).toEqual([1, null]);
  });

  test('CSV: one header, one line per run, RFC 4180 quoting, formulas made inert, negative numbers kept', () => {
    const t = buildRunsTable([
      run('a,"quoted"', { note: '=HYPERLINK("http://x")', lr: -0.5 }),
      run('b', { note: 'plain', lr: 1 }),
    ]);
    const rows = parse(runsTableCsv(t), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r['run'])).toEqual(['a,"quoted"', 'b']);
    expect(rows[0]!['note']).toBe(`'=HYPERLINK("http://x")`);
    expect(rows[0]!['lr']).toBe('-0.5');
    expect(rows[1]!['reward (best)']).toBe('200');
  });
});
