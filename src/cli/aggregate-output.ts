// `rlwatch inspect PATH --table --aggregate METRIC`: the table's runs as rliable's aggregate scores (text or tidy CSV) and P(X > Y) of two groups.

import type { InspectReport } from '../core/inspect';
import type { Estimate } from '../shared/compare/aggregate-scores';
import {
  AggregateInputError,
  aggregateCsv,
  aggregateTable,
  compareGroups,
  type AggregateReport,
  type Comparison,
} from '../shared/compare/aggregate-table';
import { buildRunsTable, type RunsTable } from '../shared/compare/runs-table';
import { formatValue } from '../shared/format';
import { tableInput } from './runs-table-output';
import { terminalSafe, textTable } from './terminal-text';
import { parseNumber, repeatedFlag, UsageError } from './usage';

/** The flags of `--aggregate`, checked. */
export interface AggregateFlags {
  metric: string;
  by: string | null;
  task: string | null;
  normalise: { min: number; max: number } | null;
  gamma: number | null;
  reps?: number;
  seed?: number;
  /** Two group labels: P(first > second). */
  compare: [string, string] | null;
  out: string | null;
}

/** The flags `inspect` declares for `--aggregate`. */
export const AGGREGATE_FLAGS = {
  aggregate: { type: 'string' },
  by: { type: 'string' },
  task: { type: 'string' },
  min: { type: 'string' },
  max: { type: 'string' },
  gamma: { type: 'string' },
  reps: { type: 'string' },
  seed: { type: 'string' },
  compare: { type: 'string', multiple: true },
  out: { type: 'string' },
} as const;

const AGGREGATE_ONLY = ['by', 'task', 'min', 'max', 'gamma', 'reps', 'seed', 'compare', 'out'] as const;

/** The `--aggregate` flags from parsed values; null without `--aggregate` (a usage error when its flags come alone). */
export function aggregateFlags(values: Record<string, unknown>): AggregateFlags | null {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? values[k] : undefined);
  const metric = str('aggregate');
  if (metric === undefined) {
    const stray = AGGREGATE_ONLY.find((k) => values[k] !== undefined);
    if (stray) throw new UsageError(`--${stray} goes with --table --aggregate METRIC`);
    return null;
  }
  if (values.table !== true) throw new UsageError('--aggregate goes with --table');
  if (values.json === true) throw new UsageError('--aggregate writes text or --csv, not --json');
  const min = parseNumber('min', str('min'), -Number.MAX_VALUE, Number.MAX_VALUE);
  const max = parseNumber('max', str('max'), -Number.MAX_VALUE, Number.MAX_VALUE);
  if ((min === undefined) !== (max === undefined))
    throw new UsageError('--min and --max normalise together: give both');
  const compare = repeatedFlag(values, 'compare');
  if (compare.length !== 0 && compare.length !== 2)
    throw new UsageError('--compare takes two groups: --compare GROUP_X --compare GROUP_Y (P(X > Y))');
  return {
    metric,
    by: str('by') ?? null,
    task: str('task') ?? null,
    normalise: min !== undefined && max !== undefined ? { min, max } : null,
    gamma: parseNumber('gamma', str('gamma'), -Number.MAX_VALUE, Number.MAX_VALUE) ?? null,
    reps: parseNumber('reps', str('reps'), 1, 1_000_000),
    seed: parseNumber('seed', str('seed'), 0, 2 ** 32 - 1),
    compare: compare.length === 2 ? [compare[0]!, compare[1]!] : null,
    out: str('out') ?? null,
  };
}

/** A run's score: its table cell where METRIC is a metric column (`reward.last`), else its tag's last logged value. */
function scoreOf(report: InspectReport, t: RunsTable, metric: string): (run: string) => number | null {
  if (t.columns.some((c) => c.kind === 'metric' && c.id === metric)) {
    const byRun = new Map(t.rows.map((r) => [r.run, r.cells[metric] ?? null]));
    return (run) => {
      const v = byRun.get(run) ?? null;
      return typeof v === 'number' ? v : null;
    };
  }
  const runs = new Map(report.runs.map((r) => [r.run, r]));
  if (!report.runs.some((r) => Object.hasOwn(r.scalars, metric)))
    throw new AggregateInputError(
      `--aggregate ${metric}: no such metric column (${t.columns
        .filter((c) => c.kind === 'metric')
        .map((c) => c.id)
        .join(', ')}) or logged tag`,
    );
  return (run) => runs.get(run)?.scalars[metric]?.last ?? null;
}

export interface AggregateResult {
  report: AggregateReport;
  comparisons: Comparison[];
}

/** The aggregate of the folder's runs table; bad input (unknown metric, key or group) as a usage error. */
export function aggregateOf(report: InspectReport, f: AggregateFlags): AggregateResult {
  try {
    const table = buildRunsTable(report.runs.map(tableInput));
    const r = aggregateTable(table, {
      metric: f.metric,
      score: scoreOf(report, table, f.metric),
      by: f.by,
      task: f.task,
      normalise: f.normalise,
      gamma: f.gamma,
      ...(f.reps !== undefined ? { reps: f.reps } : {}),
      ...(f.seed !== undefined ? { seed: f.seed } : {}),
    });
    if (r.groups.length === 0)
      throw new AggregateInputError(
        f.by === null
          ? `--aggregate ${f.metric}: no seed groups with a value (no two runs differ only in their seed); group with --by KEY`
          : `--aggregate ${f.metric}: no run has a value`,
      );
    return { report: r, comparisons: f.compare ? [compareGroups(r, f.compare[0], f.compare[1])] : [] };
  } catch (err) {
    if (err instanceof AggregateInputError) throw new UsageError(err.message);
    throw err;
  }
}

const num = (v: number): string => formatValue(v, 6);
const ci = (e: Estimate | null): string => (e ? `${num(e.value)} [${num(e.lower)}, ${num(e.upper)}]` : '—');

/** The aggregate as text: a line on what was computed, a row per group, what was left out, the comparisons. */
export function aggregateText(root: string, { report: r, comparisons }: AggregateResult): string {
  const norm = r.normalise
    ? `, normalised (x − min) / (max − min) with min ${num(r.normalise.min)}, max ${num(r.normalise.max)}`
    : '';
  const out = [
    `${terminalSafe(root)}: ${terminalSafe(r.metric)} (each run's last logged value${norm}) by ${
      r.by === null ? 'seed group' : terminalSafe(r.by)
    }${r.task ? `, tasks by ${terminalSafe(r.task)}` : ''}`,
    textTable([
      [
        'group',
        'runs',
        'tasks',
        'IQM',
        'mean',
        'median',
        `optimality gap${r.gamma === null ? '' : ` (γ = ${num(r.gamma)})`}`,
      ],
      ...r.groups.map((g) => [
        terminalSafe(g.label),
        String(g.estimates.runs),
        String(g.estimates.tasks),
        ci(g.estimates.iqm),
        ci(g.estimates.mean),
        ci(g.estimates.median),
        ci(g.estimates.optimalityGap),
      ]),
    ]),
    `[95 % stratified bootstrap CI: ${r.reps} resamples of the runs within each task, seed ${r.seed}]; IQM over all runs pooled, mean and median of the task means`,
  ];
  if (r.gamma === null) out.push('optimality gap: give --min/--max (normalised scores) or --gamma');
  if (r.normalise === null && r.groups.some((g) => g.tasks.length > 1))
    out.push(
      "note: the IQM and the median pool raw scores of different tasks; where the tasks' scales differ, normalise them",
    );
  if (r.leftOut.length > 0)
    out.push(
      `left out ${r.leftOut.length} run${r.leftOut.length === 1 ? '' : 's'} (in no group, or no value): ${r.leftOut.map(terminalSafe).join(', ')}`,
    );
  for (const c of comparisons)
    out.push(
      `P(${terminalSafe(c.x)} > ${terminalSafe(c.y)}) = ${ci(c.improvement)} over ${c.tasks.length} task${c.tasks.length === 1 ? '' : 's'} (Mann–Whitney U / (n·m), ties ½)`,
    );
  return out.join('\n') + '\n';
}

/** The aggregate on stdout: text, or the tidy CSV with `csv`. */
export function aggregateOutput(root: string, a: AggregateResult, csv: boolean): string {
  return csv ? aggregateCsv(a.report, a.comparisons) : aggregateText(root, a);
}
