// KL "above target" is said only where a target_kl is set; without one the KL rules judge the run's own level and say so.
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, type ThresholdName } from '../../../src/core/health';
import { COMBINED_RULES, judgeCombined, RunSummary } from '../../../src/core/health/combined-rules';
import { ruleAdvice } from '../../../src/core/health/advice';

/** The message kl-high-reward-falling gives on a run whose reward rose to 1 then fell to 0.3, its KL incident open;
 * `targetSet`: whether the user or the run's config set target_kl. */
function klHighRewardFalling(targetSet: boolean): string {
  const rule = COMBINED_RULES.find((r) => r.id === 'kl-high-reward-falling')!;
  const s = new RunSummary();
  for (let i = 0; i < 60; i++) s.observe('reward', i < 30 ? i / 30 : 0.3, i);
  const level = judgeCombined(
    rule,
    s,
    true,
    DEFAULT_THRESHOLDS,
    (k: ThresholdName) => targetSet && k === 'target_kl',
  );
  expect(level.kind).toBe('bad');
  return level.kind === 'bad' ? level.message : '';
}

describe('kl-high-reward-falling', () => {
  it('without a target_kl it says KL is above its own level, not above a target', () => {
    const m = klHighRewardFalling(false);
    expect(m).toMatch(/^KL above its own level while reward's median fell/);
    expect(m).not.toContain('target');
  });

  it('with a target_kl set by the run config it says above target_kl', () => {
    expect(klHighRewardFalling(true)).toMatch(/^KL above target_kl while reward's median fell/);
  });
});

describe('KL advice', () => {
  it('names the run’s own level for a run without a target, in both worlds', () => {
    for (const scope of ['llm', 'classic'] as const)
      expect(ruleAdvice('kl-above-target', scope)).toMatch(/its own level/);
  });
});
