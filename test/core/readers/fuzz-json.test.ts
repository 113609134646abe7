// Fuzzes the JSONL and JSON history readers, 100k inputs each.

import { describe, expect, it } from 'vitest';
import { enc, fuzz } from './fuzz-harness';

describe('JSON-family fuzzing', () => {
  it('JSONL: data or typed errors on 100k inputs', async () => {
    const seeds = [
      enc(
        '{"step": 50, "train/return": -48.0, "episodes": 1}\n{"step": 100, "x": NaN, "m": {"a": -Infinity}}\n',
      ),
      enc('{"a": 1}\n\n[2]\n{"step": "s", "b": true}\n'),
    ];
    expect(await fuzz('jsonl', seeds, 10_000, 9)).toBe(100_000);
  });

  it('JSON history: data or typed errors on 100k inputs', async () => {
    const seeds = [
      enc('[{"episode": 0, "loss": 0.16, "eps": NaN}, {"episode": 1, "r": {"x": 2}}, 3]'),
      enc('[]'),
    ];
    expect(await fuzz('json', seeds, 10_000, 9)).toBe(100_000);
  });
});
