// The window's runs table (runs.table) from the app's one run list: each run's status, formats, sessions, tag extremes and config.

import {
  buildRunsTable,
  tableRunInput,
  type RunsTable,
  type TableRunInput,
} from '../../shared/compare/runs-table';
import type { RunInfo } from '../../shared/domain';
import { runActivity } from '../../shared/run-status';
import type { RunFacts } from '../series/run-facts';
import type { AppCore } from './app-core';
import type { TagExtremes } from './tag-tracker';

/** What the table reads of the app; every part is already held (a run's facts kept until its files grow), so a request for
 * 1000 runs that did not move reads no series. */
export interface RunsTableSource {
  /** The one run list (the open folder's runs, then the remote endpoints'). */
  runs(): RunInfo[];
  /** Whether a run belongs to a remote endpoint (its key is `HOST//RUN`). */
  isRemote(run: string): boolean;
  /** Per tag of a local run: last point and extremes, as the deltas left them. */
  tags(run: string): ReadonlyMap<string, TagExtremes>;
  configOf(run: string): Record<string, unknown> | null;
  /** A local run's points and sessions in the files that exist now (core/series/run-facts.ts). */
  facts(run: string): RunFacts | null;
  now(): number;
}

const orNull = (v: number | null | undefined): number | null =>
  v === null || v === undefined || Number.isNaN(v) ? null : v;

/**
 * One run as the table needs it. A remote run has what its RunInfo says (status, formats, steps, times) and no
 * per-tag values or config: its endpoint keeps those, and asking each endpoint per row is not worth a table.
 */
export function tableRunOf(r: RunInfo, src: RunsTableSource, now: number): TableRunInput {
  const remote = src.isRemote(r.run);
  const scalars: TableRunInput['scalars'] = {};
  if (!remote)
    for (const [tag, t] of src.tags(r.run))
      scalars[tag] = { last: orNull(t.lastValue), min: t.min, max: t.max };
  // A local run's points and sessions from the files that exist now, as inspect counts them; a remote one's as its
  // endpoint's run list says.
  const facts = (remote ? null : src.facts(r.run)) ?? { points: r.points, sessions: r.sessions };
  return tableRunInput({
    run: r.run,
    // The run list's words for what the run is doing (alerts have their own panel).
    activity: runActivity(r, now),
    formats: r.sources.map((s) => s.format),
    ...facts,
    scalars,
    config: remote ? null : src.configOf(r.run),
  });
}

export function runsTableOf(src: RunsTableSource): RunsTable {
  const now = src.now();
  return buildRunsTable(src.runs().map((r) => tableRunOf(r, src, now)));
}

/** The table's view of the app: its run list, the remotes that own runs, the tag tracker and the workspace. */
export function appTableSource(core: AppCore): RunsTableSource {
  return {
    runs: () => core.runs(),
    isRemote: (run) => core.remotes.owns(run),
    tags: (run) => core.lastPoints(run),
    configOf: (run) => core.workspace.configOf(run),
    facts: (run) => core.workspace.tableFacts(run),
    now: () => core.now(),
  };
}
