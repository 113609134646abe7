// Citations: an alert cites a logged point (tag, step, value exactly as written) and any statistic beside it, never in it.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { formatNumber } from '../../../src/shared/format';
import { harness, run } from './helpers';

/** Every raised or escalated alert whose message does not quote its point's value (and its statistic's, if any). */
const disagreeing = (ts: AlertTransition[]): string[] =>
  ts
    .filter((t) => t.kind !== 'cleared')
    .filter(
      (t) =>
        !t.alert.message.includes(formatNumber(Math.abs(t.alert.value))) ||
        (t.alert.statistic !== null && !t.alert.message.includes(formatNumber(t.alert.statistic.value))),
    )
    .map((t) => `${t.alert.rule}: ${t.alert.message} (${formatNumber(t.alert.value)})`);

/** Every alert whose (tag, step, value) is not a point that was fed. */
const miscited = (ts: AlertTransition[], fed: Map<string, number>): string[] =>
  ts
    .filter((t) => t.kind !== 'cleared' && t.alert.tag !== null)
    .filter((t) => !Object.is(fed.get(`${t.alert.tag}@${t.alert.step}`), t.alert.value))
    .map((t) => `${t.alert.rule}: ${t.alert.tag}@${t.alert.step} = ${t.alert.value}`);

/** Alternating high and low points: a window median that differs from the latest point. */
const zigzag = (n: number, hi: number, lo: number) => Array.from({ length: n }, (_, i) => (i % 3 ? hi : lo));

/** run() with a record of what was fed, as tag@step → value (the run's config setting target_kl 0.02). */
function runFed(tag: string, values: number[], extra?: (i: number) => [string, number][]) {
  const fed = new Map<string, number>();
  values.forEach((v, i) => {
    fed.set(`${tag}@${i}`, v);
    for (const [t, x] of extra?.(i) ?? []) fed.set(`${t}@${i}`, x);
  });
  return { ts: run(tag, values, extra, { targetKl: 0.02 }), fed };
}

describe('an alert cites a logged point', () => {
  it('clip fraction judged on a median cites the latest point, with the median as its statistic', () => {
    const { ts, fed } = runFed('clipfrac', zigzag(20, 0.34254, 0.46657));
    const [a] = ts.filter((t) => t.kind === 'raised');
    expect(a).toBeDefined();
    expect(a!.alert.statistic).toMatchObject({ kind: 'median', value: 0.34254 });
    expect(miscited(ts, fed)).toEqual([]);
    expect(disagreeing(ts)).toEqual([]);
  });

  it('every windowed rule: truncation, reward variance, GPU idle, entropy drop', () => {
    const cases: [string, number[], ((i: number) => [string, number][])?][] = [
      ['completions/clipped_ratio', [...Array(10).fill(0.02), ...zigzag(12, 0.45, 0.3)]],
      ['Epoch/RewardVariance', zigzag(20, 0.05, 0.2)],
      ['System/GPU_Utilization', zigzag(20, 20, 30), () => [['Train/Loss', 1]]],
      ['entropy', [...Array(30).fill(3), ...zigzag(40, 1.2, 1.4)]],
    ];
    for (const [tag, values, extra] of cases) {
      const { ts, fed } = runFed(tag, values, extra);
      expect(ts.filter((t) => t.kind === 'raised').length, tag).toBeGreaterThan(0);
      expect(miscited(ts, fed), tag).toEqual([]);
      expect(disagreeing(ts), tag).toEqual([]);
    }
  });

  it('an escalation cites the point that escalated it', () => {
    const { ts, fed } = runFed('approx_kl', [0.03, 0.03, 0.03, 0.05, 0.06, 0.07]);
    const escalated = ts.find((t) => t.kind === 'escalated');
    expect(escalated?.alert).toMatchObject({ step: 5, value: 0.07 });
    expect(miscited(ts, fed)).toEqual([]);
    expect(disagreeing(ts)).toEqual([]);
  });

  it('combined rules cite the point that re-evaluated them, never another tag’s value at its step', () => {
    // Chaos-Economy: "step 125 · value 0.04672" was KL's value at step 155 shown at reward's step.
    const { clock, engine } = harness({ targetKl: 0.02 });
    const ts: AlertTransition[] = [];
    const fed = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      clock.now += 1000;
      const kl = i < 20 ? 0.01 : 0.05 + 0.001 * i;
      const reward = i < 30 ? 0.1 * i : 3 - 0.2 * (i - 30);
      fed.set(`approx_kl@${i}`, kl);
      fed.set(`reward@${i}`, reward);
      ts.push(...engine.feed('r', 'approx_kl', i, i, kl));
      ts.push(...engine.feed('r', 'reward', i, i, reward));
    }
    expect(ts.filter((t) => t.kind === 'raised')).toHaveLength(1);
    expect(miscited(ts, fed)).toEqual([]);
    // The KL incident then escalated or cleared: each of its lines cites a point that was fed.
    const cleared = ts.filter((t) => t.kind === 'cleared');
    for (const c of cleared) if (c.kind === 'cleared') expect(fed.get(`${c.tag}@${c.step}`)).toBe(c.value);
  });

  it('SB3 entropy_loss (−entropy) cites the value as the file holds it; the message says it is negated', () => {
    const ts = run('train/entropy_loss', [...Array(10).fill(-0.7), ...Array(10).fill(-0.0242)]);
    expect(ts[0]?.alert).toMatchObject({ value: -0.0242, step: 10, tag: 'train/entropy_loss' });
    expect(ts[0]?.alert.message).toMatch(/^−train\/entropy_loss = 0.0242 at step 10/);
  });

  it('a cleared line cites the point that cleared it, with its wall time', () => {
    const { clock, engine } = harness({ targetKl: 0.02 });
    const ts: AlertTransition[] = [];
    [0.3, 0.3, 0.3, ...Array(6).fill(0.001)].forEach((v, i) => {
      clock.now += 1000;
      ts.push(...engine.feed('r', 'approx_kl', i, 1e9 + i, v));
    });
    const c = ts.find((t) => t.kind === 'cleared');
    expect(c).toMatchObject({ tag: 'approx_kl', step: 7, wallTime: 1e9 + 7, value: 0.001 });
  });
});
