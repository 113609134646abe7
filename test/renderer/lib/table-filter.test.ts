// The runs table's filter expressions: run-name text, comparisons on any column, && || ! and parentheses, errors as values.

import { describe, expect, test } from 'vitest';
import type { Cell, TableColumn } from '../../../src/shared/compare/table-cell';
import { compileTableFilter, resolveColumn } from '../../../src/renderer/src/lib/table-filter';

const COLUMNS: TableColumn[] = [
  { id: 'run', label: 'run', kind: 'run' },
  { id: 'status', label: 'status', kind: 'run' },
  { id: 'format', label: 'format', kind: 'run' },
  { id: 'step', label: 'steps', kind: 'run' },
  { id: 'reward.best', label: 'reward (best)', kind: 'metric' },
  { id: 'kl.last', label: 'KL (last)', kind: 'metric' },
  { id: 'config.lr', label: 'lr', kind: 'config' },
  { id: 'config.env.id', label: 'env.id', kind: 'config' },
  { id: 'config.use_gae', label: 'use_gae', kind: 'config' },
];

const ROWS: Record<string, Cell>[] = [
  {
    run: 'ppo/seed-1',
    status: 'live',
    format: 'tfevents',
    step: 1000,
    'reward.best': 150,
    'kl.last': 0.01,
    'config.lr': 3e-4,
    'config.env.id': 'CartPole-v1',
    'config.use_gae': true,
  },
  {
    run: 'ppo/seed-2',
    status: 'idle',
    format: 'csv',
    step: 900,
    'reward.best': 90,
    'kl.last': null,
    'config.lr': '1e-4',
    'config.env.id': 'Hopper-v4',
    'config.use_gae': false,
  },
  {
    run: 'dqn/seed-1',
    status: 'finished',
    format: 'tfevents wandb',
    step: 5000,
    'reward.best': 101,
    'kl.last': 0.2,
    'config.lr': null,
    'config.env.id': 'CartPole-v1',
    'config.use_gae': null,
  },
];

/** The runs an expression keeps, or its error. */
function keep(text: string): string[] | string {
  const f = compileTableFilter(text, COLUMNS);
  return f.ok ? ROWS.filter((r) => f.test(r)).map((r) => String(r.run)) : `error: ${f.error}`;
}

describe('the runs table filter', () => {
  test('empty text keeps every run; plain text is a case-insensitive substring of the run name', () => {
    expect(keep('')).toEqual(['ppo/seed-1', 'ppo/seed-2', 'dqn/seed-1']);
    expect(keep('  ')).toHaveLength(3);
    expect(keep('PPO/')).toEqual(['ppo/seed-1', 'ppo/seed-2']);
    expect(keep('seed-1')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep('nothing')).toEqual([]);
  });

  test('numbers compare numerically, also against numbers written as text; empty cells match nothing', () => {
    expect(keep('reward.best > 100')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep('reward.best >= 101')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep('reward.best < 100.5')).toEqual(['ppo/seed-2']);
    // "1e-4" in a config is a number to compare; 9 < 10 numerically though "9" > "10" as text.
    expect(keep('lr < 2e-4')).toEqual(['ppo/seed-2']);
    expect(keep('step < 1000')).toEqual(['ppo/seed-2']);
    expect(keep('kl.last != 5')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep('kl.last <= -1')).toEqual([]);
  });

  test('text compares without case; ~ is contains; booleans as words', () => {
    expect(keep('format == tfevents')).toEqual(['ppo/seed-1']);
    expect(keep('format = TFEVENTS')).toEqual(['ppo/seed-1']);
    expect(keep('format ~ wandb')).toEqual(['dqn/seed-1']);
    expect(keep('env.id == "cartpole-v1"')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep("status != 'live'")).toEqual(['ppo/seed-2', 'dqn/seed-1']);
    expect(keep('use_gae == true')).toEqual(['ppo/seed-1']);
  });

  test('&& binds tighter than ||; ! and parentheses; a bare word inside is a run-name match', () => {
    expect(keep('reward.best > 100 && format == tfevents')).toEqual(['ppo/seed-1']);
    expect(keep('format == csv || reward.best > 100 && status == finished')).toEqual([
      'ppo/seed-2',
      'dqn/seed-1',
    ]);
    expect(keep('(format == csv || reward.best > 100) && status == finished')).toEqual(['dqn/seed-1']);
    expect(keep('!(format == csv)')).toEqual(['ppo/seed-1', 'dqn/seed-1']);
    expect(keep('ppo && !seed-2')).toEqual(['ppo/seed-1']);
  });

  test('columns by id, label, config key alone, any case', () => {
    expect(resolveColumn('reward.best', COLUMNS)).toBe('reward.best');
    expect(resolveColumn('KL (last)', COLUMNS)).toBe('kl.last');
    expect(resolveColumn('KL.last', COLUMNS)).toBe('kl.last');
    expect(resolveColumn('steps', COLUMNS)).toBe('step');
    expect(resolveColumn('env.id', COLUMNS)).toBe('config.env.id');
    expect(resolveColumn('LR', COLUMNS)).toBe('config.lr');
    expect(resolveColumn('nope', COLUMNS)).toBe(null);
  });

  test('an invalid expression is an error value, never a throw', () => {
    expect(keep('reward.best >')).toBe('error: expected a value after ">" at the end');
    expect(keep('nope > 3')).toBe('error: no column "nope"');
    expect(keep('(format == csv')).toBe('error: expected ")" at the end');
    expect(keep('format == csv)')).toBe('error: unexpected ")" at 14');
    expect(keep('format == csv & b')).toBe('error: "&" at 15: write &&');
    // Without an operator it is a name: a run may be called that.
    expect(keep('a & b')).toEqual([]);
    expect(keep('format == "csv')).toBe('error: unclosed quote at 11');
    expect(keep('&& x')).toBe('error: unexpected "&&" at 1');
    expect(keep('x ||')).toBe('error: the expression ends too soon');
    // Nesting deep enough to overflow the parser's stack is still an answer.
    const deep = `${'('.repeat(100_000)}x${')'.repeat(100_000)}`;
    expect(() => compileTableFilter(deep, COLUMNS)).not.toThrow();
    expect(compileTableFilter(deep, COLUMNS).ok).toBe(false);
  });

  test('a long && / || chain filters without overflowing the stack; nesting past the bound is a typed error', () => {
    // 50,000 terms: one closure per `||` once overflowed the stack when a row was tested (a RangeError in the
    // table's derived rows, which kept the stale ones).
    const ors = Array.from({ length: 50_000 }, () => 'zzz').join('||') + '||seed-2';
    expect(keep(ors)).toEqual(['ppo/seed-2']);
    const ands = Array.from({ length: 50_000 }, () => 'seed').join(' && ');
    expect(keep(ands)).toEqual(['ppo/seed-1', 'ppo/seed-2', 'dqn/seed-1']);
    expect(keep(`${'!'.repeat(100_000)}x`)).toBe('error: nested deeper than 64 levels at 65');
    expect(keep(`${'('.repeat(65)}ppo${')'.repeat(65)}`)).toBe('error: nested deeper than 64 levels at 65');
    // Up to the bound, nesting works.
    expect(keep(`${'('.repeat(64)}ppo${')'.repeat(64)}`)).toEqual(['ppo/seed-1', 'ppo/seed-2']);
    expect(keep(`${'!'.repeat(64)}dqn`)).toEqual(['dqn/seed-1']);
  });
});
