// Healthy bands from the catalog: one- and two-sided ranges, threshold overrides, negated tags, unknown tags.

import { describe, expect, test } from 'vitest';
import { bandAttr, resolveBand } from '../../../src/renderer/src/charts/band';

describe('resolveBand', () => {
  test('KL: below target_kl, drawn as a band up to it and a target line', () => {
    const b = resolveBand('approx_kl')!;
    expect(b).toMatchObject({ min: null, max: 0.02, target: 0.02 });
    expect(b.description).toMatch(/KL/);
    expect(bandAttr(b)).toBe('-Infinity,0.02');
  });

  test('user thresholds move the band', () => {
    expect(resolveBand('approx_kl', { target_kl: 0.05 })).toMatchObject({ max: 0.05, target: 0.05 });
    expect(resolveBand('entropy', { entropy_min: 1.2 })).toMatchObject({ min: 1.2, max: null, target: 1.2 });
  });

  test('two-sided range (clip fraction) is a band without a target line', () => {
    const b = resolveBand('clipfrac')!;
    expect(b).toMatchObject({ min: 0.1, max: 0.3, target: null });
    expect(bandAttr(b)).toBe('0.1,0.3');
  });

  test('SB3 entropy_loss is −entropy: the band flips sign with the values', () => {
    const b = resolveBand('train/entropy_loss')!;
    expect(b).toMatchObject({ min: null, max: -0.5, target: -0.5 });
  });

  test('a role without a numeric range has no band; an unknown tag has no catalog entry', () => {
    const r = resolveBand('Train/AvgReward')!;
    expect(r.min).toBeNull();
    expect(r.max).toBeNull();
    expect(bandAttr(r)).toBeNull();
    expect(r.healthyText).toMatch(/increase/);
    expect(resolveBand('my/custom_metric_xyz')).toBeNull();
    expect(bandAttr(null)).toBeNull();
  });

  test('gradient norm has no band at max_grad_norm (HF logs it before clipping)', () => {
    const b = resolveBand('grad_norm')!;
    expect(bandAttr(b)).toBeNull();
    expect(b.healthyText).toMatch(/spikes/);
  });
});
