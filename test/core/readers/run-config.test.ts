// A run folder's own config: config.json, else config.yaml / config.yml, else Hydra's .hydra/config.yaml; bad files are skipped, never thrown.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tableInput } from '../../../src/cli/runs-table-output';
import { inspectPath } from '../../../src/core/inspect';
import { readRunConfig } from '../../../src/core/readers/run-config';
import { buildRunsTable } from '../../../src/shared/compare/runs-table';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

function folder(files: Record<string, string>): string {
  const dir = tmp('rlwatch-config-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('readRunConfig', () => {
  test('config.json wins over config.yaml', async () => {
    const dir = folder({ 'config.json': '{"lr": 0.001}', 'config.yaml': 'lr: 0.5\n' });
    expect(await readRunConfig(dir)).toEqual({ lr: 0.001 });
  });

  test('config.yaml, config.yml and Hydra’s .hydra/config.yaml are read as nested mappings', async () => {
    expect(
      await readRunConfig(folder({ 'config.yaml': 'algo:\n  name: ppo\n  clip: 0.2\nseed: 3\n' })),
    ).toEqual({
      algo: { name: 'ppo', clip: 0.2 },
      seed: 3,
    });
    expect(await readRunConfig(folder({ 'config.yml': 'gamma: 0.99\n' }))).toEqual({ gamma: 0.99 });
    expect(await readRunConfig(folder({ '.hydra/config.yaml': 'env:\n  id: CartPole-v1\n' }))).toEqual({
      env: { id: 'CartPole-v1' },
    });
  });

  test('a file that is not a mapping, does not parse, or is hostile is skipped for the next one', async () => {
    expect(await readRunConfig(folder({ 'config.json': '[1, 2]', 'config.yaml': 'a: 1\n' }))).toEqual({
      a: 1,
    });
    expect(await readRunConfig(folder({ 'config.json': '{"a": ', 'config.yml': 'b: 2\n' }))).toEqual({
      b: 2,
    });
    expect(await readRunConfig(folder({ 'config.yaml': 'just text\n' }))).toBeNull();
    expect(await readRunConfig(folder({ 'config.yaml': 'a: [1, 2\n' }))).toBeNull();
    // A billion laughs: aliases past the reader's bound fail the parse instead of growing.
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    expect(await readRunConfig(folder({ 'config.yaml': laughs.join('\n') + '\n' }))).toBeNull();
    // `__proto__` keys never reach the prototype.
    const proto = await readRunConfig(folder({ 'config.yaml': '__proto__:\n  polluted: true\nok: 1\n' }));
    expect(proto).toEqual({ ok: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await readRunConfig(folder({}))).toBeNull();
  });

  test('an alias-bomb or oversized config.yaml is a typed warning naming it, and the other runs keep theirs (inspect)', async () => {
    const root = tmp('rlwatch-config-bomb-');
    const bomb = `a: &a [${Array(20_000).fill('0').join(',')}]\nb: [${Array(999).fill('*a').join(',')}]\n`;
    // 300 kB of plain keys: legal YAML, far past any real config.
    const big = Array.from({ length: 20_000 }, (_, i) => `key_${i}: ${i}\n`).join('');
    const files: Record<string, Record<string, string>> = {
      bomb: { 'config.yaml': bomb },
      big: { '.hydra/config.yaml': big },
      ok: { 'config.yml': 'gamma: 0.99\n' },
    };
    for (const [run, own] of Object.entries(files)) {
      mkdirSync(join(root, run, '.hydra'), { recursive: true });
      writeFileSync(join(root, run, 'metrics.csv'), 'step,reward\n0,1\n1,2\n');
      for (const [name, text] of Object.entries(own)) writeFileSync(join(root, run, name), text);
    }
    const report = await inspectPath(root);
    expect(report.runs.map((r) => [r.run, r.config])).toEqual([
      ['big', null],
      ['bomb', null],
      ['ok', { gamma: 0.99 }],
    ]);
    expect(report.runs.every((r) => r.scalars['reward']?.count === 2)).toBe(true);
    expect(report.walkErrors).toEqual([
      {
        path: join(root, 'big'),
        message: expect.stringMatching(/^\.hydra[\\/]config\.yaml over \d+ bytes$/),
      },
      { path: join(root, 'bomb'), message: expect.stringMatching(/^config\.yaml: too many aliased nodes/) },
    ]);
    const warned: string[] = [];
    expect(await readRunConfig(join(root, 'bomb'), (m) => warned.push(m))).toBeNull();
    expect(warned).toEqual([expect.stringMatching(/^config\.yaml: too many aliased nodes/)]);
  });

  test('a YAML config varies between runs as a runs table column (inspect → table)', async () => {
    const root = tmp('rlwatch-config-runs-');
    for (const [run, lr] of [
      ['a', 0.001],
      ['b', 0.0003],
    ] as const) {
      mkdirSync(join(root, run));
      writeFileSync(join(root, run, 'metrics.csv'), 'step,reward\n0,1\n1,2\n');
      writeFileSync(join(root, run, 'config.yaml'), `optim:\n  lr: ${lr}\ngamma: 0.99\n`);
    }
    const report = await inspectPath(root);
    const table = buildRunsTable(report.runs.map(tableInput));
    const lr = table.columns.find((c) => c.kind === 'config' && c.label.includes('optim.lr'));
    expect(lr).toBeDefined();
    expect(table.rows.map((r) => r.cells[lr!.id])).toEqual([0.001, 0.0003]);
    expect(table.columns.some((c) => c.label.includes('gamma'))).toBe(false);
  });
});
