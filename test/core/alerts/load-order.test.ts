// A run's first read is judged in write order: opening a finished run raises what watching it live raised.
import { describe, expect, it } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { eachInWriteOrder } from '../../../src/core/alerts/load-order';
import type { SeriesDelta } from '../../../src/shared/domain';
import { testAlertService } from '../../helpers/alert-service';

/** The points in the order eachInWriteOrder hands them over. */
const inWriteOrder = (held: SeriesDelta[]): { tag: string; step: number; wallTime: number }[] => {
  const out: { tag: string; step: number; wallTime: number }[] = [];
  eachInWriteOrder(held, (tag, step, wallTime) => out.push({ tag, step, wallTime }));
  return out;
};

const delta = (tag: string, steps: number[], walls: number[], values: number[]): SeriesDelta => ({
  run: 'r',
  tag,
  from: 0,
  steps: Float64Array.from(steps),
  wallTimes: Float64Array.from(walls),
  values: Float64Array.from(values),
});

describe('write order', () => {
  it('merges tags by wall time, keeps each tag’s own order across its deltas, and a restart by its wall time', () => {
    const points = [
      ...inWriteOrder([
        delta('b', [0, 1], [10, 11], [1, 2]),
        delta('a', [0, 1, 0], [10, 11, 20], [3, 4, 5]),
        delta('b', [0], [21], [6]),
      ]),
    ].map((p) => `${p.tag}${p.step}@${p.wallTime}`);
    expect(points).toEqual(['b0@10', 'a0@10', 'b1@11', 'a1@11', 'a0@20', 'b0@21']);
    // Without wall times (a CSV without a time column), by step.
    const bySteps = [...inWriteOrder([delta('x', [2, 4], [NaN, NaN], [0, 0]), delta('y', [3], [NaN], [0])])];
    expect(bySteps.map((p) => p.step)).toEqual([2, 3, 4]);
  });

  it('the same order as picking the earliest next point each time, on random runs with and without wall times', () => {
    let seed = 1;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed % n;
    };
    /** The definition: of the tags' next points, the earliest (wall time, step, delivery order) each time. */
    const naive = (held: SeriesDelta[], timed: boolean): string[] => {
      const tags = [...new Set(held.map((d) => d.tag))];
      const next = held.map(() => 0);
      const out: string[] = [];
      for (;;) {
        let best: { t: number; d: number } | null = null;
        tags.forEach((tag, t) => {
          const d = held.findIndex((x, k) => x.tag === tag && next[k]! < x.steps.length);
          if (d < 0) return;
          if (best === null) return void (best = { t, d });
          const [a, b] = [held[d]!, held[best.d]!];
          const [ia, ib] = [next[d]!, next[best.d]!];
          const earlier =
            timed && a.wallTimes[ia] !== b.wallTimes[ib]
              ? a.wallTimes[ia]! < b.wallTimes[ib]!
              : a.steps[ia] !== b.steps[ib]
                ? a.steps[ia]! < b.steps[ib]!
                : t < best.t;
          if (earlier) best = { t, d };
        });
        if (best === null) return out;
        const { d } = best as { t: number; d: number };
        const x = held[d]!;
        out.push(`${x.tag}${x.steps[next[d]!]}@${x.wallTimes[next[d]!]}=${x.values[next[d]!]}`);
        next[d]!++;
      }
    };
    for (let round = 0; round < 200; round++) {
      const timed = round % 2 === 0;
      const held: SeriesDelta[] = [];
      for (let k = 0; k < 1 + rnd(6); k++) {
        const n = rnd(8);
        // Steps and wall times mostly rising, with ties across tags and a restart now and then.
        const steps = Array.from({ length: n }, (_, i) => (rnd(5) === 0 ? rnd(3) : i + rnd(2)));
        const walls = steps.map((_, i) => (timed ? 100 + (i >> 1) + rnd(2) : Number.NaN));
        held.push(
          delta(
            `t${rnd(4)}`,
            steps,
            walls,
            steps.map(() => rnd(1000)),
          ),
        );
      }
      const got: string[] = [];
      eachInWriteOrder(held, (tag, step, wall, value) => got.push(`${tag}${step}@${wall}=${value}`));
      expect(got).toEqual(naive(held, timed));
    }
    // Every tag on one timeline (a trainer's event file, a CSV's columns): rising, with equal wall times, and with
    // a step that goes back (not one timeline then).
    for (const [steps, walls] of [
      [
        [0, 1, 2, 3],
        [10, 11, 12, 13],
      ],
      [
        [0, 1, 2, 3],
        [10, 10, 12, 12],
      ],
      [
        [0, 1, 2, 3],
        [NaN, NaN, NaN, NaN],
      ],
      [
        [0, 2, 1, 3],
        [10, 10, 10, 13],
      ],
      [
        [0, 2, 1, 3],
        [NaN, NaN, NaN, NaN],
      ],
    ]) {
      const held = ['c', 'a', 'b'].map((t, k) =>
        delta(
          t,
          steps!,
          walls!,
          steps!.map((st) => 10 * st + k),
        ),
      );
      const got: string[] = [];
      eachInWriteOrder(held, (tag, step, wall, value) => got.push(`${tag}${step}@${wall}=${value}`));
      expect(got).toEqual(naive(held, Number.isFinite(walls![0]!)));
    }
  });

  it('a KL blow-up with the entropy collapse right after: one incident, the same id, live or read from disk', () => {
    const n = 60;
    const steps = Array.from({ length: n }, (_, i) => i * 512);
    const walls = steps.map((_, i) => 1e9 + 2 * i);
    const kl = steps.map((_, i) => (i >= 40 ? 0.6 : 0.005));
    const entropy = steps.map((_, i) => (i < 42 ? 0.55 : 0.05));
    const make = () => testAlertService();
    const raisedIds = (s: AlertService) => s.list().map((a) => a.id);
    // Live: each write brings both tags' point of that step.
    const live = make();
    for (let i = 0; i < n; i++) {
      live.feed(delta('train/approx_kl', [steps[i]!], [walls[i]!], [kl[i]!]));
      live.feed(delta('train/entropy', [steps[i]!], [walls[i]!], [entropy[i]!]));
    }
    // From disk: the first read delivers the run tag by tag, entropy first.
    const cold = make();
    cold.reading('r');
    cold.feed(delta('train/entropy', steps, walls, entropy));
    cold.feed(delta('train/approx_kl', steps, walls, kl));
    expect(cold.list()).toEqual([]);
    cold.read('r');
    expect(raisedIds(live)).toHaveLength(1);
    expect(raisedIds(cold)).toEqual(raisedIds(live));
    expect(cold.list()[0]!.tags).toEqual(['train/approx_kl', 'train/entropy']);
  });
});
