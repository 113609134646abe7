// The epoch summary of a Keras run whose validation loss went NaN: the last finite value, and how many NaN followed.

import { describe, expect, test } from 'vitest';
import { epochSummary, type EpochSource } from '../../../src/core/app/epoch-summary';

/** A source over whole per-tag arrays (epoch tags are kept whole by the tag tracker). */
function source(series: Record<string, number[]>): EpochSource {
  return {
    tags: Object.keys(series),
    points: (t) => (series[t] ? { steps: series[t].map((_, i) => i), values: series[t] } : null),
    tail: (t) => {
      const v = series[t];
      return v && v.length > 0 ? { count: v.length, lastStep: v.length - 1, lastValue: v.at(-1)! } : null;
    },
  };
}

describe('epoch summary with NaN', () => {
  const src = source({
    epoch_loss: [0.9, 0.7, 0.6, 0.55],
    epoch_val_loss: [0.8, 0.75, NaN, NaN],
    'epoch/accuracy': [0.5, 0.6, 0.7, 0.72],
  });

  test('a row whose last values are NaN shows its last finite value and how many NaN came after', () => {
    const rows = epochSummary(src)!.sections.flatMap((s) => s.rows);
    expect(rows.find((r) => r.tag === 'epoch_val_loss')).toEqual({
      tag: 'epoch_val_loss',
      value: 0.75,
      nonFiniteAfter: 2,
    });
  });

  test('rows ending in a finite value are unchanged', () => {
    const rows = epochSummary(src)!.sections.flatMap((s) => s.rows);
    expect(rows.find((r) => r.tag === 'epoch_loss')).toEqual({ tag: 'epoch_loss', value: 0.55 });
  });

  test('a tag that never had a finite value still shows NaN, with every point counted', () => {
    const rows = epochSummary(source({ epoch_loss: [NaN, NaN] }))!.sections.flatMap((s) => s.rows);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.value).toBeNaN();
    expect(rows[0]!.nonFiniteAfter).toBe(2);
  });
});
