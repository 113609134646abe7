// The YAML-subset parser on W&B config.yaml files, real and synthetic.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWandbConfigYaml, parseYamlSubset } from '../../../src/core/wandb/config-yaml';
import { fixture } from '../readers/helpers';

describe('config.yaml subset parser', () => {
  it('unwraps desc/value entries of a real W&B 0.14 config.yaml, lists at the key indent included', () => {
    const text = readFileSync(
      fixture('wandb/480284856__RLHF_Training/run-20230420_073822-clnzftry/files/config.yaml'),
      'utf8',
    );
    const c = parseWandbConfigYaml(text);
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

  it('parses scalars, quoted strings, comments, nested lists of maps and literal blocks', () => {
    const doc = parseYamlSubset(
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
    ) as Record<string, unknown>;
    expect(doc['lr']).toEqual({ desc: null, value: 3e-4 });
    expect(doc['q']).toBe('a: b # not a comment');
    expect(doc['layers']).toEqual({ value: [{ size: 64, act: 'relu' }, { size: Infinity }] });
    expect(doc['flags']).toBe('[x, y]');
    expect(doc['text']).toBe('line one\nline two');
    expect(doc['empty']).toEqual([]);
    expect(Object.prototype.hasOwnProperty.call(doc, '__proto__')).toBe(false);
    expect(parseWandbConfigYaml('wandb_version: 1\n\nepochs:\n  desc: null\n  value: 5\n')).toEqual({
      epochs: 5,
    });
  });
});
