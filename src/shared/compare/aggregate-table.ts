// The runs table's aggregate scores: runs grouped (seed groups or a config key) and split by task, each group's rliable statistics, profile and comparisons, and their tidy CSV.

import { csvLine } from '../csv-text';
import {
  aggregateEstimates,
  improvementEstimate,
  linspace,
  performanceProfile,
  type AggregateEstimates,
  type Estimate,
} from './aggregate-scores';
import type { RunsTable } from './runs-table';
import type { Cell } from './table-cell';

/** Bootstrap resamples and seed when not given: rliable's profile count (its aggregates use 50 000: `--reps`). */
export const AGGREGATE_REPS = 2000;
export const AGGREGATE_SEED = 0;
/** Thresholds of a performance profile. */
export const PROFILE_POINTS = 51;

/** Bad aggregate input (an unknown metric, key or group): a typed error the CLI turns into a usage message. */
export class AggregateInputError extends Error {}

export interface AggregateOptions {
  /** What the score is called (a table column id such as `reward.last`, or a tag). */
  metric: string;
  /** A run's score (its last logged value of the metric); null where it has none. */
  score: (run: string) => number | null;
  /** Group by this config key's value instead of by seed group. */
  by?: string | null;
  /** The config key whose value names a run's task (environment): the bootstrap resamples runs within each task. */
  task?: string | null;
  /** Min–max normalisation: (score − min) / (max − min). */
  normalise?: { min: number; max: number } | null;
  /** Target of the optimality gap (default 1 when normalised; none otherwise). */
  gamma?: number | null;
  reps?: number;
  seed?: number;
}

export interface AggregateGroup {
  label: string;
  /** Per task (in name order): its name and its runs with their (normalised) scores. */
  tasks: { task: string; runs: string[]; scores: number[] }[];
  estimates: AggregateEstimates;
}

export interface AggregateReport {
  metric: string;
  by: string | null;
  task: string | null;
  normalise: { min: number; max: number } | null;
  gamma: number | null;
  reps: number;
  seed: number;
  groups: AggregateGroup[];
  /** Runs in no group, or with no finite score, left out. */
  leftOut: string[];
}

const cellText = (c: Cell): string => (c === null ? '(none)' : String(c));

/** A run's value of config key `key` as the table holds it: its column where the key varies, the one value where it
 * is equal in every run; undefined where the table has no such key. */
function configOf(t: RunsTable, key: string): ((run: string) => Cell) | undefined {
  const id = `config.${key}`;
  if (t.columns.some((c) => c.id === id)) {
    const byRun = new Map(t.rows.map((r) => [r.run, r.cells[id] ?? null]));
    return (run) => byRun.get(run) ?? null;
  }
  const eq = t.equal.find((e) => e.key === key);
  return eq ? () => eq.value : undefined;
}

function needKey(t: RunsTable, flag: string, key: string): (run: string) => Cell {
  const f = configOf(t, key);
  if (!f) throw new AggregateInputError(`--${flag} ${key}: no run has a config key ${key}`);
  return f;
}

/** Each group's runs with a finite score, split by task, and its statistics. */
export function aggregateTable(t: RunsTable, o: AggregateOptions): AggregateReport {
  const by = o.by ?? null;
  const taskKey = o.task ?? null;
  if (taskKey !== null && by === null)
    throw new AggregateInputError(
      `--task ${taskKey} needs --by KEY (the key that names what is compared across tasks): a seed group holds one task`,
    );
  const norm = o.normalise ?? null;
  if (norm !== null && !(norm.max > norm.min))
    throw new AggregateInputError('--max must be greater than --min');
  const gamma = o.gamma ?? (norm !== null ? 1 : null);
  const reps = o.reps ?? AGGREGATE_REPS;
  const seed = o.seed ?? AGGREGATE_SEED;
  const taskOf = taskKey === null ? () => '' : needKey(t, 'task', taskKey);
  // Groups in table order: seed groups, or one per value of the --by key.
  const members = new Map<string, string[]>();
  if (by === null) for (const g of t.groups) members.set(g.label, [...g.runs]);
  else {
    const valueOf = needKey(t, 'by', by);
    for (const r of t.rows) {
      const label = `${by}=${cellText(valueOf(r.run))}`;
      const list = members.get(label);
      if (list) list.push(r.run);
      else members.set(label, [r.run]);
    }
  }
  const grouped = new Set([...members.values()].flat());
  const leftOut = t.rows.map((r) => r.run).filter((r) => !grouped.has(r));
  const groups: AggregateGroup[] = [];
  for (const [label, runs] of members) {
    const tasks = new Map<string, { task: string; runs: string[]; scores: number[] }>();
    for (const run of runs) {
      const raw = o.score(run);
      if (raw === null || !Number.isFinite(raw)) {
        leftOut.push(run);
        continue;
      }
      const score = norm === null ? raw : (raw - norm.min) / (norm.max - norm.min);
      const task = cellText(taskOf(run));
      const entry = tasks.get(task) ?? { task, runs: [], scores: [] };
      entry.runs.push(run);
      entry.scores.push(score);
      tasks.set(task, entry);
    }
    if (tasks.size === 0) continue;
    const list = [...tasks.values()].sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0));
    const estimates = aggregateEstimates(
      list.map((x) => x.scores),
      { reps, seed, gamma },
    );
    groups.push({ label, tasks: list, estimates });
  }
  return { metric: o.metric, by, task: taskKey, normalise: norm, gamma, reps, seed, groups, leftOut };
}

function groupNamed(r: AggregateReport, label: string): AggregateGroup {
  const g = r.groups.find((x) => x.label === label);
  if (!g)
    throw new AggregateInputError(
      `--compare: no group ${label} (groups: ${r.groups.map((x) => x.label).join(', ') || 'none'})`,
    );
  return g;
}

export interface Comparison {
  x: string;
  y: string;
  /** P(X > Y) averaged over the tasks both groups have. */
  improvement: Estimate;
  tasks: string[];
}

/** The probability that a run of group `x` scores above one of group `y` on the same task, averaged over their
 * shared tasks, with its interval from independent stratified resamples. */
export function compareGroups(r: AggregateReport, x: string, y: string): Comparison {
  const gx = groupNamed(r, x);
  const gy = groupNamed(r, y);
  const shared = gx.tasks.map((t) => t.task).filter((task) => gy.tasks.some((u) => u.task === task));
  if (shared.length === 0) throw new AggregateInputError(`--compare: ${x} and ${y} share no task`);
  const scoresOf = (g: AggregateGroup): number[][] =>
    shared.map((task) => g.tasks.find((t) => t.task === task)!.scores);
  return {
    x,
    y,
    improvement: improvementEstimate(scoresOf(gx), scoresOf(gy), { reps: r.reps, seed: r.seed }),
    tasks: shared,
  };
}

export interface ProfileLine {
  label: string;
  points: { tau: number; fraction: Estimate }[];
}

/** Each group's performance profile over `count` thresholds spanning every group's scores (one x for all). */
export function aggregateProfiles(r: AggregateReport, count = PROFILE_POINTS): ProfileLine[] {
  const all = r.groups.flatMap((g) => g.tasks.flatMap((t) => t.scores));
  if (all.length === 0) return [];
  const taus = linspace(Math.min(...all), Math.max(...all), count);
  return r.groups.map((g) => ({
    label: g.label,
    points: performanceProfile(
      g.tasks.map((t) => t.scores),
      taus,
      { reps: r.reps, seed: r.seed },
    ),
  }));
}

/** The statistics as tidy CSV: one line per group and statistic (`group, statistic, value, lower, upper, runs, tasks,
 * versus`); a comparison is a `probability_of_improvement` line of group `x` versus `y`. */
export function aggregateCsv(r: AggregateReport, comparisons: readonly Comparison[] = []): string {
  const lines = [csvLine(['group', 'statistic', 'value', 'lower', 'upper', 'runs', 'tasks', 'versus'])];
  for (const g of r.groups) {
    const e = g.estimates;
    const stats: [string, Estimate | null][] = [
      ['iqm', e.iqm],
      ['mean', e.mean],
      ['median', e.median],
      ['optimality_gap', e.optimalityGap],
    ];
    for (const [name, s] of stats)
      if (s) lines.push(csvLine([g.label, name, s.value, s.lower, s.upper, e.runs, e.tasks, null]));
  }
  for (const c of comparisons) {
    const runs = (label: string): number => r.groups.find((g) => g.label === label)!.estimates.runs;
    const i = c.improvement;
    lines.push(
      csvLine([c.x, 'probability_of_improvement', i.value, i.lower, i.upper, runs(c.x), c.tasks.length, c.y]),
    );
  }
  return lines.join('');
}

/** The profiles as tidy CSV: `group, tau, fraction, lower, upper`. */
export function profileCsv(lines: readonly ProfileLine[]): string {
  return (
    csvLine(['group', 'tau', 'fraction', 'lower', 'upper']) +
    lines
      .flatMap((l) =>
        l.points.map((p) => csvLine([l.label, p.tau, p.fraction.value, p.fraction.lower, p.fraction.upper])),
      )
      .join('')
  );
}
