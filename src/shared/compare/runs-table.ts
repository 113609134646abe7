// The runs table: one row per run (status, format, steps, key metrics, time) and every config key that varies as a column.

import { classifyTag } from '../catalog';
import type { Role } from '../catalog';
import { csvLine } from '../csv-text';
import type { SessionInfo } from '../domain';
import { STATUS_LABELS, type RunActivity } from '../run-status';
import { flatRows, groupRows, type GroupRow } from './group-rows';
import type { Cell, TableColumn } from './table-cell';
import { flattenConfig, groupBySeed } from './seed-groups';

/** What the table needs of a run, from `inspect` or from the app's run list and details. */
export interface TableRunInput {
  run: string;
  /** The dashboard's state (live, idle, finished…), null where unknown (a one-shot read). */
  status: string | null;
  formats: string[];
  /** Newest step of its current session, null before any point. */
  step: number | null;
  /** Every point of its shown series, every session, in the files that exist now (core/series/run-facts.ts). */
  points: number;
  /** Its sessions (each restart starts one) in the files that exist now. */
  sessions: number;
  /** Seconds since epoch of its first and newest point, null where the files hold no times. */
  startWall: number | null;
  endWall: number | null;
  /** Per tag: last value and its extremes. */
  scalars: Record<string, { last: number | null; min: number | null; max: number | null }>;
  config: Record<string, unknown> | null;
}

/** What a view knows of a run, as every view hands it over: the window from its run list, `inspect --table` and
 * export from a one-shot read of the same files. */
export interface RunTableFacts {
  run: string;
  /** What the run is doing (runActivity), null where nothing judged it (a remote endpoint's run without one). */
  activity: RunActivity | null;
  formats: readonly string[];
  /** Points and sessions as core/series/run-facts.ts counts them. */
  points: number;
  sessions: readonly SessionInfo[];
  scalars: TableRunInput['scalars'];
  config: Record<string, unknown> | null;
}

/** The one way a run becomes a table row's input, whichever view asks. */
export function tableRunInput(f: RunTableFacts): TableRunInput {
  return {
    run: f.run,
    status: f.activity === null ? null : STATUS_LABELS[f.activity],
    formats: [...new Set(f.formats)],
    ...sessionSpan(f.sessions),
    points: f.points,
    sessions: f.sessions.length,
    scalars: f.scalars,
    config: f.config,
  };
}

/** A run's steps and times as the table shows them, from its sessions: the current session's newest step, the first
 * session's first point and the current session's newest (null where unknown). */
export function sessionSpan(
  sessions: readonly SessionInfo[],
): Pick<TableRunInput, 'step' | 'startWall' | 'endWall'> {
  const first = sessions[0];
  const last = sessions[sessions.length - 1];
  return {
    step: last ? last.endStep : null,
    startWall: first?.startWall ?? null,
    endWall: last?.endWall ?? null,
  };
}

export interface RunsTable {
  columns: TableColumn[];
  rows: { run: string; cells: Record<string, Cell> }[];
  /** Config keys equal in every run (folded away: "12 keys equal"), with their one value. */
  equal: { key: string; value: Cell }[];
  /** The seed groups among the runs (groupBySeed, as the charts group them), each with its metric columns' mean ± CI. */
  groups: GroupRow[];
}

/** The key metrics shown for every run: the first tag of each role, its last value and, where one is better, its best. */
const KEY_METRICS: { role: Role; label: string; best: 'max' | 'min' | null }[] = [
  { role: 'reward', label: 'reward', best: 'max' },
  { role: 'kl', label: 'KL', best: null },
  { role: 'entropy', label: 'entropy', best: null },
  { role: 'loss', label: 'loss', best: 'min' },
];

/** W&B's own bookkeeping (SDK versions, telemetry) is not configuration. */
const isBookkeeping = (key: string): boolean => key === '_wandb' || key.startsWith('_wandb.');

/** A config value as one cell: scalars as they are, anything else as its JSON text. */
function cellOf(v: unknown): Cell {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  return JSON.stringify(v) ?? null;
}

/** The first tag (in name order) of each key role in a run, and whether its values are the role's negated. */
function keyTags(tags: readonly string[]): Map<Role, { tag: string; negate: boolean }> {
  const out = new Map<Role, { tag: string; negate: boolean }>();
  for (const tag of [...tags].sort()) {
    const c = classifyTag(tag);
    if (c && !out.has(c.role)) out.set(c.role, { tag, negate: c.transform === 'negate' });
  }
  return out;
}

/** A run's key metrics as the table picks them, in the table's order: each role's label and the tag it comes from. */
export function keyMetricTags(tags: readonly string[]): { label: string; tag: string; negate: boolean }[] {
  const found = keyTags(tags);
  return KEY_METRICS.flatMap((m) => {
    const k = found.get(m.role);
    return k ? [{ label: m.label, ...k }] : [];
  });
}

/** A key metric's last value and extremes in the role's own sign (SB3's `train/entropy_loss` = −entropy, negated). */
function inRoleSign(
  s: TableRunInput['scalars'][string] | undefined,
  negate: boolean,
): { last: number | null; min: number | null; max: number | null } {
  if (!s) return { last: null, min: null, max: null };
  if (!negate) return s;
  const neg = (v: number | null): number | null => (v === null ? null : -v);
  return { last: neg(s.last), min: neg(s.max), max: neg(s.min) };
}

export function buildRunsTable(runs: readonly TableRunInput[]): RunsTable {
  const flat = runs.map((r) => (r.config ? flattenConfig(r.config) : new Map<string, unknown>()));
  const keys = [...new Set(flat.flatMap((f) => [...f.keys()]))].filter((k) => !isBookkeeping(k)).sort();
  const equal: RunsTable['equal'] = [];
  const varying: string[] = [];
  for (const k of keys) {
    const texts = new Set(flat.map((f) => (f.has(k) ? JSON.stringify(f.get(k)) : undefined)));
    if (runs.length > 1 && texts.size === 1 && !texts.has(undefined))
      equal.push({ key: k, value: cellOf(flat[0]!.get(k)) });
    else varying.push(k);
  }
  /** Per key role, the negated tags its cells came from (a column says so in its note). */
  const negated = new Map<Role, Set<string>>(KEY_METRICS.map((m) => [m.role, new Set<string>()]));
  const rows = runs.map((r, i) => {
    const cells: Record<string, Cell> = {
      run: r.run,
      status: r.status,
      format: r.formats.join(' '),
      step: r.step,
      points: r.points,
      sessions: r.sessions,
      start: r.startWall === null ? null : new Date(r.startWall * 1000).toISOString(),
      duration: r.startWall === null || r.endWall === null ? null : Math.round(r.endWall - r.startWall),
    };
    const tags = keyTags(Object.keys(r.scalars));
    for (const m of KEY_METRICS) {
      const k = tags.get(m.role);
      const s = inRoleSign(k ? r.scalars[k.tag] : undefined, k?.negate ?? false);
      if (k?.negate) negated.get(m.role)!.add(k.tag);
      cells[`${m.role}.last`] = s.last;
      if (m.best) cells[`${m.role}.best`] = m.best === 'max' ? s.max : s.min;
    }
    for (const k of varying) cells[`config.${k}`] = flat[i]!.has(k) ? cellOf(flat[i]!.get(k)) : null;
    return { run: r.run, cells };
  });
  const metricCols: TableColumn[] = KEY_METRICS.flatMap((m) => {
    const neg = [...negated.get(m.role)!].sort();
    const note = neg.length
      ? {
          note: `${neg.join(', ')} ${neg.length > 1 ? 'are' : 'is'} −${m.label}: shown negated, as ${m.label}`,
        }
      : {};
    return [
      { id: `${m.role}.last`, label: `${m.label} (last)`, kind: 'metric' as const, ...note },
      ...(m.best
        ? [{ id: `${m.role}.best`, label: `${m.label} (best)`, kind: 'metric' as const, ...note }]
        : []),
    ];
  });
  const columns: TableColumn[] = [
    { id: 'run', label: 'run', kind: 'run' },
    { id: 'status', label: 'status', kind: 'run' },
    { id: 'format', label: 'format', kind: 'run' },
    { id: 'step', label: 'steps', kind: 'run' },
    {
      id: 'points',
      label: 'points',
      kind: 'run',
      note: 'every logged point of every tag and session in the files that exist now: the lines of export’s metrics_long.csv',
    },
    { id: 'sessions', label: 'sessions', kind: 'run', note: 'each restart starts one' },
    { id: 'start', label: 'start', kind: 'run' },
    { id: 'duration', label: 'duration (s)', kind: 'run' },
    ...metricCols,
    ...varying.map((k) => ({ id: `config.${k}`, label: k, kind: 'config' as const })),
  ];
  return { columns, rows, equal, groups: groupRows(columns, rows, groupBySeed(runs)) };
}

/** The statistic columns a metric column gets in the CSV with groups, after it: each a number (or the band's kind). */
export const GROUP_STAT_FIELDS = ['mean', 'lower', 'upper', 'n', 'band'] as const;

/** What a group row's interval is: the percentile bootstrap 95 % CI of the mean (`--band ci95`'s kind). */
export const GROUP_ROW_BAND = 'ci95';

/**
 * The table as CSV: a header of column labels, one line per run; empty cells for null. With `groups` (and seed groups
 * in the table) each group's row comes before its runs, under two more columns first: `kind` (group or run) and
 * `group`; each metric column is followed by its group statistic as tidy columns (`reward (last) mean`, `… lower`,
 * `… upper`, `… n`, `… band`), numbers a reader takes without parsing, filled on group rows only (a group row leaves
 * the metric's own column empty: it has no one value).
 */
export function runsTableCsv(t: RunsTable, o: { groups?: boolean } = {}): string {
  const text = (c: Cell): string | number | null => (typeof c === 'boolean' ? String(c) : c);
  if (o.groups && t.groups.length > 0) {
    const header = ['kind', 'group'];
    for (const c of t.columns) {
      header.push(c.label);
      if (c.kind === 'metric') for (const f of GROUP_STAT_FIELDS) header.push(`${c.label} ${f}`);
    }
    const line = (r: ReturnType<typeof flatRows>[number]): string => {
      const cells: (string | number | null)[] = [r.kind, text(r.group)];
      for (const c of t.columns) {
        if (c.kind !== 'metric') {
          cells.push(text(r.cells[c.id] ?? null));
          continue;
        }
        const st = r.kind === 'group' ? (r.of!.stats[c.id] ?? null) : null;
        cells.push(r.kind === 'group' ? null : text(r.cells[c.id] ?? null));
        cells.push(
          ...(st ? [st.mean, st.lower, st.upper, st.n, GROUP_ROW_BAND] : [null, null, null, null, null]),
        );
      }
      return csvLine(cells);
    };
    return csvLine(header) + flatRows(t.columns, t.rows, t.groups).map(line).join('');
  }
  return (
    csvLine(t.columns.map((c) => c.label)) +
    t.rows.map((r) => csvLine(t.columns.map((c) => text(r.cells[c.id] ?? null)))).join('')
  );
}
