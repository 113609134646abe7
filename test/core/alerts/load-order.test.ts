// A run's first read is judged in write order: opening a finished run raises what watching it live raised.
import { describe, expect, it } from 'vitest';
import { AlertService } from '../../../src/core/alerts/alert-service';
import { inWriteOrder } from '../../../src/core/alerts/load-order';
import { openStore } from '../../../src/core/store';
import { DEFAULT_SETTINGS, type SeriesDelta } from '../../../src/shared/domain';

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

  it('a KL blow-up with the entropy collapse right after: one incident, the same id, live or read from disk', () => {
    const n = 60;
    const steps = Array.from({ length: n }, (_, i) => i * 512);
    const walls = steps.map((_, i) => 1e9 + 2 * i);
    const kl = steps.map((_, i) => (i >= 40 ? 0.6 : 0.005));
    const entropy = steps.map((_, i) => (i < 42 ? 0.55 : 0.05));
    const make = () =>
      new AlertService({
        store: () => openStore({ path: null }),
        root: () => '/runs',
        runs: () => ['r'],
        configOf: () => null,
        settings: () => DEFAULT_SETTINGS,
        clock: () => 1_700_000_000_000,
      });
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
