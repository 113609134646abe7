// Headless incident snapshots: a folder replayed once through `watch`'s alert path, the alert found by id, its snapshot written.

import type { AlertInfo, IncidentSnapshot, Settings } from '../../shared/domain';
import type { FigureFormat } from '../export/figure-render';
import { outsideReadFolder } from '../export/export-run';
import { writeIncident } from '../export/incident';
import { parseAlertId } from '../health/alert-id';
import { idsOfAlias, incidentAliases, looksLikeAlias } from '../../shared/incident-alias';
import { createWorkspace } from '../workspace/create';
import type { Workspace } from '../workspace/workspace';
import { createWatchAlerts, type WatchAlerts } from './watch-alerts';
import { WatchSession } from './watch-session';

/** A folder read once with `watch`'s pipeline: its views and the alerts the one AlertService raised. */
export interface AlertReplay {
  root: string;
  workspace: Workspace;
  alerts: WatchAlerts;
  /** Every incident, newest known first per id (AlertService.list order: active, then cleared newest first). */
  list(): AlertInfo[];
  close(): Promise<void>;
}

/**
 * Reads `dir` (not followed) through the same session `rlwatch watch` runs — workspace deltas and run lists
 * into the same AlertService with the same settings — so the ids and steps are the ones `watch --json` prints.
 * `only`: just the runs it says yes to (alerts are judged per run: theirs are the same as in the whole folder's replay).
 */
export async function replayAlerts(
  dir: string,
  settings: Settings,
  only?: (run: string) => boolean,
): Promise<AlertReplay> {
  const workspace = createWorkspace({ watch: false, ...(only ? { runs: only } : {}) });
  const alerts = createWatchAlerts({
    root: dir,
    configOf: (run) => workspace.configOf(run),
    writtenAt: (run) => workspace.writtenAt(run),
    runs: () => workspace.runNames(),
    settings,
  });
  const session = new WatchSession({ workspace, emit: () => {}, alerts, scalarLines: false });
  await workspace.open(dir);
  const root = workspace.root ?? dir;
  // The last run list (thrown out at most 100 ms after the read): finished runs are judged as watch does.
  alerts.onRuns(workspace.listRuns());
  return {
    root,
    workspace,
    alerts,
    list: () => alerts.service.list(),
    async close() {
      session.close();
      await workspace.close();
    },
  };
}

/** An alert id the replay did not raise; `known` lists (some of) the ones it did. */
export class UnknownAlertError extends Error {
  constructor(
    readonly id: string,
    readonly known: readonly string[],
    readonly total: number,
  ) {
    super(
      total === 0
        ? `no alert ${id}: this folder raises no alerts`
        : `no alert ${id} in this folder; its ${total} alert id(s)${known.length < total ? ` (first ${known.length})` : ''}: ${aliased(known)}`,
    );
    this.name = 'UnknownAlertError';
  }
}

/** Ids as listed for a person: each with its short alias first (`3f9a ["run","rule",…]`). */
function aliased(ids: readonly string[]): string {
  const aliases = incidentAliases(ids);
  return ids.map((i) => `${aliases.get(i)!} ${i}`).join(', ');
}

/** An alias that fits several incidents: a longer one (listed) tells them apart. */
export class AmbiguousAliasError extends Error {
  constructor(
    readonly alias: string,
    readonly ids: readonly string[],
  ) {
    super(`alias ${alias} fits ${ids.length} alerts: ${aliased(ids)}; give more of it or the full id`);
    this.name = 'AmbiguousAliasError';
  }
}

/** Ids listed in an unknown-id error at most. */
export const MAX_LISTED_IDS = 20;

/** The newest incident of `id` among the replay's alerts; an UnknownAlertError listing the ids otherwise. */
export function findIncident(alerts: readonly AlertInfo[], id: string): AlertInfo {
  const ids = [...new Set(alerts.map((a) => a.id))];
  // A short alias (`3f9a`, as every listing shows beside the full id) names the one incident whose id hashes to it.
  const full = looksLikeAlias(id) ? idsOfAlias(id, ids) : [id];
  if (full.length > 1) throw new AmbiguousAliasError(id, full);
  const hit = full.length === 1 ? alerts.find((a) => a.id === full[0]) : undefined;
  if (hit) return hit;
  throw new UnknownAlertError(id, ids.slice(0, MAX_LISTED_IDS), ids.length);
}

/**
 * The replay that holds incident `id`: of the run the id names only (the other runs of the folder are not read);
 * the whole folder's when the id names no run the folder has an alert of (its error lists the folder's ids).
 */
async function replayFor(dir: string, id: string, settings: Settings): Promise<AlertReplay> {
  const run = parseAlertId(id)?.run;
  if (run !== undefined) {
    const replay = await replayAlerts(dir, settings, (r) => r === run);
    if (replay.list().some((a) => a.id === id)) return replay;
    await replay.close();
  }
  return replayAlerts(dir, settings);
}

/**
 * `rlwatch export PATH --incident ID --out FOLDER`: replay, find, snapshot. An `out` inside `dir` is refused
 * (ExportUsageError) before the folder is read, not after a whole replay.
 */
export async function snapshotHeadless(
  dir: string,
  id: string,
  o: { out: string; settings: Settings; formats?: readonly FigureFormat[] },
): Promise<IncidentSnapshot> {
  await outsideReadFolder(o.out, dir);
  const replay = await replayFor(dir, id, o.settings);
  try {
    const alert = findIncident(replay.list(), id);
    const run = replay.workspace.runInfoOf(alert.run);
    return await writeIncident({
      alert,
      root: replay.root,
      out: o.out,
      reader: replay.workspace,
      tags: run?.tags ?? [],
      config: replay.workspace.configOf(alert.run),
      thresholds: replay.alerts.service.thresholdsOf(alert.run),
      scope: replay.alerts.service.scopeOf(alert.run),
      formats: o.formats,
    });
  } finally {
    await replay.close();
  }
}
