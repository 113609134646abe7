// Healthy bands from the catalog: one- and two-sided ranges, threshold overrides, negated tags, unknown tags.

import { describe, expect, test } from 'vitest';
import { bandAttr, bandTip, resolveBand, thresholdNote } from '../../../src/shared/charts/band';
import type { RunDetails } from '../../../src/shared/domain';

describe('resolveBand', () => {
  test('KL: below target_kl, drawn as a band up to it and a target line', () => {
    const b = resolveBand('approx_kl', { target_kl: 0.02 })!;
    expect(b).toMatchObject({ min: null, max: 0.02, target: 0.02 });
    expect(b.description).toMatch(/KL/);
    expect(bandAttr(b)).toBe('-Infinity,0.02');
  });

  test('no default line where the rule derives its own: KL and entropy without a target_kl or entropy_min set', () => {
    // A healthy two-action policy ending at entropy 0.31 was drawn outside an entropy_min 0.5 nobody set.
    for (const tag of ['approx_kl', 'actor/kl_loss', 'entropy', 'train/entropy_loss']) {
      const b = resolveBand(tag)!;
      expect(b, tag).toMatchObject({ min: null, max: null, target: null, thresholds: [] });
      expect(bandAttr(b), tag).toBeNull();
    }
    // A threshold without a derivation keeps its catalog default.
    expect(resolveBand('clipfrac')).toMatchObject({ min: 0.1, max: 0.3 });
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

  test('SB3 entropy_loss is −entropy: the band flips sign with the values, and its axis says so', () => {
    const b = resolveBand('train/entropy_loss', { entropy_min: 0.5 })!;
    expect(b).toMatchObject({ min: null, max: -0.5, target: -0.5 });
    expect(b.label).toBe('entropy_loss (−entropy)');
    expect(resolveBand('actor/entropy')!.label).toBe('Entropy');
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

  test('the band names the thresholds that set it, with the value drawn', () => {
    expect(resolveBand('approx_kl', { target_kl: 0.02 })!.thresholds).toEqual([
      { key: 'target_kl', value: 0.02 },
    ]);
    expect(resolveBand('clipfrac', { clip_high: 0.4 })!.thresholds).toEqual([
      { key: 'clip_low', value: 0.1 },
      { key: 'clip_high', value: 0.4 },
    ]);
    expect(resolveBand('Train/AvgReward')!.thresholds).toEqual([]);
  });

  test('no healthy text quotes a config or a number a threshold can move', () => {
    for (const tag of [
      'approx_kl',
      'entropy',
      'clipfrac',
      'Epoch/RewardVariance',
      'System/GPU_Utilization',
    ]) {
      const b = resolveBand(tag)!;
      expect(b.healthyText, tag).not.toMatch(/config|\d/);
    }
  });
});

describe('thresholdNote', () => {
  const kl = { key: 'target_kl', value: 0.02 } as const;
  test('says where the value came from, exactly as resolved', () => {
    expect(thresholdNote(kl, { key: 'target_kl', value: 0.02, origin: 'default' })).toBe(
      'target_kl 0.02 (catalog default)',
    );
    expect(
      thresholdNote(
        { key: 'target_kl', value: 0.05 },
        { key: 'target_kl', value: 0.05, origin: 'run-config', configPath: 'ppo.target_kl' },
      ),
    ).toBe('target_kl 0.05 (run config: ppo.target_kl)');
    expect(
      thresholdNote({ key: 'target_kl', value: 0.1 }, { key: 'target_kl', value: 0.1, origin: 'user' }),
    ).toBe('target_kl 0.1 (your setting)');
  });
  test('before the run details arrive: the catalog default, or the setting that moved it', () => {
    expect(thresholdNote(kl, undefined)).toBe('target_kl 0.02 (catalog default)');
    expect(thresholdNote({ key: 'target_kl', value: 0.07 }, undefined)).toBe('target_kl 0.07 (your setting)');
    // A setting changed since the details were fetched: the drawn value is the user's.
    expect(
      thresholdNote({ key: 'target_kl', value: 0.07 }, { key: 'target_kl', value: 0.02, origin: 'default' }),
    ).toBe('target_kl 0.07 (your setting)');
  });
});

describe('bandTip', () => {
  const details = (over: Partial<RunDetails>): RunDetails => ({
    run: 'r',
    config: null,
    progress: null,
    epochSummary: null,
    systemTags: [],
    ...over,
  });
  test('a classic run (SB3 entropy_loss) gets classic wording; an LLM run the LLM advice', () => {
    const b = resolveBand('train/entropy_loss')!;
    const classic = bandTip(b, details({ scope: 'classic' }));
    expect(`${classic.description} ${classic.advice}`).not.toMatch(/token|temperature/);
    expect(bandTip(b, details({ scope: 'llm' })).advice).toMatch(/temperature pulses/);
    expect(bandTip(b, null).advice).not.toMatch(/temperature/);
  });
  test('threshold notes cite the run config path, never a config the run lacks', () => {
    const b = resolveBand('approx_kl', { target_kl: 0.05 })!;
    const withConfig = details({
      thresholds: {
        target_kl: { key: 'target_kl', value: 0.05, origin: 'run-config', configPath: 'ppo.target_kl' },
      },
    });
    expect(bandTip(b, withConfig).thresholdNotes).toEqual(['target_kl 0.05 (run config: ppo.target_kl)']);
    const none = details({ thresholds: { target_kl: { key: 'target_kl', value: 0.02, origin: 'default' } } });
    const tip = bandTip(resolveBand('approx_kl', { target_kl: 0.02 })!, none);
    expect(tip.thresholdNotes).toEqual(['target_kl 0.02 (catalog default)']);
    expect(JSON.stringify(tip)).not.toMatch(/config/);
  });
});
