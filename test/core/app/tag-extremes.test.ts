// The tag tracker's extremes (the runs table's best values): kept as points arrive, non-finite values left out, a
// rewound view's re-sent points counted once, and the points it dropped still counted.

import { describe, expect, test } from 'vitest';
import { TagTracker } from '../../../src/core/app/tag-tracker';

const delta = (from: number, values: number[]) => ({
  run: 'r',
  tag: 'reward',
  from,
  steps: Float64Array.from(values, (_, i) => from + i),
  wallTimes: Float64Array.from(values, (_, i) => 1000 + from + i),
  values: Float64Array.from(values),
});

describe('tag extremes', () => {
  test('min and max over every delta, NaN and ±∞ left out, null before a finite value', () => {
    const t = new TagTracker();
    t.observe(delta(0, [Number.NaN, Number.POSITIVE_INFINITY]));
    expect(t.lastPoints('r').get('reward')).toMatchObject({ min: null, max: null, count: 2 });
    t.observe(delta(2, [3, -2, Number.NEGATIVE_INFINITY]));
    expect(t.lastPoints('r').get('reward')).toMatchObject({ min: -2, max: 3, count: 5 });
    // A restart rewinds the view to index 1: the points before are not sent again, the dropped ones stay counted.
    t.observe(delta(1, [0.5]));
    expect(t.lastPoints('r').get('reward')).toMatchObject({ min: -2, max: 3, count: 2, lastValue: 0.5 });
    t.observe(delta(2, [7]));
    expect(t.lastPoints('r').get('reward')).toMatchObject({ min: -2, max: 7 });
    t.forgetRun('r');
    expect(t.lastPoints('r').size).toBe(0);
  });
});
