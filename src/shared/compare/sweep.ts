// Whether a folder's runs form a sweep (runs of one experiment logging alike metrics), which runs it holds, when to overlay it.

import { byCodeUnits } from '../order';

/**
 * The rule, on the tags each run logs (what the run list already has, no configs needed): two runs are alike when
 * at least half of the smaller run's tags are logged by the other too (overlap coefficient ≥ 0.5); a sweep is the
 * largest group of ≥ 2 runs joined by being alike (single linkage), if it has at most MAX_SWEEP_RUNS runs (more lines
 * than the palette's 24 distinct looks are not a comparison anyone reads). Runs without tags (not read yet, empty)
 * are never part of one. Ties between equal groups go to the one whose first name sorts first.
 *
 * SB3's A2C, DQN and PPO runs all log `rollout/*`, `time/fps` and most of `train/*`: they are one sweep; a lone
 * evaluation run logging only `eval/*` is not in it.
 */
export const MAX_SWEEP_RUNS = 24;
/** Folders with more runs are not scanned (pairs grow quadratically; such folders are not one sweep anyway). */
export const MAX_SWEEP_SCAN = 400;
/** The share of the smaller run's tags the other must log too. */
export const SWEEP_OVERLAP = 0.5;

export interface SweepRun {
  run: string;
  tags: readonly string[];
}

/** Whether two tag sets are alike (see the rule above). */
export function alikeTags(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return false;
  let shared = 0;
  for (const t of small) if (big.has(t)) shared++;
  return shared >= SWEEP_OVERLAP * small.size;
}

/** The sweep's runs, sorted by name; [] when the folder holds none. */
export function findSweep(runs: readonly SweepRun[]): string[] {
  const withTags = runs.filter((r) => r.tags.length > 0);
  if (withTags.length < 2 || runs.length > MAX_SWEEP_SCAN) return [];
  const sets = withTags.map((r) => new Set(r.tags));
  // Union–find over alike pairs.
  const parent = withTags.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++)
      if (root(i) !== root(j) && alikeTags(sets[i]!, sets[j]!)) parent[root(j)] = root(i);
  const groups = new Map<number, string[]>();
  withTags.forEach((r, i) => {
    const k = root(i);
    const g = groups.get(k);
    if (g) g.push(r.run);
    else groups.set(k, [r.run]);
  });
  let best: string[] = [];
  for (const g of groups.values()) {
    g.sort(byCodeUnits);
    if (
      g.length > best.length ||
      (g.length === best.length && g.length > 0 && byCodeUnits(g[0]!, best[0]!) < 0)
    )
      best = g;
  }
  return best.length >= 2 && best.length <= MAX_SWEEP_RUNS ? best : [];
}

/** Code-unit order: the same on every machine and locale. */

/**
 * Which runs to overlay now that the sweep is `members`, given the sweep last overlaid (`shown`, [] for none yet) and
 * the selected run: the whole sweep the first time; after that (a run joined it) only while the user still looks at
 * it — the selected run is one of it — so a grown sweep never pulls them away from another run. null: leave the
 * overlay as it is.
 */
export function sweepToShow(
  shown: readonly string[],
  members: readonly string[],
  selected: string | null,
): readonly string[] | null {
  if (members.length < 2) return null;
  if (shown.length === 0) return members;
  return selected !== null && shown.includes(selected) ? members : null;
}
