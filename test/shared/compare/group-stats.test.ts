// Seed-group statistics against an independent reference: numpy's interp/std/percentile and scipy's trim_mean, and
// the same seeded bootstrap written in Python from mulberry32's definition.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  bootstrapMeanCi,
  commonGrid,
  groupBand,
  interpolateAt,
  interquartileMean,
  sampleStd,
  seededRandom,
  type StepSeries,
} from '../../../src/shared/compare/group-stats';

/** numpy and scipy compute the same quantities from the same inputs (the bootstrap from the same generator). */
/** test/helpers: the Python references import mulberry32 from there. */
const HELPERS = join(import.meta.dirname, '..', '..', 'helpers');

const REFERENCE = String.raw`
import json, sys
import numpy as np
from scipy.stats import trim_mean

sys.dont_write_bytecode = True  # nothing written into test/helpers
sys.path.insert(0, sys.argv[1])
from mulberry32 import mulberry32

q = json.load(sys.stdin)
out = {"interp": [], "iqm": [], "std": [], "ci": []}
for s, xs in q["interp"]:
    out["interp"].append([float(np.interp(x, s["steps"], s["values"])) for x in xs])
for xs in q["samples"]:
    out["iqm"].append(float(trim_mean(xs, 0.25)))
    out["std"].append(float(np.std(xs, ddof=1)))
    r = mulberry32(q["seed"])
    n = len(xs)
    means = [sum(xs[int(r() * n)] for _ in range(n)) / n for _ in range(q["resamples"])]
    out["ci"].append([float(v) for v in np.percentile(means, [2.5, 97.5])])
json.dump(out, sys.stdout)
`;

function reference(query: unknown): {
  interp: number[][];
  iqm: number[];
  std: number[];
  ci: [number, number][];
} {
  return JSON.parse(
    execFileSync('python3', ['-c', REFERENCE, HELPERS], { input: JSON.stringify(query) }).toString(),
  );
}

const runA: StepSeries = { steps: [0, 10, 20, 40, 80], values: [0, 1, 4, 2, 8] };
const samples = [
  [0.31, 0.42, 0.28, 0.55, 0.47],
  [1, 2, 3, 4, 5, 6, 7, 8],
  [-3.5, 10.25, 7, 7, 0.125, 2.5, 100, -1, 4],
  [5, 6],
];

describe('group statistics against numpy and scipy', () => {
  test('interpolation, IQM, sample std and the seeded bootstrap CI agree with the reference', () => {
    const xs = [0, 5, 10, 15, 33.3, 40, 79, 80];
    const ref = reference({
      interp: [[{ steps: Array.from(runA.steps), values: Array.from(runA.values) }, xs]],
      samples,
      seed: 24,
      resamples: 400,
    });
    const got = xs.map((x) => interpolateAt(runA, x));
    got.forEach((v, i) => expect(v).toBeCloseTo(ref.interp[0]![i]!, 12));
    samples.forEach((s, i) => {
      expect(interquartileMean(s)).toBeCloseTo(ref.iqm[i]!, 12);
      expect(sampleStd(s)).toBeCloseTo(ref.std[i]!, 12);
      const [lo, hi] = bootstrapMeanCi(s, 400, seededRandom(24));
      expect(lo).toBeCloseTo(ref.ci[i]![0], 12);
      expect(hi).toBeCloseTo(ref.ci[i]![1], 12);
    });
  });
});

describe('group band', () => {
  test('outside a run its value is NaN (never extrapolated); the grid spans every run', () => {
    expect(interpolateAt(runA, -1)).toBeNaN();
    expect(interpolateAt(runA, 81)).toBeNaN();
    expect(interpolateAt({ steps: [], values: [] }, 0)).toBeNaN();
    expect(Array.from(commonGrid([runA, { steps: [50, 100], values: [1, 1] }], 5))).toEqual([
      0, 25, 50, 75, 100,
    ]);
  });

  test('runs of different lengths: n says how many cover each step, the band uses only those', () => {
    const short: StepSeries = { steps: [0, 50], values: [2, 2] };
    const long: StepSeries = { steps: [0, 100], values: [0, 10] };
    const b = groupBand([short, long], { points: 3, band: 'minmax' });
    expect(Array.from(b.x)).toEqual([0, 50, 100]);
    expect(Array.from(b.n)).toEqual([2, 2, 1]);
    expect(Array.from(b.mean)).toEqual([1, 3.5, 10]);
    expect(Array.from(b.lower)).toEqual([0, 2, 10]);
    expect(Array.from(b.upper)).toEqual([2, 5, 10]);
  });

  test('std and ci95 bands sit around the mean; a fixed seed gives the same band twice', () => {
    const runs = [0.9, 1, 1.1, 1.3, 0.7].map((k) => ({
      steps: [0, 10, 20],
      values: [0, 5 * k, 10 * k],
    }));
    const std = groupBand(runs, { points: 3, band: 'std' });
    expect(std.lower[2]).toBeCloseTo(10 - 10 * sampleStd([0.9, 1, 1.1, 1.3, 0.7]), 12);
    const ci = groupBand(runs, { points: 3, band: 'ci95', seed: 7, resamples: 500 });
    const again = groupBand(runs, { points: 3, band: 'ci95', seed: 7, resamples: 500 });
    expect(Array.from(ci.lower)).toEqual(Array.from(again.lower));
    expect(ci.lower[2]!).toBeLessThan(ci.mean[2]!);
    expect(ci.upper[2]!).toBeGreaterThan(ci.mean[2]!);
    // All runs start at 0: no spread, the interval is the point.
    expect([ci.lower[0], ci.upper[0]]).toEqual([0, 0]);
    expect(ci.iqm[2]).toBeCloseTo(10, 12);
  });
});
