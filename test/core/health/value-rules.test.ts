// Critic-side rules: a value / critic / TD loss or Q estimate blowing up against the run's own history raises; the
// growth of learning, a PPO total loss and an explained variance wandering near 0 at the task's ceiling do not.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { harness, noise, raised, rules } from './helpers';

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

describe('value-loss-divergence', () => {
  const jitter = noise(7, 80, 1, 0.15);

  it('a critic loss 10× its recent median on three points in a row raises a warning, 100× a critical', () => {
    const warn = feedRows(rows(60, (i) => ({ 'train/critic_loss': i < 40 ? jitter[i]! : 20 })));
    const [w] = raised(warn, 'value-loss-divergence');
    expect(w!.alert.severity).toBe('warning');
    expect(w!.alert.step).toBe(42);
    expect(w!.alert.message).toMatch(/train\/critic_loss = 20 at step 42, .*× its recent median/);

    const crit = feedRows(rows(60, (i) => ({ 'train/value_loss': i < 40 ? jitter[i]! : 500 })));
    const [c] = raised(crit, 'value-loss-divergence');
    expect(c!.alert.severity).toBe('critical');
    expect(c!.alert.step).toBe(42);
  });

  it('spikes of ×1000 gone two points later (a one-batch A2C value loss: a crash episode) raise nothing', () => {
    const spike = (i: number) => (i % 7 === 5 ? 30 : i % 7 === 6 ? 3000 : 1);
    const ts = feedRows(rows(80, (i) => ({ 'train/value_loss': spike(i) * jitter[i]! })));
    expect(raised(ts, 'value-loss-divergence')).toEqual([]);
  });

  it("learning's own growth (×10 over a run, as a healthy DQN's TD loss fitting growing Q values) raises nothing", () => {
    const ts = feedRows(
      rows(100, (i) => ({ 'train/value_loss': 0.02 * Math.exp(i * 0.025) * jitter[i % 80]! })),
    );
    expect(raised(ts, 'value-loss-divergence')).toEqual([]);
  });

  it("a DQN's train/loss is its TD loss once the run logs an exploration rate (whatever order the tags come in)", () => {
    const blowUp = (i: number) => (i < 40 ? jitter[i]! * 0.1 : 0.1 * 400 * 2 ** (i - 40));
    const dqn = feedRows(
      rows(50, (i) => ({ 'train/loss': blowUp(i), 'rollout/exploration_rate': Math.max(0.05, 1 - i / 20) })),
    );
    expect(raised(dqn, 'value-loss-divergence').map((t) => t.alert.tag)).toEqual(['train/loss']);
    // The same numbers as a PPO total loss (policy term of either sign): not a critic's loss.
    expect(raised(feedRows(rows(50, (i) => ({ 'train/loss': blowUp(i) }))), 'value-loss-divergence')).toEqual(
      [],
    );
  });

  it("a DQN's exploration rate decaying to its floor raises nothing (it is an ε schedule, not an entropy)", () => {
    const ts = feedRows(rows(80, (i) => ({ 'rollout/exploration_rate': Math.max(0.05, 1 - i / 25) })));
    expect(rules(ts)).toEqual([]);
  });

  it('CleanRL names: losses/td_loss is judged as the critic loss, losses/q_values as the Q estimate', () => {
    const ts = feedRows(
      rows(50, (i) => ({
        'losses/td_loss': i < 40 ? jitter[i]! : 300,
        'losses/q_values': i < 40 ? 5 + 0.05 * i : 5 * 30,
      })),
    );
    // One critic incident: the Q explosion at the same step joins the TD-loss divergence.
    expect(raised(ts, 'value-loss-divergence').map((t) => t.alert.tag)).toEqual(['losses/td_loss']);
    expect(raised(ts, 'q-value-explosion')).toEqual([]);
  });
});

describe('q-value-explosion', () => {
  it('Q values 10× their recent magnitude raise; a steady growth with the return does not', () => {
    const grow = (i: number) => 1 + 0.1 * i;
    expect(raised(feedRows(rows(80, (i) => ({ 'train/q_values': grow(i) }))), 'q-value-explosion')).toEqual(
      [],
    );
    const ts = feedRows(rows(50, (i) => ({ 'train/q_values': i < 40 ? -grow(i) : -100 * (i - 38) })));
    const [q] = raised(ts, 'q-value-explosion');
    expect(q!.alert.step).toBe(42);
    expect(q!.alert.message).toMatch(/Q values are exploding/);
  });
});

describe('explained-variance-collapse', () => {
  it('a critic that explained returns and now predicts far worse than a constant raises', () => {
    const ts = feedRows(rows(40, (i) => ({ 'train/explained_variance': i < 25 ? 0.9 : -5 })));
    expect(raised(ts, 'explained-variance-collapse')).toHaveLength(1);
  });

  it('an explained variance wandering between 0.95 and -0.25 once returns barely vary (a solved task) raises nothing', () => {
    const wander = [
      0.84, 0.98, 0.17, 0.0, -0.0, 0.01, 0.04, 0.35, 0.15, 0.75, 0.05, 0.41, 0.89, 0.86, -0.05, -0.25,
    ];
    const ts = feedRows(rows(80, (i) => ({ 'train/explained_variance': i < 20 ? 0.9 : wander[i % 16]! })));
    expect(raised(ts, 'explained-variance-collapse')).toEqual([]);
  });
});
