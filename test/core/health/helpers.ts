// Test helpers: a fake clock, a seeded RNG and a one-tag stream runner for the health engine.
import { rng } from '../../../src/core/demo/simulation';
import { HealthEngine, type AlertTransition } from '../../../src/core/health';

export function harness() {
  const clock = { now: 1_700_000_000_000 };
  const engine = new HealthEngine({ clock: () => clock.now });
  return { clock, engine };
}

/** Feeds `values` to one tag (step i, wall time 1e9 + i, clock advancing 1 s per point). */
export function run(
  tag: string,
  values: number[],
  extra?: (i: number) => [string, number][],
): AlertTransition[] {
  const { clock, engine } = harness();
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
