// Entropy by action space: a Gaussian policy's entropy crossing zero while it learns, and SAC's ent_coef tuning
// itself down, are no collapse; a discrete policy is judged as before.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { harness, raised, rules } from './helpers';

function feedRows(rows: Record<string, number>[]): AlertTransition[] {
  const { clock, engine } = harness();
  const out: AlertTransition[] = [];
  rows.forEach((row, i) => {
    clock.now += 1000;
    for (const [tag, v] of Object.entries(row)) out.push(...engine.feed('r', tag, (i + 1) * 800, 1e9 + i, v));
  });
  return out;
}
const rows = (n: number, row: (i: number) => Record<string, number>) =>
  Array.from({ length: n }, (_, i) => row(i));

/** SB3 PPO on a 1-D continuous action: entropy = 1.42 + ln σ, σ shrinking from 0.37 to 0.15 while it learns. */
const logStd = (i: number) => -1 - 0.01 * i;
const gaussEntropy = (i: number) => 0.5 + 0.5 * Math.log(2 * Math.PI) + logStd(i);

describe('continuous-action entropy', () => {
  it('an SB3 Gaussian policy whose entropy falls through zero while it learns raises no entropy collapse', () => {
    const ts = feedRows(
      rows(100, (i) => ({ 'train/entropy_loss': -gaussEntropy(i), 'train/std': Math.exp(logStd(i)) })),
    );
    expect(raised(ts, 'entropy-collapse')).toEqual([]);
  });

  it('SAC: ent_coef tuning itself down and the entropy going negative raise nothing', () => {
    const ts = feedRows(
      rows(100, (i) => ({
        'train/ent_coef': Math.exp(-i / 30),
        'train/ent_coef_loss': -0.1,
        'train/entropy': 1.2 - 0.025 * i,
      })),
    );
    expect(rules(ts)).toEqual([]);
  });

  it("a Gaussian policy's std shrinking tenfold at once is still a collapse (judged in nats)", () => {
    const ts = feedRows(
      rows(40, (i) => {
        const ls = i < 25 ? logStd(i) : logStd(i) - 3;
        return { 'train/std': Math.exp(ls), 'train/entropy_loss': -(1.42 + ls) };
      }),
    );
    const [c] = raised(ts, 'entropy-collapse');
    expect(c!.alert.message).toMatch(/nats below its recent median/);
  });

  it('a discrete policy with the same relative fall is judged as before (a twentieth of its early level)', () => {
    const ts = feedRows(rows(100, (i) => ({ 'train/entropy_loss': -(0.69 * Math.exp(-i / 12)) })));
    expect(raised(ts, 'entropy-collapse')).toHaveLength(1);
  });
});
