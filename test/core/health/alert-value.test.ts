// One value per alert: the value an alert carries is the one its message quotes (the one that tripped the rule).
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { formatNumber } from '../../../src/shared/format';
import { harness, run } from './helpers';

/** Every raised or escalated alert whose message does not quote its own value, as "rule: message (value)". */
const disagreeing = (ts: AlertTransition[]): string[] =>
  ts
    .filter((t) => t.kind !== 'cleared')
    .filter((t) => !t.alert.message.includes(formatNumber(t.alert.value)))
    .map((t) => `${t.alert.rule}: ${t.alert.message} (${formatNumber(t.alert.value)})`);

/** Alternating high and low points: a window median that differs from the latest point. */
const zigzag = (n: number, hi: number, lo: number) => Array.from({ length: n }, (_, i) => (i % 3 ? hi : lo));

describe('an alert quotes the value it carries', () => {
  it('clip fraction judged on a median carries the median, not the latest point', () => {
    const ts = run('clipfrac', zigzag(20, 0.04254, 0.06657));
    expect(ts.filter((t) => t.kind === 'raised')).not.toEqual([]);
    expect(disagreeing(ts)).toEqual([]);
    expect(ts[0]!.alert.value).toBe(0.04254);
  });

  it('every windowed rule: truncation, reward variance, GPU idle, entropy drop', () => {
    const cases: [string, number[], ((i: number) => [string, number][])?][] = [
      ['completions/clipped_ratio', [...Array(10).fill(0.02), ...zigzag(12, 0.45, 0.3)]],
      ['Epoch/RewardVariance', zigzag(20, 0.05, 0.2)],
      ['System/GPU_Utilization', zigzag(20, 20, 30), () => [['Train/Loss', 1]]],
      ['entropy', [...Array(30).fill(3), ...zigzag(40, 1.2, 1.4)]],
    ];
    for (const [tag, values, extra] of cases) {
      const ts = run(tag, values, extra);
      expect(ts.filter((t) => t.kind === 'raised').length, tag).toBeGreaterThan(0);
      expect(disagreeing(ts), tag).toEqual([]);
    }
  });

  it('an escalation carries the value its new message quotes', () => {
    const ts = run('approx_kl', [0.03, 0.03, 0.03, 0.05, 0.06, 0.07]);
    const escalated = ts.find((t) => t.kind === 'escalated');
    expect(escalated?.alert.value).toBe(0.07);
    expect(disagreeing(ts)).toEqual([]);
  });

  it('combined rules quote their value too (KL high while reward falls carries the KL)', () => {
    const { clock, engine } = harness();
    const ts: AlertTransition[] = [];
    for (let i = 0; i < 60; i++) {
      clock.now += 1000;
      ts.push(...engine.feed('r', 'approx_kl', i, i, i < 20 ? 0.01 : 0.05));
      ts.push(...engine.feed('r', 'reward', i, i, i < 30 ? 0.1 * i : 3 - 0.2 * (i - 30)));
    }
    expect(ts.some((t) => t.alert.rule === 'kl-high-reward-falling')).toBe(true);
    expect(disagreeing(ts)).toEqual([]);
  });

  it('SB3 entropy_loss (−entropy) says it is judged as its negative, so the value matches the file', () => {
    const ts = run('train/entropy_loss', Array(10).fill(-0.242));
    expect(ts[0]?.alert).toMatchObject({
      value: 0.242,
      message: '−train/entropy_loss = 0.242 below entropy_min 0.5',
    });
  });
});
