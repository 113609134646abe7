// Runs a tracker names: each run of a database (trackio, mlflow.db) as a run, MLflow file-store runs by their MLflow names.

import type { Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SourceFormatName } from '../../shared/formats';
import { runIdKeyPart } from '../../shared/run-key';
import { readExperimentMeta, readRunName } from '../mlflow/store-names';
import { listDatabaseRuns } from '../sources/registry';
import { classifyFile, databaseProblem } from '../sources/sniff';
import { WALK_BATCH, type DiscoveredRun, type DiscoveryError } from './discovered';

/** Whether a recognised file is a tracker's database (many runs in one file), not a run's source. */
export function isDatabase(name: string, format: SourceFormatName): boolean {
  return name.toLowerCase().endsWith('.db') && (format === 'trackio' || format === 'mlflow');
}

/**
 * The key of a run named by its tracker (trackio, MLflow): `name` (runs of '/' made one: never `//`, which remote keys
 * use), its `id` (`runIdKeyPart`: escaped, never `//` either) when the name is empty, and `NAME (ID)` when the key is already `taken` (by a run that came first in
 * the tracker's order, first logged first: a name once given is kept when others come). Adds the key to `taken`.
 */
function uniqueRunName(name: string, id: string, taken: Set<string>): string {
  const key = runIdKeyPart(id);
  let shown = name.replace(/\/{2,}/g, '/') || key;
  if (taken.has(shown)) shown = `${shown} (${key})`;
  taken.add(shown);
  return shown;
}

/** An SQLite file (`.db`) that could not be read to tell what it is (cut short, damaged, a writer stopped
 * mid-commit) is a `database` error at `where`: it may be a tracker's, whose runs are then missing. */
export function unreadableDatabase(
  path: string,
  name: string,
  format: SourceFormatName | null,
  where: string,
  errors: DiscoveryError[],
): void {
  if (format !== null || !name.toLowerCase().endsWith('.db')) return;
  const problem = databaseProblem(path);
  if (problem) errors.push({ kind: 'database', path: where, message: problem.message });
}

/**
 * A database's runs as runs: each named `DB#NAME` (`prefix` the database's folder relative to the opened folder,
 * DB its file name, NAME the tracker's run name, unique by `uniqueRunName`), its folder the database's, its one
 * source the database read for that run (`member`). Why its runs could not be listed is a `database` error.
 */
export function expandDatabase(
  path: string,
  format: SourceFormatName,
  prefix: string,
  errors: DiscoveryError[],
): DiscoveredRun[] {
  const file = basename(path);
  const taken = new Set<string>();
  const { runs, error } = listDatabaseRuns(path, format);
  if (error) errors.push({ kind: 'database', path: `${prefix}${file}`, message: error.message });
  return runs.map(({ member, name }) => {
    const shown = uniqueRunName(name, member, taken);
    return {
      run: `${prefix}${file}#${shown}`,
      dir: dirname(path),
      sources: [{ path, name: file, format, member }],
    };
  });
}

/**
 * MLflow file-store runs (`mlflowRuns`, by folder) keyed by their MLflow names: `mlruns/EXP_ID/RUN_ID` becomes
 * `mlruns/EXP/NAME`, EXP the experiment's name (its meta.yaml's `name`; its folder's id without one), NAME the run's
 * `mlflow.runName` tag, else its run_name, else its id, unique by `uniqueRunName` with the runs of the whole tree
 * (MLflow's order: started first, then by id). A key in `keep` stays its folder's; a deleted run (lifecycle_stage
 * `deleted`, or its experiment's: MLflow's SQL store marks the runs, its file store only the experiment, moved to
 * `.trash/`) is no run; the opened folder's own run keeps its name (`rootRunName`). Names are trimmed of '/' at their
 * ends, and one holding a `.` or `..` part is its id (a key is never a way up). Changes `runs` in place.
 */
export async function nameMlflowRuns(
  runs: DiscoveredRun[],
  mlflowRuns: ReadonlySet<string>,
  keep: ReadonlyMap<string, string> | undefined,
): Promise<void> {
  const isNamed = (r: DiscoveredRun): boolean => mlflowRuns.has(r.dir) && r.run !== '.';
  const named = runs.filter(isNamed);
  if (named.length === 0) return;
  const taken = new Set(runs.filter((r) => !isNamed(r)).map((r) => r.run));
  const fresh: DiscoveredRun[] = [];
  for (const r of named) {
    const kept = keep?.get(r.dir);
    if (kept === undefined) fresh.push(r);
    else taken.add((r.run = kept));
  }
  const experiments = new Map<string, ReturnType<typeof readExperimentMeta>>();
  const found: { run: DiscoveredRun; id: string; name: string; start: number; drop: boolean }[] = [];
  for (let i = 0; i < fresh.length; i += WALK_BATCH)
    found.push(
      ...(await Promise.all(
        fresh.slice(i, i + WALK_BATCH).map(async (run) => {
          const meta = await readRunName(run.dir);
          const expDir = dirname(run.dir);
          if (!experiments.has(expDir)) experiments.set(expDir, readExperimentMeta(expDir));
          const exp = await experiments.get(expDir)!;
          // run.run is still the folder's path: `ABOVE/EXP_ID/RUN_ID`, or `RUN_ID` in an opened experiment folder.
          const cut = run.run.lastIndexOf('/');
          let prefix = '';
          if (cut >= 0) {
            const expPath = run.run.slice(0, cut);
            const up = expPath.lastIndexOf('/');
            prefix = `${expPath.slice(0, up + 1)}${safePart(exp?.name ?? null) ?? expPath.slice(up + 1)}/`;
          }
          const id = basename(run.dir); // MLflow's run id
          return {
            run,
            id,
            name: `${prefix}${safePart(meta?.name ?? null) ?? id}`,
            start: meta?.startTime ?? Infinity,
            drop: meta?.deleted === true || exp?.deleted === true,
          };
        }),
      )),
    );
  found.sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const dropped = new Set<DiscoveredRun>();
  for (const f of found) {
    if (f.drop) dropped.add(f.run);
    else f.run.run = uniqueRunName(f.name, f.id, taken);
  }
  if (dropped.size > 0) runs.splice(0, runs.length, ...runs.filter((r) => !dropped.has(r)));
}

/** A name as a part of a key: '/' runs made one, none at the ends; null when empty or holding `.` or `..`. */
function safePart(name: string | null): string | null {
  const s = name?.replace(/\/{2,}/g, '/').replace(/^\/|\/$/g, '') ?? '';
  return s === '' || s.split('/').some((p) => p === '.' || p === '..') ? null : s;
}

/** Whether a folder is an MLflow file-store run: it holds a run's meta.yaml (an experiment's has no run_uuid). */
export async function isMlflowRunDir(dir: string, entries: readonly Dirent[]): Promise<boolean> {
  const meta = entries.find((e) => e.name === 'meta.yaml' && e.isFile());
  return meta !== undefined && (await classifyFile(join(dir, meta.name), meta.name)) === 'mlflow';
}
