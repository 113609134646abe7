// Metric against metric: pairs at shared steps when the loggers agree, interpolated when their cadences differ.

import { describe, expect, test } from 'vitest';
import { pairByStep } from '../../../src/shared/compare/metric-pairs';

describe('pairing two metrics by step', () => {
  test('the same steps: logged pairs only, in step order; NaN points left out', () => {
    const kl = { steps: [0, 10, 20, 30], values: [0.01, 0.02, NaN, 0.04] };
    const reward = { steps: [0, 10, 20, 30, 40], values: [1, 2, 3, 4, 5] };
    const p = pairByStep(kl, reward);
    expect(p.joined).toBe('same-step');
    expect(Array.from(p.steps)).toEqual([0, 10, 30]);
    expect(Array.from(p.x)).toEqual([0.01, 0.02, 0.04]);
    expect(Array.from(p.y)).toEqual([1, 2, 4]);
  });

  test('different cadences: x interpolated at y steps inside its range, never extrapolated', () => {
    const tokens = { steps: [0, 100, 200], values: [0, 1000, 3000] };
    const loss = { steps: [50, 150, 250], values: [2, 1.5, 1] };
    const p = pairByStep(tokens, loss);
    expect(p.joined).toBe('interpolated');
    expect(Array.from(p.steps)).toEqual([50, 150]);
    expect(Array.from(p.x)).toEqual([500, 2000]);
    expect(Array.from(p.y)).toEqual([2, 1.5]);
  });

  test('empty series pair to nothing', () => {
    expect(pairByStep({ steps: [], values: [] }, { steps: [], values: [] }).x.length).toBe(0);
  });
});
