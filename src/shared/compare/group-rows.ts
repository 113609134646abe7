// The runs table's seed-group rows: per group of two or more runs, n and each metric column's mean with its 95 % bootstrap CI.

import { formatNumber } from '../format';
import { bootstrapMeanCi, seededRandom } from './group-stats';
import type { Cell, TableColumn } from './table-cell';
import { groupTitle, type SeedGroup } from './seed-groups';

/** Bootstrap resamples per cell and the generator's seed: the same interval on every refresh and machine. */
export const GROUP_CI_RESAMPLES = 1000;
export const GROUP_CI_SEED = 0;

/** One metric column over a group's runs: how many have a value, their mean and its 95 % percentile-bootstrap CI. */
export interface GroupStat {
  n: number;
  mean: number;
  lower: number;
  upper: number;
}

export interface GroupRow {
  /** The group's label (what sets it apart: SeedGroup's). */
  label: string;
  /** Its runs, in table order. */
  runs: string[];
  by: SeedGroup['by'];
  /** The keys (or name parts) its runs differ in. */
  seeds: string[];
  /** Per metric column (`reward.last`, `reward.best`…): its statistic, null where no run of the group has a value. */
  stats: Record<string, GroupStat | null>;
  /** The config columns whose value every run of the group shares (the group's setting, e.g. its `lr`). */
  shared: Record<string, Cell>;
}

/** A statistic as the table, the CLI and the CSV write it: `412.3 ± [398.1, 425.0]`, through the shared formatter. */
export function groupStatText(s: GroupStat | null, significant = 4): string | null {
  if (s === null) return null;
  const f = (v: number): string => formatNumber(v, significant);
  return `${f(s.mean)} ± [${f(s.lower)}, ${f(s.upper)}]`;
}

/** Cell CIs by their values (a cell's bootstrap depends on nothing else): a refresh of a table whose values did not
 * move costs a lookup, not 1000 resamples per cell. Emptied past CI_CACHE_CELLS so it stays bounded. */
const ciCache = new Map<string, [number, number]>();
const CI_CACHE_CELLS = 20_000;

function cellCi(xs: readonly number[]): [number, number] {
  const key = xs.join(',');
  let ci = ciCache.get(key);
  if (ci === undefined) {
    ci = bootstrapMeanCi(xs, GROUP_CI_RESAMPLES, seededRandom(GROUP_CI_SEED));
    if (ciCache.size >= CI_CACHE_CELLS) ciCache.clear();
    ciCache.set(key, ci);
  }
  return ci;
}

/**
 * The group rows of a table: one per seed group (groupBySeed, the charts' rule) with each metric column's statistic
 * over its runs' cells (last and best). Each cell's bootstrap starts from its own seeded generator, so a value does
 * not depend on which other columns or groups there are.
 */
export function groupRows(
  columns: readonly TableColumn[],
  rows: readonly { run: string; cells: Record<string, Cell> }[],
  groups: readonly SeedGroup[],
): GroupRow[] {
  const byRun = new Map(rows.map((r) => [r.run, r.cells]));
  const metrics = columns.filter((c) => c.kind === 'metric');
  const configs = columns.filter((c) => c.kind === 'config');
  return groups.map((g) => {
    const runs = g.runs.filter((r) => byRun.has(r));
    const stats: GroupRow['stats'] = {};
    for (const c of metrics) {
      const xs = runs
        .map((r) => byRun.get(r)![c.id] ?? null)
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (xs.length === 0) {
        stats[c.id] = null;
        continue;
      }
      const [lower, upper] = cellCi(xs);
      stats[c.id] = { n: xs.length, mean: xs.reduce((a, b) => a + b, 0) / xs.length, lower, upper };
    }
    const shared: GroupRow['shared'] = {};
    for (const c of configs) {
      const values = runs.map((r) => byRun.get(r)![c.id] ?? null);
      if (values[0] !== null && values.every((v) => v === values[0])) shared[c.id] = values[0]!;
    }
    return { label: g.label, runs, by: g.by, seeds: [...g.seeds], stats, shared };
  });
}

/** A table row as `inspect --table` writes it: a run, or a group with its statistics as text in the metric cells. */
export interface FlatRow {
  kind: 'run' | 'group';
  /** The group a run belongs to, or the group row's own label; null for a run in no group. */
  group: string | null;
  cells: Record<string, Cell>;
  /** A group row's statistics (and a group's run's group). */
  of: GroupRow | null;
}

/**
 * The one order of group and run rows for the CLI's text, JSON and CSV: each group's row, then its runs, where its first
 * run stood; runs in no group in place. A group row's `run` cell is its name (groupTitle), its metric cells the statistic,
 * its config cells the values its runs share.
 */
export function flatRows(
  columns: readonly TableColumn[],
  rows: readonly { run: string; cells: Record<string, Cell> }[],
  groups: readonly GroupRow[],
  significant = 4,
): FlatRow[] {
  const groupOf = new Map<string, GroupRow>();
  for (const g of groups) for (const r of g.runs) groupOf.set(r, g);
  const cellsOf = new Map(rows.map((r) => [r.run, r.cells]));
  const out: FlatRow[] = [];
  const done = new Set<GroupRow>();
  for (const r of rows) {
    const g = groupOf.get(r.run);
    if (!g) {
      out.push({ kind: 'run', group: null, cells: r.cells, of: null });
      continue;
    }
    if (done.has(g)) continue;
    done.add(g);
    const cells: Record<string, Cell> = { run: groupTitle(g), ...g.shared };
    for (const c of columns)
      if (c.kind === 'metric') cells[c.id] = groupStatText(g.stats[c.id] ?? null, significant);
    out.push({ kind: 'group', group: g.label, cells, of: g });
    // Its runs among these rows (a filtered table keeps the group's row while one of its runs is in it).
    for (const run of g.runs.filter((m) => cellsOf.has(m)))
      out.push({ kind: 'run', group: g.label, cells: cellsOf.get(run)!, of: g });
  }
  return out;
}
