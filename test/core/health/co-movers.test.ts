// An incident names the run's other tags that jumped when it began, and follow-on symptoms join the open incident.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { jumpOf, strongest, type ScoredMover } from '../../../src/core/health/co-movers';
import { harness, noise, raised } from './helpers';

const N = 80;
const ONSET = 40;
/** A PPO run's rows: the learning rate is multiplied by 100 at ONSET and the KL blows up with it. */
function rows(): [string, number[]][] {
  const kl = noise(1, N, 0.01, 0.001).map((v, i) => (i >= ONSET ? 0.4 + v : Math.abs(v)));
  const lr = Array.from({ length: N }, (_, i) => (i >= ONSET ? 3e-2 : 3e-4));
  const vloss = noise(2, N, 5, 0.5);
  // A loss that swings by 3× every other update: noisy by nature, never a co-mover.
  const swing = Array.from({ length: N }, (_, i) => (i % 2 ? 1 : 3.5));
  const reward = noise(3, N, 100, 5).map((v, i) => (i >= ONSET + 2 ? v - 80 : v));
  return [
    ['train/approx_kl', kl],
    ['train/learning_rate', lr],
    ['train/value_loss', vloss],
    ['train/policy_gradient_loss', swing],
    ['rollout/ep_rew_mean', reward],
    ['time/iterations', Array.from({ length: N }, (_, i) => i + 1)],
  ];
}

/** Feeds the rows step by step (each step's tags in `order`), or one tag's whole column at a time (`byTag`). */
function feed(order: string[], byTag = false) {
  const { clock, engine } = harness();
  const cols = new Map(rows());
  const out: AlertTransition[] = [];
  if (byTag) {
    for (const tag of order) {
      clock.now += 1000;
      const v = cols.get(tag)!;
      const steps = v.map((_, i) => i * 2048);
      out.push(
        ...engine.feedBatch(
          'r',
          tag,
          steps,
          steps.map((s) => 1e9 + s),
          v,
        ),
      );
    }
  } else {
    for (let i = 0; i < N; i++) {
      clock.now += 1000;
      for (const tag of order) out.push(...engine.feed('r', tag, i * 2048, 1e9 + i, cols.get(tag)![i]!));
    }
  }
  return { engine, out };
}

const TAGS = rows().map(([t]) => t);

describe('what changed with an incident', () => {
  it('a KL incident names the learning rate ×100 at its step, strongest first, never its own tag nor a noisy loss', () => {
    const { out } = feed(['train/learning_rate', ...TAGS.filter((t) => t !== 'train/learning_rate')]);
    const kl = raised(out, 'kl-above-target')[0]!.alert;
    expect(kl.changed?.[0]).toMatchObject({ tag: 'train/learning_rate', step: ONSET * 2048 });
    expect(kl.changed?.[0]?.ratio).toBeCloseTo(100);
    expect(kl.message).toContain(`train/learning_rate ×100 at step ${ONSET * 2048}`);
    const named = (kl.changed ?? []).map((m) => m.tag);
    expect(named).not.toContain('train/approx_kl');
    expect(named).not.toContain('train/policy_gradient_loss');
    expect(named).not.toContain('train/value_loss');
    expect(named).not.toContain('time/iterations');
    expect(named.length).toBeLessThanOrEqual(3);
  });

  it('a learning rate written after the KL of the same step (one tag at a time) still reaches the open incident', () => {
    const { engine, out } = feed(TAGS, true);
    const before = raised(out, 'kl-above-target')[0]!.alert;
    expect(before.changed ?? []).toEqual([]);
    const now = engine.active('r').find((a) => a.id === before.id)!;
    expect(now.changed?.[0]).toMatchObject({ tag: 'train/learning_rate', step: ONSET * 2048 });
    expect(now.message).toContain('train/learning_rate ×100');
    expect(engine.tagChanges).toBeGreaterThan(0);
  });

  it('the jump score: ×3 past a quiet baseline counts, the same ×3 inside a noisy one does not; a signed tag in MADs', () => {
    expect(jumpOf([1, 1.01, 0.99, 1, 1.02], 3.2)).not.toBeNull();
    expect(jumpOf([1, 3.5, 1, 3.5, 1, 3.5], 3.5)).toBeNull();
    expect(jumpOf([1, 1.01, 0.99, 1, 1.02], 1.5)).toBeNull();
    expect(jumpOf([-1, 0.1, -0.3, 0.2, -0.1, 0.05], 9)?.mads).toBeGreaterThan(6);
    expect(jumpOf([0.1, 0.2, 0.15, 0.12, 0.18], Number.NaN)?.score).toBe(Infinity);
    // A rate that sat at exactly 0 and left it moved, but less than any ×3 or 6-MAD jump.
    const fromZero = jumpOf([0, 0, 0, 0, 0], 0.12)!.score;
    expect(fromZero).toBeLessThan(jumpOf([1, 1.01, 0.99, 1, 1.02], 3.2)!.score);
    expect(fromZero).toBeLessThan(jumpOf([-1, 0.1, -0.3, 0.2, -0.1, 0.05], 2)!.score);
  });

  it('one co-mover per quantity (the strongest of its tags), at most 3, strongest first', () => {
    const m = (tag: string, quantity: string, score: number): [string, ScoredMover] => [
      tag,
      { tag, quantity, score, step: 1, value: 1, baseline: 0, ratio: null },
    ];
    const found = new Map([
      m('clip/high_max', 'clip', 0.1),
      m('clip/high_mean', 'clip', 0.2),
      m('lr', 'learning_rate', 2),
      m('loss', 'loss', 1),
      m('entropy', 'entropy', 0.5),
    ]);
    expect(strongest(found).map((x) => x.tag)).toEqual(['lr', 'loss', 'entropy']);
    found.delete('entropy');
    found.delete('loss');
    expect(strongest(found).map((x) => x.tag)).toEqual(['lr', 'clip/high_mean']);
  });
});

describe('follow-on symptoms join the open incident', () => {
  /** A run whose policy collapses at step 30 (when `collapse`), then whose KL sits at exactly 0 from step 36. */
  function stagnating(collapse: boolean) {
    const { clock, engine } = harness();
    const out: AlertTransition[] = [];
    const kl = noise(4, 60, 0.01, 0.001).map((v, i) => (i >= 36 ? 0 : Math.abs(v)));
    const ent = noise(5, 60, 0.6, 0.01).map((v, i) => (collapse && i >= 30 ? 0.002 : v));
    for (let i = 0; i < 60; i++) {
      clock.now += 1000;
      out.push(...engine.feed('r', 'train/learning_rate', i, 1e9 + i, 0.05));
      out.push(...engine.feed('r', 'train/entropy', i, 1e9 + i, ent[i]!));
      out.push(...engine.feed('r', 'train/approx_kl', i, 1e9 + i, kl[i]!));
    }
    return { engine, out };
  }

  it('KL stuck at 0 after an entropy collapse joins the collapse (no "a learning rate of 0" while it is 0.05)', () => {
    const { engine, out } = stagnating(true);
    expect(raised(out, 'entropy-collapse')).toHaveLength(1);
    expect(raised(out, 'learning-stagnation')).toHaveLength(0);
    const incident = engine.active('r').find((a) => a.rule === 'entropy-collapse')!;
    expect(incident.tags).toContain('train/approx_kl');
    expect(
      engine
        .active('r')
        .map((a) => a.message)
        .join(' '),
    ).not.toContain('a learning rate of 0');
  });

  it('without an open cause, the same stagnation is its own alert', () => {
    const { out } = stagnating(false);
    expect(raised(out, 'entropy-collapse')).toHaveLength(0);
    expect(raised(out, 'learning-stagnation')).toHaveLength(1);
  });
});

describe('what is not a co-mover', () => {
  it('a rarely logged tag that jumped long before the onset is not named', () => {
    const { clock, engine } = harness();
    const out: AlertTransition[] = [];
    const kl = noise(6, N, 0.01, 0.001).map((v, i) => (i >= ONSET ? 0.4 : Math.abs(v)));
    for (let i = 0; i < N; i++) {
      clock.now += 1000;
      // An evaluation every 5 updates whose score jumped ×5 15 updates before the KL blow-up.
      if (i % 5 === 0)
        out.push(...engine.feed('r', 'eval/mean_reward', i, 1e9 + i, i >= ONSET - 15 ? 500 : 100 + (i % 3)));
      out.push(...engine.feed('r', 'train/learning_rate', i, 1e9 + i, i >= ONSET ? 3e-2 : 3e-4));
      out.push(...engine.feed('r', 'train/approx_kl', i, 1e9 + i, kl[i]!));
    }
    const alert = raised(out, 'kl-above-target')[0]!.alert;
    expect(alert.changed?.map((m) => m.tag)).toEqual(['train/learning_rate']);
  });
});
