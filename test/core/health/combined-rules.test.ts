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

  it('is a symptom of the open KL incident: that one alert names the reward tag, no second alert', () => {
    const { clock, engine } = harness({ targetKl: 0.02 });
    const ts: AlertTransition[] = [];
    for (let i = 0; i < 60; i++) {
      clock.now += 1000;
      ts.push(...engine.feed('r', 'approx_kl', i, 1e9 + i, i < 20 ? 0.01 : 0.05));
      ts.push(...engine.feed('r', 'reward', i, 1e9 + i, base(i)));
    }
    expect(ts.filter((t) => t.kind === 'raised').map((t) => t.alert.rule)).toEqual(['kl-above-target']);
    expect(engine.active('r')[0]?.tags).toEqual(['approx_kl', 'reward']);
  });

  it('not while reward still rises', () => {
    const { clock, engine } = harness({ targetKl: 0.02 });
    for (let i = 0; i < 60; i++) {
      clock.now += 1000;
      engine.feed('r', 'approx_kl', i, 1e9 + i, 0.05);
      engine.feed('r', 'reward', i, 1e9 + i, 0.1 + 0.01 * i);
    }
    expect(engine.active('r').map((a) => [a.rule, a.tags])).toEqual([['kl-above-target', ['approx_kl']]]);
  });
});

describe('clip fraction near zero + slow learning', () => {
  it('joins the reward plateau when clipping engaged once but is now near zero', () => {
    const { clock, engine } = harness();
    const ts: AlertTransition[] = [];
    for (let i = 0; i < 200; i++) {
      clock.now += 1000;
      ts.push(...engine.feed('r', 'reward', i, 1e9 + i, 0.5));
      ts.push(...engine.feed('r', 'clipfrac', i, 1e9 + i, i === 0 ? 0.2 : 0.01));
    }
    expect(ts.filter((t) => t.kind === 'raised').map((t) => t.alert.rule)).toEqual(['reward-plateau']);
    expect(engine.active('r')[0]?.tags).toEqual(['reward', 'clipfrac']);
  });

  it('not when clipping never engaged (every point exactly 0)', () => {
    const ts = feedRows(rows(200, () => ({ reward: 0.5, clipfrac: 0 })));
    expect(raised(ts, 'reward-plateau')).toHaveLength(1);
    expect(raised(ts, 'clip-near-zero-slow-learning')).toEqual([]);
  });
});
