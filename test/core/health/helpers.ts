// Test helpers: a fake clock, a seeded RNG and a one-tag stream runner for the health engine.
import { rng } from '../../../src/core/demo/simulation';
import { DEFAULT_THRESHOLDS, HealthEngine, type AlertTransition } from '../../../src/core/health';

/** An engine on a fake clock; with `targetKl`, run 'r' has a target_kl set (as its config would set it). */
export function harness(o: { targetKl?: number } = {}) {
  const clock = { now: 1_700_000_000_000 };
  const engine = new HealthEngine({ clock: () => clock.now });
  if (o.targetKl !== undefined)
    engine.setThresholds('r', { ...DEFAULT_THRESHOLDS, target_kl: o.targetKl }, ['target_kl']);
  return { clock, engine };
}

/** Feeds `values` to one tag of run 'r' (step i, wall time 1e9 + i, clock advancing 1 s per point). */
export function run(
  tag: string,
  values: number[],
  extra?: (i: number) => [string, number][],
  o: { targetKl?: number } = {},
): AlertTransition[] {
  const { clock, engine } = harness(o);
  const out: AlertTransition[] = [];
  values.forEach((v, i) => {
    clock.now += 1000;
    out.push(...engine.feed('r', tag, i, 1e9 + i, v));
    for (const [t, x] of extra?.(i) ?? []) out.push(...engine.feed('r', t, i, 1e9 + i, x));
  });
  return out;
}

export const noise = (seed: number, n: number, mean: number, sd: number): number[] => {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const u = Math.max(r(), 1e-12);
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  });
};

export const raised = (ts: AlertTransition[], rule: string) =>
  ts.filter((t) => t.kind === 'raised' && t.alert.rule === rule);
export const rules = (ts: AlertTransition[]) => [
  ...new Set(ts.filter((t) => t.kind === 'raised').map((t) => t.alert.rule)),
];
