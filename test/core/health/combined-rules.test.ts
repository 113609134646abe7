// The combined run-level rules: each needs its companion alert active AND its run summary to agree, with its own hysteresis.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { harness, raised } from './helpers';

/** Feeds rows of tag → value, one row per step (clock +1 s, wall time 1e9 + step). */
function feedRows(rows: Record<string, number>[]): AlertTransition[] {
  const { clock, engine } = harness();
  const out: AlertTransition[] = [];
  rows.forEach((row, i) => {
    clock.now += 1000;
    for (const [tag, v] of Object.entries(row)) out.push(...engine.feed('r', tag, i, 1e9 + i, v));
  });
  return out;
}
const rows = (n: number, row: (i: number) => Record<string, number>) =>
  Array.from({ length: n }, (_, i) => row(i));
describe('entropy collapse + low temperature', () => {
  const collapse = (temperature: number) =>
    rows(40, (i) => ({ entropy: i < 20 ? 1.5 : 0.1, current_temperature: temperature }));

  it('a low sampling temperature with a collapse is a symptom of that incident: one alert naming both', () => {
    const ts = feedRows(collapse(0.3));
    const [entropy] = raised(ts, 'entropy-collapse');
    expect(raised(ts, 'entropy-collapse-low-temperature')).toEqual([]);
    expect(ts.filter((t) => t.kind === 'raised')).toHaveLength(1);
    expect(entropy!.alert.step).toBe(20);
    const active = ts.filter((t) => t.alert.id === entropy!.alert.id).at(-1)!.alert;
    expect(active.tags).toBeDefined();
  });

  it('stays quiet at a normal temperature', () => {
    expect(raised(feedRows(collapse(1.0)), 'entropy-collapse-low-temperature')).toEqual([]);
  });
});

describe('KL high + reward falling', () => {
  const base = (i: number) => (i < 30 ? 0.1 + 0.03 * i : 1.0 - 0.05 * (i - 30));

  it('raises on its own when reward falls long after KL went high, citing the point that re-evaluated it', () => {
    const ts = feedRows(rows(60, (i) => ({ approx_kl: i < 20 ? 0.01 : 0.05, reward: base(i) })));
    const [combined] = raised(ts, 'kl-high-reward-falling');
    expect(['approx_kl', 'reward']).toContain(combined!.alert.tag);
    const step = combined!.alert.step;
    expect(combined!.alert.value).toBe(combined!.alert.tag === 'reward' ? base(step) : 0.05);
    expect(combined!.alert.message).toMatch(
      /^KL above target while reward's median fell to [\d.]+ from [\d.]+$/,
    );
    expect(combined!.alert.statistic).toMatchObject({ kind: 'median', toStep: step });
  });

  it('stays quiet while reward still rises', () => {
    const ts = feedRows(rows(60, (i) => ({ approx_kl: 0.05, reward: 0.1 + 0.01 * i })));
    expect(raised(ts, 'kl-above-target')).toHaveLength(1);
    expect(raised(ts, 'kl-high-reward-falling')).toEqual([]);
  });
});

describe('clip fraction near zero + slow learning', () => {
  it('raises when reward has plateaued and clipping engaged once but is now near zero', () => {
    const ts = feedRows(rows(200, (i) => ({ reward: 0.5, clipfrac: i === 0 ? 0.2 : 0.01 })));
    const [plateau] = raised(ts, 'reward-plateau');
    const [combined] = raised(ts, 'clip-near-zero-slow-learning');
    // It cites the point that re-evaluated it: the reward point that completed the plateau, as logged.
    expect(combined!.alert).toMatchObject({ step: plateau!.alert.step, value: 0.5, tag: 'reward' });
    expect(combined!.alert.statistic).toMatchObject({ kind: 'median', value: 0.01 });
    expect(combined!.alert.message).toBe("clip fraction's median 0.01 near zero while reward has plateaued");
  });

  it('not when clipping never engaged (every point exactly 0)', () => {
    const ts = feedRows(rows(200, () => ({ reward: 0.5, clipfrac: 0 })));
    expect(raised(ts, 'reward-plateau')).toHaveLength(1);
    expect(raised(ts, 'clip-near-zero-slow-learning')).toEqual([]);
  });
});
