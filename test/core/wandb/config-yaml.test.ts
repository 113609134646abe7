// W&B config.yaml parsing on real and synthetic files: wrapped strings, flow lists, anchors, hostile input.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../../src/core/readers/yaml-document';
import { MAX_CONFIG_YAML_BYTES, parseWandbConfigYaml } from '../../../src/core/wandb/config-yaml';
import { fixture } from '../readers/helpers';

async function config(text: string): Promise<Record<string, unknown>> {
  const got = await parseWandbConfigYaml(text);
  if (!got.ok) throw new Error(got.message);
  return got.config;
}

describe('config.yaml parser', () => {
  it('unwraps desc/value entries of a real W&B 0.14 config.yaml, lists at the key indent included', async () => {
    const text = readFileSync(
      fixture('wandb/480284856__RLHF_Training/run-20230420_073822-clnzftry/files/config.yaml'),
      'utf8',
    );
    const c = await config(text);
    expect(Object.keys(c)).toEqual(['_wandb']);
    const w = c['_wandb'] as Record<string, unknown>;
    expect(w).toMatchObject({
      python_version: '3.9.12',
      cli_version: '0.14.2',
      is_jupyter_run: false,
      start_time: 1681976302.75027,
    });
    expect((w['t'] as Record<string, unknown>)['1']).toEqual([1, 11, 49, 51, 55, 70]);
    expect((w['t'] as Record<string, unknown>)['8']).toEqual([5]);
    expect((w['t'] as Record<string, unknown>)['4']).toBe('3.9.12');
  });

  it('parses scalars, quoted strings, comments, nested lists of maps, flow collections and literal blocks', async () => {
    const parsed = parseYaml(
      [
        'lr:',
        '  desc: null',
        '  value: 3.0e-4   # comment',
        "name: {value: 'it''s'}",
        'q: "a: b # not a comment"',
        'layers:',
        '  value:',
        '  - size: 64',
        '    act: relu',
        '  - size: .inf',
        'flags: [x, y]',
        'text: |',
        '  line one',
        '  line two',
        'empty: []',
        '__proto__: 1',
      ].join('\n'),
    );
    expect(parsed.ok).toBe(true);
    const doc = (parsed as { value: Record<string, unknown> }).value;
    expect(doc['lr']).toEqual({ desc: null, value: 3e-4 });
    expect(doc['name']).toEqual({ value: "it's" });
    expect(doc['q']).toBe('a: b # not a comment');
    expect(doc['layers']).toEqual({ value: [{ size: 64, act: 'relu' }, { size: Infinity }] });
    expect(doc['flags']).toEqual(['x', 'y']);
    expect(doc['text']).toBe('line one\nline two\n');
    expect(doc['empty']).toEqual([]);
    expect(Object.prototype.hasOwnProperty.call(doc, '__proto__')).toBe(false);
    expect(await config('wandb_version: 1\n\nepochs:\n  desc: null\n  value: 5\n')).toEqual({ epochs: 5 });
  });

  it('keeps every key after a long string PyYAML wrapped at 80 columns (plain, single- and double-quoted)', async () => {
    const text = [
      'wandb_version: 1',
      '',
      'prompt:',
      '  desc: null',
      '  value: You are a helpful assistant. Answer the question below as briefly as you',
      '    can, and say so when you do not know.',
      'system:',
      '  desc: null',
      "  value: 'A single-quoted string that is long enough for PyYAML to wrap it onto",
      "    the next line: it''s still one value'",
      'template:',
      '  desc: null',
      '  value: "Double-quoted with an escape \\t and long enough to be folded by the dumper\\',
      '    \\ at eighty columns"',
      'seed:',
      '  desc: null',
      '  value: 42',
    ].join('\n');
    const c = await config(text);
    expect(c['prompt']).toBe(
      'You are a helpful assistant. Answer the question below as briefly as you can, and say so when you do not know.',
    );
    expect(c['system']).toBe(
      "A single-quoted string that is long enough for PyYAML to wrap it onto the next line: it's still one value",
    );
    expect(c['template']).toBe(
      'Double-quoted with an escape \t and long enough to be folded by the dumper at eighty columns',
    );
    expect(c['seed']).toBe(42);
  });

  it('resolves anchors and aliases, and flow lists of maps', async () => {
    const c = await config(
      [
        'base: &opt',
        '  value: {lr: 0.001, betas: [0.9, 0.999]}',
        'actor_optim: *opt',
        'stages:',
        '  value: [{name: warmup, steps: 10}, {name: train, steps: 990}]',
      ].join('\n'),
    );
    expect(c['actor_optim']).toEqual({ lr: 0.001, betas: [0.9, 0.999] });
    expect(c['stages']).toEqual([
      { name: 'warmup', steps: 10 },
      { name: 'train', steps: 990 },
    ]);
  });

  it('answers a typed error for alias bombs, oversized and malformed files', async () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      bomb.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    // 10^12 values if expanded: an unbounded copy would never answer (the test's timeout), a bounded one refuses.
    const got = await parseWandbConfigYaml(bomb.join('\n'));
    expect(got).toMatchObject({ ok: false, kind: 'decode' });
    expect(await parseWandbConfigYaml('k: ' + 'x'.repeat(MAX_CONFIG_YAML_BYTES))).toMatchObject({
      ok: false,
      kind: 'too-large',
    });
    expect(await parseWandbConfigYaml('a: [1, 2\nb: "open')).toMatchObject({ ok: false, kind: 'decode' });
    expect(await parseWandbConfigYaml('['.repeat(100_000))).toMatchObject({ ok: false });
  });
});
