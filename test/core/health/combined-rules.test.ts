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
const cleared = (ts: AlertTransition[], rule: string) =>
  ts.flatMap((t) => (t.kind === 'cleared' && t.alert.rule === rule ? [t] : []));

describe('entropy collapse + low temperature', () => {
  const collapse = (temperature: number) =>
    rows(40, (i) => ({ entropy: i < 20 ? 1.5 : 0.1, current_temperature: temperature }));

  it('raises once entropy collapse is active and the temperature median is below temperature_min', () => {
    const ts = feedRows(collapse(0.3));
    const [entropy] = raised(ts, 'entropy-collapse');
    const [combined] = raised(ts, 'entropy-collapse-low-temperature');
    expect(combined!.alert).toMatchObject({
      tag: 'entropy',
      severity: 'warning',
      run: 'r',
      value: 0.3,
      message: 'entropy collapsed while sampling temperature is 0.3',
      step: entropy!.alert.step,
    });
  });

  it('stays quiet at a normal temperature, and clears after 3 ok evaluations once it recovers', () => {
    expect(raised(feedRows(collapse(1.0)), 'entropy-collapse-low-temperature')).toEqual([]);
    const ts = feedRows([...collapse(0.3), ...rows(10, () => ({ entropy: 0.1, current_temperature: 1.0 }))]);
    const [c] = cleared(ts, 'entropy-collapse-low-temperature');
    // The temperature median of 5 turns with the 3rd healthy point (step 42); entropy and temperature
    // points both re-evaluate, and the 3rd ok evaluation (step 43's temperature) clears it.
    expect(c!.step).toBe(43);
  });
});

describe('KL high + reward falling', () => {
  const base = (i: number) => (i < 30 ? 0.1 + 0.03 * i : 1.0 - 0.05 * (i - 30));

  it('raises after 3 bad evaluations on the KL tag, with the KL alert value', () => {
    const ts = feedRows(rows(60, (i) => ({ approx_kl: i < 20 ? 0.01 : 0.05, reward: base(i) })));
    const [combined] = raised(ts, 'kl-high-reward-falling');
    expect(combined!.alert.tag).toBe('approx_kl');
    expect(combined!.alert.value).toBe(0.05);
    expect(combined!.alert.message).toMatch(
      /^KL 0\.05 above target while reward fell to [\d.]+ from [\d.]+$/,
    );
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
    expect(combined!.alert).toMatchObject({ step: plateau!.alert.step, value: 0.01 });
    expect(combined!.alert.message).toBe('clip fraction 0.01 near zero while reward has plateaued');
  });

  it('not when clipping never engaged (every point exactly 0)', () => {
    const ts = feedRows(rows(200, () => ({ reward: 0.5, clipfrac: 0 })));
    expect(raised(ts, 'reward-plateau')).toHaveLength(1);
    expect(raised(ts, 'clip-near-zero-slow-learning')).toEqual([]);
  });
});
