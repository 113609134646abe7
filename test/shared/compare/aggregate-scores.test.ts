// Aggregate scores against an independent reference: rliable's definitions written in numpy/scipy (trim_mean, median,
// mannwhitneyu, percentile) with the same stratified resamples drawn in Python from mulberry32's definition.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  aggregateEstimates,
  aggregateIqm,
  aggregateMean,
  aggregateMedian,
  improvementEstimate,
  optimalityGap,
  performanceProfile,
  probabilityOfImprovement,
  scoreDistribution,
  type Estimate,
  type TaskScores,
} from '../../../src/shared/compare/aggregate-scores';

const HELPERS = join(import.meta.dirname, '..', '..', 'helpers');

const REFERENCE = String.raw`
import json, sys
import numpy as np
from scipy.stats import mannwhitneyu, trim_mean

sys.dont_write_bytecode = True  # nothing written into test/helpers
sys.path.insert(0, sys.argv[1])
from mulberry32 import mulberry32

q = json.load(sys.stdin)
reps, seed, gamma, taus = q["reps"], q["seed"], q["gamma"], q["taus"]

def pooled(t): return np.concatenate([np.asarray(s, dtype=float) for s in t])
def iqm(t): return float(trim_mean(pooled(t), 0.25, axis=None))
def mean(t): return float(np.mean([np.mean(s) for s in t]))
def median(t): return float(np.median([np.mean(s) for s in t]))
def gap(t): return float(gamma - np.mean(np.minimum(pooled(t), gamma)))
def profile(t): return [float(np.mean(pooled(t) > tau)) for tau in taus]
def poi(x, y):
    ps = []
    for a, b in zip(x, y):
        u = mannwhitneyu(a, b, alternative="greater").statistic
        ps.append(u / (len(a) * len(b)))
    return float(np.mean(ps))

def resample(t, r):
    return [[s[int(r() * len(s))] for _ in range(len(s))] for s in t]

def interval(draws):
    return [float(v) for v in np.percentile(np.asarray(draws), [2.5, 97.5], axis=0).ravel()]

out = {"groups": []}
for t in q["groups"]:
    r = mulberry32(seed)
    draws = []
    for _ in range(reps):
        s = resample(t, r)
        draws.append([iqm(s), mean(s), median(s), gap(s)])
    d = np.asarray(draws)
    est = {k: [f(t)] + interval(d[:, i]) for i, (k, f) in
           enumerate([("iqm", iqm), ("mean", mean), ("median", median), ("gap", gap)])}
    r = mulberry32(seed)
    pd = np.asarray([profile(resample(t, r)) for _ in range(reps)])
    lo, hi = np.percentile(pd, [2.5, 97.5], axis=0)
    est["profile"] = [[float(a), float(b), float(c)] for a, b, c in zip(profile(t), lo, hi)]
    out["groups"].append(est)
x, y = q["groups"][0], q["groups"][1]
r = mulberry32(seed)
draws = []
for _ in range(reps):
    rx = resample(x, r)
    draws.append(poi(rx, resample(y, r)))
out["poi"] = [poi(x, y)] + interval(draws)
json.dump(out, sys.stdout)
`;

interface Ref {
  groups: {
    iqm: number[];
    mean: number[];
    median: number[];
    gap: number[];
    profile: number[][];
  }[];
  poi: number[];
}

function reference(query: unknown): Ref {
  return JSON.parse(
    execFileSync('python3', ['-c', REFERENCE, HELPERS], { input: JSON.stringify(query) }).toString(),
  );
}

// Two algorithms on three tasks (normalised scores): ties across and within groups, a heavy tail, ragged run counts.
const algoA: TaskScores = [
  [0.31, 0.42, 0.28, 0.55, 0.47],
  [0.9, 1.2, 0.95, 0.9, 3.5],
  [-0.1, 0.05, 0.2],
];
const algoB: TaskScores = [
  [0.3, 0.42, 0.25, 0.5, 0.1],
  [0.9, 0.8, 1.1, 0.7, 0.75],
  [0.05, 0.05, 0.3],
];
const taus = [-0.2, 0, 0.05, 0.3, 0.42, 0.9, 1, 2];

const close = (got: Estimate, ref: number[]): void => {
  expect(got.value).toBeCloseTo(ref[0]!, 12);
  expect(got.lower).toBeCloseTo(ref[1]!, 12);
  expect(got.upper).toBeCloseTo(ref[2]!, 12);
};

describe('aggregate scores against numpy and scipy', () => {
  test('IQM, mean, median, optimality gap, profile and P(X > Y) with stratified bootstrap CIs agree with the reference', () => {
    const reps = 200;
    const seed = 11;
    const ref = reference({ groups: [algoA, algoB], reps, seed, gamma: 1, taus });
    [algoA, algoB].forEach((t, i) => {
      const r = ref.groups[i]!;
      const e = aggregateEstimates(t, { reps, seed, gamma: 1 });
      close(e.iqm, r.iqm);
      close(e.mean, r.mean);
      close(e.median, r.median);
      close(e.optimalityGap!, r.gap);
      expect(e.runs).toBe(13);
      expect(e.tasks).toBe(3);
      performanceProfile(t, taus, { reps, seed }).forEach((p, k) => close(p.fraction, r.profile[k]!));
    });
    close(improvementEstimate(algoA, algoB, { reps, seed }), ref.poi);
  });
});

describe('aggregate scores', () => {
  test('rliable definitions on small inputs: IQM pools runs, mean and median are over task means', () => {
    const t: TaskScores = [[1, 2, 3, 4, 5, 6, 7, 100], [0]];
    // Pooled 9 values, ⌊9/4⌋ = 2 cut from each end: 2..6 → 4.
    expect(aggregateIqm(t)).toBe(4);
    expect(aggregateMean(t)).toBe((128 / 8 + 0) / 2);
    expect(aggregateMedian([[1], [2], [10]])).toBe(2);
    expect(optimalityGap([[0.5, 2]], 1)).toBe(0.25);
    expect(scoreDistribution([[0, 1, 2, 3]], [-1, 1, 3])).toEqual([1, 0.5, 0]);
  });

  test('P(X > Y) counts ties as half: equal groups give ½, a group always above gives 1', () => {
    expect(probabilityOfImprovement([[1, 2, 3]], [[1, 2, 3]])).toBe(0.5);
    expect(probabilityOfImprovement([[5, 6]], [[1, 2]])).toBe(1);
    expect(probabilityOfImprovement([[5, 6], [0]], [[1, 2], [1]])).toBe(0.5);
    expect(() => probabilityOfImprovement([[1]], [[1], [2]])).toThrow(RangeError);
  });

  test('a fixed seed gives the same intervals twice; one run per task gives a point interval', () => {
    const a = aggregateEstimates(algoA, { reps: 200, seed: 3 });
    expect(aggregateEstimates(algoA, { reps: 200, seed: 3 })).toEqual(a);
    expect(a.optimalityGap).toBeNull();
    expect(a.iqm.lower).toBeLessThan(a.iqm.value);
    expect(a.iqm.upper).toBeGreaterThan(a.iqm.value);
    const single = aggregateEstimates([[2], [4]], { reps: 50, seed: 1 });
    expect([single.mean.value, single.mean.lower, single.mean.upper]).toEqual([3, 3, 3]);
  });
});
