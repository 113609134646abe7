// The engine's per-run state: forgetting one run clears only its alerts and leaves every other run's incidents working.
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, HealthEngine } from '../../../src/core/health';

/** Feeds `approx_kl` high enough for long enough to raise kl-above-target on `run` (its config sets target_kl
 * 0.02), from `from`. */
function blowUp(e: HealthEngine, run: string, from: number): void {
  e.setThresholds(run, DEFAULT_THRESHOLDS, ['target_kl']);
  for (let s = from; s < from + 40; s++) e.feed(run, 'approx_kl', s, 1_700_000_000 + s, 0.5);
}

describe('per-run alert state', () => {
  it('removeRun clears that run only; another run keeps its incident and clears it on its own data', () => {
    const e = new HealthEngine({ clock: () => 0 });
    for (const run of ['a', 'b', 'c']) blowUp(e, run, 0);
    expect(
      e
        .active()
        .map((x) => x.run)
        .sort(),
    ).toEqual(['a', 'b', 'c']);

    const gone = e.removeRun('b');
    expect(gone.map((t) => [t.kind, t.alert.run])).toEqual([['cleared', 'b']]);
    expect(
      e
        .active()
        .map((x) => x.run)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(e.active('b')).toEqual([]);

    // 'a' still clears by its own healthy points; 'c' stays; 'b' can raise again from scratch.
    const cleared = [];
    for (let s = 40; s < 200; s++) cleared.push(...e.feed('a', 'approx_kl', s, 1_700_000_000 + s, 0.001));
    expect(cleared.filter((t) => t.kind === 'cleared').map((t) => t.alert.run)).toEqual(['a']);
    expect(e.active().map((x) => x.run)).toEqual(['c']);
    blowUp(e, 'b', 100);
    expect(
      e
        .active()
        .map((x) => x.run)
        .sort(),
    ).toEqual(['b', 'c']);
  });
});
