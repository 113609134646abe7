// `rlwatch inspect PATH --table [--json|--csv]`: the runs table of a folder as text, JSON or CSV.

import type { InspectReport, InspectRun } from '../core/inspect';
import {
  buildRunsTable,
  runsTableCsv,
  type RunsTable,
  type TableRunInput,
  tableRunInput,
} from '../shared/compare/runs-table';
import type { Cell } from '../shared/compare/table-cell';
import { runActivity } from '../shared/run-status';
import { flatRows } from '../shared/compare/group-rows';
import { formatValue } from '../shared/format';
import { terminalSafe, textTable } from './terminal-text';

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

function text(t: RunsTable): string {
  // Columns with no value in any run say nothing: left out of the text form (the run's name always stays).
  const cols = t.columns.filter(
    (c) => c.id === 'run' || t.rows.some((r) => (r.cells[c.id] ?? null) !== null),
  );
  // Each seed group's row (n and mean ± 95 % CI per metric) comes before its runs, which are indented under it.
  const rows = [
    cols.map((c) => terminalSafe(c.label)),
    ...flatRows(t.columns, t.rows, t.groups, 6).map((r) =>
      cols.map((c) => {
        const v = cellText(r.cells[c.id] ?? null);
        return c.id === 'run' && r.kind === 'run' && r.group !== null ? `  ${v}` : v;
      }),
    ),
  ];
  const out = [textTable(rows)];
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

export function runsTableOutput(report: InspectReport, form: 'text' | 'json' | 'csv'): string {
  const t = buildRunsTable(report.runs.map(tableInput));
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
  return `${terminalSafe(report.root)}: ${report.runs.length} run(s)\n${text(t)}`;
}
