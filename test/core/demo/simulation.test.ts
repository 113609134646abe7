// The demo's simulated run: healthy first, then the KL blow-up and entropy collapse the alerts must catch.

import { describe, expect, test } from 'vitest';
import { DEMO_CONFIG, DemoSimulation } from '../../../src/core/demo/simulation';

const RATE_HZ = 4; // the demo's default steps per second

function run(steps: number): Record<string, number>[] {
  const sim = new DemoSimulation(42, undefined, 1200);
  return Array.from({ length: steps }, (_, i) => sim.step(i).scalars);
}

describe('demo simulation', () => {
  const rows = run(600);

  test('is deterministic for a seed', () => {
    expect(run(50)).toEqual(rows.slice(0, 50));
  });

  test('KL stays under target at first, then exceeds it for a sustained stretch within 60 s', () => {
    const early = rows.slice(0, 120).filter((r) => r.approx_kl! > DEMO_CONFIG.target_kl).length;
    expect(early).toBeLessThan(3);
    const firstSustained = rows.findIndex((_, i) =>
      rows.slice(i, i + 10).every((r) => r.approx_kl! > DEMO_CONFIG.target_kl),
    );
    expect(firstSustained).toBeGreaterThan(100);
    expect(firstSustained / RATE_HZ).toBeLessThan(60);
  });

  test('entropy collapses below entropy_min within 120 s and stays there', () => {
    expect(rows.slice(0, 250).every((r) => r.entropy! > DEMO_CONFIG.entropy_min)).toBe(true);
    const collapse = rows.findIndex((r) => r.entropy! < DEMO_CONFIG.entropy_min);
    expect(collapse / RATE_HZ).toBeLessThan(120);
    expect(rows.slice(collapse + 20, 600).every((r) => r.entropy! < DEMO_CONFIG.entropy_min)).toBe(true);
  });

  test('writes an epoch summary every 20 steps, and the tags the seeds name', () => {
    expect(rows.filter((r) => 'Epoch/AvgReward' in r)).toHaveLength(30);
    for (const tag of [
      'Train/Loss',
      'Train/KLPenalty',
      'approx_kl',
      'entropy',
      'clipfrac',
      'System/GPU_Utilization',
    ]) {
      expect(rows[0]).toHaveProperty([tag]);
    }
  });
});
