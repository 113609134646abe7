// `rlwatch inspect PATH --table [--json|--csv] [--columns a,b]`: the runs table of a folder as text (fit to the terminal), JSON or CSV.

import type { InspectReport, InspectRun } from '../core/inspect';
import {
  buildRunsTable,
  runsTableCsv,
  type RunsTable,
  type TableRunInput,
  tableRunInput,
} from '../shared/compare/runs-table';
import type { Cell, TableColumn } from '../shared/compare/table-cell';
import { runActivity } from '../shared/run-status';
import { flatRows } from '../shared/compare/group-rows';
import { formatValue } from '../shared/format';
import { terminalSafe, textTable } from './terminal-text';
import { UsageError } from './usage';
import { incidentAliases } from '../shared/incident-alias';

/** What the table needs of one inspected run: its activity judged from its files as the window judges a run's (a
 * one-shot read has no health engine: no stop evidence, no stalled), points and sessions as every view counts them. */
export function tableInput(r: InspectRun, now: number = Date.now()): TableRunInput {
  const last = r.sessions[r.sessions.length - 1]?.endWall ?? null;
  const activity = runActivity(
    {
      sources: r.sources.map(() => ({ dead: false })),
      progress: r.progress,
      loaded: true,
      lastEventAt: last === null ? null : Math.round(last * 1000),
      fileWrittenAt: r.writtenAt,
      stalled: false,
    },
    now,
  );
  return tableRunInput({
    run: r.run,
    activity,
    formats: r.sources.map((s) => s.format),
    points: r.points,
    sessions: r.sessions,
    scalars: Object.fromEntries(
      Object.entries(r.scalars).map(([tag, s]) => [tag, { last: s.last, min: s.min, max: s.max }]),
    ),
    config: r.config,
  });
}

/** Equal keys listed under the text table (the JSON and CSV have them all). */
const EQUAL_SHOWN = 12;

const cellText = (c: Cell): string =>
  c === null ? '—' : typeof c === 'number' ? formatValue(c, 6) : terminalSafe(String(c));

/** How the text form is laid out: the terminal's width (null: as wide as it takes, e.g. piped) and chosen columns. */
export interface TextLayout {
  width: number | null;
  /** Column ids or labels (`--columns a,b,c`), after the run's name; null: every column with a value. */
  columns: readonly string[] | null;
}

/** The columns named by `--columns` (id or label, any case), the run's name first; a UsageError names unknown ones. */
function chosenColumns(t: RunsTable, names: readonly string[]): TableColumn[] {
  const find = (n: string): TableColumn | undefined => {
    const k = n.trim().toLowerCase();
    return t.columns.find((c) => c.id.toLowerCase() === k || c.label.toLowerCase() === k);
  };
  const unknown = names.filter((n) => find(n) === undefined);
  if (unknown.length > 0)
    throw new UsageError(
      `--columns: no column ${unknown.map((n) => `'${terminalSafe(n)}'`).join(', ')}; the columns: ${t.columns.map((c) => terminalSafe(c.label)).join(', ')}`,
    );
  return [t.columns[0]!, ...new Set(names.map((n) => find(n)!).filter((c) => c.id !== 'run'))];
}

/** The table's text rows over `cols`: each seed group's row (n and mean ± 95 % CI per metric) before its runs,
 * which are indented under it. */
function textRows(t: RunsTable, cols: readonly TableColumn[]): string[][] {
  return [
    cols.map((c) => terminalSafe(c.label)),
    ...flatRows(t.columns, t.rows, t.groups, 6).map((r) =>
      cols.map((c) => {
        const v = cellText(r.cells[c.id] ?? null);
        return c.id === 'run' && r.kind === 'run' && r.group !== null ? `  ${v}` : v;
      }),
    ),
  ];
}

/** Run columns folded (in this order) once no config column is left and the table is still too wide. */
const FOLD_ORDER = ['start', 'points', 'sessions', 'format', 'duration', 'reward.best', 'loss.best'];

/** Width of textTable's lines over these rows. */
const tableWidth = (rows: string[][]): number =>
  rows[0]!.reduce((w, _, c) => w + Math.max(...rows.map((r) => r[c]!.length)), 0) + 2 * (rows[0]!.length - 1);

function text(t: RunsTable, layout: TextLayout): string {
  // Columns with no value in any run say nothing: left out of the text form (the run's name always stays).
  let cols =
    layout.columns !== null
      ? chosenColumns(t, layout.columns)
      : t.columns.filter((c) => c.id === 'run' || t.rows.some((r) => (r.cells[c.id] ?? null) !== null));
  let rows = textRows(t, cols);
  // Too wide for the terminal: config columns fold away from the right, then the run columns least read; a line
  // says what went.
  let folded = 0;
  const dropped: string[] = [];
  const fits = (): boolean => layout.width === null || tableWidth(rows) <= layout.width;
  while (layout.columns === null && !fits()) {
    const config = cols.map((c) => c.kind).lastIndexOf('config');
    const next =
      config >= 0
        ? config
        : cols.findIndex((c) => c.id === FOLD_ORDER.find((id) => cols.some((k) => k.id === id)));
    if (next < 0) break;
    if (config >= 0) folded++;
    else dropped.push(terminalSafe(cols[next]!.label));
    cols = cols.filter((_, k) => k !== next);
    rows = textRows(t, cols);
  }
  const out = [textTable(rows)];
  if (folded > 0 || dropped.length > 0)
    out.push(
      [
        ...(folded > 0 ? [`+${folded} config column${folded === 1 ? '' : 's'}`] : []),
        ...(dropped.length > 0 ? [`not shown: ${dropped.join(', ')}`] : []),
      ].join('; ') + ' (--columns to choose)',
    );
  if (t.groups.length > 0)
    out.push(
      `${t.groups.length} seed group${t.groups.length === 1 ? '' : 's'}: mean ± [95 % bootstrap CI] of the runs' values`,
    );
  if (t.equal.length > 0) {
    const shown = t.equal.slice(0, EQUAL_SHOWN).map((e) => `${terminalSafe(e.key)}=${cellText(e.value)}`);
    const more = t.equal.length > EQUAL_SHOWN ? `, … (${t.equal.length - EQUAL_SHOWN} more)` : '';
    out.push(
      `${t.equal.length} config key${t.equal.length === 1 ? '' : 's'} equal in every run: ${shown.join(', ')}${more}`,
    );
  }
  return out.join('\n') + '\n';
}

/** A run's worst active alert as the table shows it: `critical kl-above-target e7fc` (the alias `export --incident`
 * takes). */
export interface RunAlert {
  severity: 'warning' | 'critical';
  rule: string;
  alias: string;
}

/** The worst active alert of each run (critical before warning, then in list order) among a replay's alerts. */
export function worstAlerts(
  alerts: readonly {
    id: string;
    run: string;
    rule: string;
    severity: RunAlert['severity'];
    active: boolean;
  }[],
): Map<string, RunAlert> {
  const aliases = incidentAliases(alerts.map((a) => a.id));
  const out = new Map<string, RunAlert>();
  for (const a of alerts) {
    if (!a.active) continue;
    const had = out.get(a.run);
    if (!had || (had.severity === 'warning' && a.severity === 'critical'))
      out.set(a.run, { severity: a.severity, rule: a.rule, alias: aliases.get(a.id)! });
  }
  return out;
}

/** The table with a `worst alert` column after the status: each run's worst active alert, none where it has none. */
function withAlerts(t: RunsTable, alerts: ReadonlyMap<string, RunAlert>): RunsTable {
  const at = t.columns.findIndex((c) => c.id === 'status') + 1;
  const column: TableColumn = {
    id: 'alert',
    label: 'worst alert',
    kind: 'run',
    note: 'the worst active alert, as `watch` and the window judge the files read now',
  };
  return {
    ...t,
    columns: [...t.columns.slice(0, at), column, ...t.columns.slice(at)],
    rows: t.rows.map((r) => {
      const a = alerts.get(r.run);
      return { ...r, cells: { ...r.cells, alert: a ? `${a.severity} ${a.rule} ${a.alias}` : null } };
    }),
  };
}

export function runsTableOutput(
  report: InspectReport,
  form: 'text' | 'json' | 'csv',
  o: { alerts?: ReadonlyMap<string, RunAlert>; layout?: TextLayout } = {},
): string {
  const built = buildRunsTable(report.runs.map(tableInput));
  const t = o.alerts ? withAlerts(built, o.alerts) : built;
  if (form === 'json') {
    // The rows in the text's order: each group's row (kind "group", its statistics as numbers) before its runs.
    const rows = flatRows(t.columns, t.rows, t.groups, 6).map((r) => {
      if (r.kind === 'run') return { kind: r.kind, group: r.group, run: r.cells.run, cells: r.cells };
      const g = r.of!;
      return {
        kind: r.kind,
        group: g.label,
        runs: g.runs,
        n: g.runs.length,
        by: g.by,
        seeds: g.seeds,
        stats: g.stats,
      };
    });
    return JSON.stringify({ root: report.root, columns: t.columns, rows, equal: t.equal }) + '\n';
  }
  if (form === 'csv') return runsTableCsv(t, { groups: true });
  return `${terminalSafe(report.root)}: ${report.runs.length} run(s)\n${text(t, o.layout ?? { width: null, columns: null })}`;
}
