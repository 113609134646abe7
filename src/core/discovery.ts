// Finds the runs under a folder: every folder directly holding a recognised metrics file is a run
// (HF checkpoint folders excepted: a snapshot of the run beside them; an MLflow run holds its metrics/ tree),
// and every run of a tracker database (trackio, mlflow.db) is one.

import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { SourceFormatName } from '../shared/formats';
import { errorCode } from './readers/file-io';
import { isBelow } from './readers/side-file';
import { readExperimentMeta, readRunName } from './mlflow/store-names';
import { listDatabaseRuns } from './sources/registry';
import { classifyFile, databaseProblem } from './sources/sniff';
import { dumpStep } from './samples/completions';
import { byCodeUnits } from '../shared/order';
import { runIdKeyPart } from '../shared/run-key';

export interface DiscoveredSource {
  /** Absolute path. */
  path: string;
  /** File name, the sort key; for a snapshot or an MLflow metric its path from the run folder
   * (`checkpoint-N/trainer_state.json`, `metrics/train/loss`). */
  name: string;
  format: SourceFormatName;
  /** The newest checkpoint's trainer_state.json, read for the run in the checkpoints' parent folder: at
   * most one per run, and it moves to a newer checkpoint when one appears (see `adoptSnapshots`). */
  snapshot?: true;
  /** A database holding many runs (trackio, mlflow.db): the id there of the run this source reads. */
  member?: string;
}

export interface DiscoveredRun {
  /** Path of the folder relative to the opened folder, '/'-separated; the folder itself by its name (rootRunName);
   * a database's run `DB#NAME` (`expandDatabase`); an MLflow file-store run `EXP/NAME` (`nameMlflowRuns`). */
  run: string;
  dir: string;
  sources: DiscoveredSource[];
}

export type DiscoveryErrorKind = 'io' | 'symlink-loop' | 'limit' | 'database';

export interface DiscoveryError {
  kind: DiscoveryErrorKind;
  /** Folder concerned, relative to the opened folder like run names. */
  path: string;
  message: string;
}

export interface Discovery {
  root: string;
  runs: DiscoveredRun[];
  errors: DiscoveryError[];
  /** Every folder walked, as reached (a linked folder by its link's path), each real folder once, in
   * walk order: what a watcher must follow, and nothing more (no loop, no second name). */
  dirs: string[];
}

export interface DiscoverOptions {
  maxDepth?: number;
  maxDirs?: number;
  /** Keys already given to runs, by run folder: an MLflow run found there keeps its key (renamed since, or a
   * name now taken by another), so a run's key changes only when the folder is opened again. */
  keep?: ReadonlyMap<string, string>;
}

/** Folders that hold code or caches, never runs; skipping them keeps big checkouts cheap. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);

/** Folders walked at once. */
const WALK_BATCH = 32;

interface Pending {
  dir: string;
  depth: number;
  /** Real paths of this folder and its ancestors, to recognise a symlink pointing back up. */
  chain: string[];
  /** Inside an MLflow run's metrics/ tree: that run's folder (every file is one of its metrics). */
  mlflowRun?: string;
}

/** An MLflow run folder's parts read by its meta.yaml's reader, never runs of their own. */
const MLFLOW_SIDE_DIRS = new Set(['params', 'tags']);

/**
 * The name of the opened folder's own run: the folder's name (alerts, exports and the run list say
 * `ppo_cartpole`, not `.`), or '.' where a run below already has that relative path (a folder `ppo` holding
 * a folder `ppo`) or the folder has no name (`/`). Run names stay unique and depend on nothing but the tree.
 */
export function rootRunName(folder: string, names: readonly string[]): string {
  const name = basename(resolve(folder));
  return name === '' || names.includes(name) ? '.' : name;
}

/**
 * Walks `root` without writing anything. Real folders are walked first; symlinked folders after,
 * so a `latest-run` link is seen as a duplicate of the folder it points to (skipped), a link to
 * an ancestor is a `symlink-loop` error, and a link to a folder outside the tree is followed once.
 */
export async function discoverRuns(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const maxDepth = options.maxDepth ?? 64;
  const maxDirs = options.maxDirs ?? 50_000;
  const runs: DiscoveredRun[] = [];
  const errors: DiscoveryError[] = [];
  const rel = (p: string): string => {
    const r = relative(root, p);
    return r === '' ? '.' : r.split(sep).join('/');
  };

  let rootStat;
  try {
    rootStat = await stat(root);
  } catch (e) {
    return { root, runs, errors: [{ kind: 'io', path: '.', message: message(e) }], dirs: [] };
  }
  if (rootStat.isFile()) {
    const name = basename(root);
    const format = await classifyFile(root, name, basename(dirname(root)) === 'metrics');
    unreadableDatabase(root, name, format, name, errors);
    if (format && isDatabase(name, format))
      runs.push(
        ...expandDatabase(root, format, '', errors).sort((a, b) =>
          a.run < b.run ? -1 : a.run > b.run ? 1 : 0,
        ),
      );
    else if (format)
      runs.push({
        run: rootRunName(dirname(root), []),
        dir: dirname(root),
        sources: [{ path: root, name, format }],
      });
    return { root, runs, errors, dirs: [] };
  }

  const visited = new Set<string>();
  const dirs: string[] = [];
  /** MLflow metric files by the run folder they belong to. */
  const mlflowMetrics = new Map<string, DiscoveredSource[]>();
  /** MLflow file-store run folders (named by `nameMlflowRuns`). */
  const mlflowRuns = new Set<string>();
  /** Tracker databases found: each of their runs is a run. */
  const databases: { path: string; format: SourceFormatName; prefix: string }[] = [];
  const queue: Pending[] = [];
  const links: Pending[] = [];
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch (e) {
    return { root, runs, errors: [{ kind: 'io', path: '.', message: message(e) }], dirs: [] };
  }
  queue.push({ dir: root, depth: 0, chain: [rootReal] });
  visited.add(rootReal);
  let walked = 0;
  let limited = false;

  const walk = async (item: Pending): Promise<void> => {
    if (++walked > maxDirs) {
      if (!limited)
        errors.push({ kind: 'limit', path: rel(item.dir), message: `stopped after ${maxDirs} folders` });
      limited = true;
      return;
    }
    let entries: Dirent[];
    try {
      entries = await readdir(item.dir, { withFileTypes: true });
    } catch (e) {
      errors.push({ kind: 'io', path: rel(item.dir), message: message(e) });
      return;
    }
    dirs.push(item.dir);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const sources: DiscoveredSource[] = [];
    const inMetrics = basename(item.dir) === 'metrics';
    // An MLflow run (mlruns/EXP/RUN/meta.yaml): its metrics/ files are its sources, params/ and tags/ its
    // meta.yaml reader's. Files anywhere in metrics/ are metrics whatever their name (a key may be `a.csv`).
    const isMlflowRun = item.mlflowRun === undefined && (await isMlflowRunDir(item.dir, entries));
    if (isMlflowRun) mlflowRuns.add(item.dir);
    const classify = (path: string, name: string): Promise<SourceFormatName | null> =>
      item.mlflowRun !== undefined ? Promise.resolve('mlflow') : classifyFile(path, name, inMetrics);
    const childMlflowRun = (name: string): string | undefined =>
      item.mlflowRun ?? (isMlflowRun && name === 'metrics' ? item.dir : undefined);
    const add = (path: string, name: string, format: SourceFormatName): void => {
      if (item.mlflowRun === undefined && isDatabase(name, format)) {
        const r = rel(item.dir);
        return void databases.push({ path, format, prefix: r === '.' ? '' : `${r}/` });
      }
      if (item.mlflowRun === undefined) return void sources.push({ path, name, format });
      const list = mlflowMetrics.get(item.mlflowRun) ?? [];
      list.push({ path, name: relative(item.mlflowRun, path).split(sep).join('/'), format });
      mlflowMetrics.set(item.mlflowRun, list);
    };
    for (const e of entries) {
      const path = join(item.dir, e.name);
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name)) continue;
        if (isMlflowRun && MLFLOW_SIDE_DIRS.has(e.name)) continue;
        if (item.depth + 1 > maxDepth) {
          errors.push({ kind: 'limit', path: rel(path), message: `deeper than ${maxDepth} folders` });
          continue;
        }
        const real = join(item.chain[item.chain.length - 1]!, e.name);
        visited.add(real);
        const under = childMlflowRun(e.name);
        queue.push({
          dir: path,
          depth: item.depth + 1,
          chain: [...item.chain, real],
          ...(under === undefined ? {} : { mlflowRun: under }),
        });
      } else if (e.isSymbolicLink()) {
        let target;
        try {
          target = await stat(path);
        } catch (err) {
          if (errorCode(err) === 'ELOOP')
            errors.push({ kind: 'symlink-loop', path: rel(path), message: message(err) });
          continue; // a dangling link is not an error: nothing is there
        }
        if (target.isDirectory()) {
          const under = childMlflowRun(e.name);
          if (
            !SKIP_DIRS.has(e.name) &&
            !(isMlflowRun && MLFLOW_SIDE_DIRS.has(e.name)) &&
            item.depth + 1 <= maxDepth
          )
            links.push({
              dir: path,
              depth: item.depth + 1,
              chain: item.chain,
              ...(under === undefined ? {} : { mlflowRun: under }),
            });
        } else if (target.isFile()) {
          // A linked file is read only where it lies inside the opened folder or the folder it is listed in (a
          // `metrics.csv` linked to /etc/passwd would show that file's first line as tag names): the one rule for
          // links of readers/side-file.ts. A linked folder out of the tree is followed (runs kept on scratch).
          const realFile = await realpath(path).catch(() => null);
          if (realFile === null) continue;
          if (!isBelow(rootReal, realFile) && !isBelow(item.chain[item.chain.length - 1]!, realFile)) {
            errors.push({
              kind: 'io',
              path: rel(path),
              message: 'a link to a file out of the opened folder: not read',
            });
            continue;
          }
          const format = await classify(path, e.name);
          if (format) add(path, e.name, format);
          else unreadableDatabase(path, e.name, format, rel(path), errors);
        }
      } else if (e.isFile()) {
        const format = await classify(path, e.name);
        if (format) add(path, e.name, format);
        else unreadableDatabase(path, e.name, format, rel(path), errors);
      }
    }
    if (sources.length > 0) runs.push({ run: rel(item.dir), dir: item.dir, sources });
  };

  for (;;) {
    if (queue.length > 0) {
      // Real folders a batch at a time: readdir and sniffing overlap in the threadpool (10k run
      // folders one by one took 7.4 s). Links wait until every real folder is walked.
      await Promise.all(queue.splice(0, WALK_BATCH).map(walk));
      continue;
    }
    const link = links.shift();
    if (!link) break;
    let real: string;
    try {
      real = await realpath(link.dir);
    } catch (e) {
      errors.push({
        kind: errorCode(e) === 'ELOOP' ? 'symlink-loop' : 'io',
        path: rel(link.dir),
        message: message(e),
      });
      continue;
    }
    if (link.chain.some((a) => a === real || a.startsWith(real + sep))) {
      errors.push({
        kind: 'symlink-loop',
        path: rel(link.dir),
        message: `links to its own ancestor ${real}`,
      });
      continue;
    }
    if (visited.has(real)) continue; // another name for a folder already walked
    visited.add(real);
    queue.push({ dir: link.dir, depth: link.depth, chain: [...link.chain, real] });
  }

  for (const r of runs) r.sources.push(...(mlflowMetrics.get(r.dir) ?? []));
  await nameMlflowRuns(runs, mlflowRuns, options.keep);
  adoptSnapshots(runs, root, rel);
  adoptDumps(runs, root, rel);
  for (const db of databases) runs.push(...expandDatabase(db.path, db.format, db.prefix, errors));
  const own = runs.find((r) => r.run === '.');
  if (own)
    own.run = rootRunName(
      root,
      runs.map((r) => r.run),
    );
  runs.sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0));
  // Batches finish in any order: shallow folders first, then by path.
  const depthOf = (p: string): number => p.split(sep).length;
  dirs.sort((a, b) => depthOf(a) - depthOf(b) || byCodeUnits(a, b));
  for (const r of runs) r.sources.sort((a, b) => bySourceName(a.name, b.name));
  return { root, runs, errors, dirs };
}

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
function unreadableDatabase(
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
function expandDatabase(
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
async function nameMlflowRuns(
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
async function isMlflowRunDir(dir: string, entries: readonly Dirent[]): Promise<boolean> {
  const meta = entries.find((e) => e.name === 'meta.yaml' && e.isFile());
  return meta !== undefined && (await classifyFile(join(dir, meta.name), meta.name)) === 'mlflow';
}

/** HF Trainer's checkpoint folders (`PREFIX_CHECKPOINT_DIR`-N; `tmp-` while transformers 4.36–4.37 staged
 * one before renaming it into place). */
const CHECKPOINT_DIR = /^(tmp-)?checkpoint-(\d+)$/;

/** Whether a folder of this name holds HF Trainer checkpoints (and so, next, a run's snapshot). */
export function isCheckpointDir(name: string): boolean {
  return CHECKPOINT_DIR.test(name);
}

/**
 * Checkpoint folders holding nothing recognised but `trainer_state.json` are snapshots of the run in
 * their parent folder (their log_history is a prefix of its), not runs. The parent's run reads the
 * newest one (highest N; a staged `tmp-` one never) unless the parent has a trainer_state.json of its
 * own; a parent with nothing recognised becomes a run reading it, unless a run lies below the parent
 * (HF's TensorBoard callback writes `runs/<date>_<host>/` beside the checkpoints: that run is the
 * trainer's log). Older snapshots are never read. Rewrites `runs` in place.
 */
function adoptSnapshots(runs: DiscoveredRun[], root: string, rel: (p: string) => string): void {
  const newest = new Map<string, { n: number; source: DiscoveredSource }>();
  const snapshotRuns = new Set<DiscoveredRun>();
  for (const r of runs) {
    const m = CHECKPOINT_DIR.exec(basename(r.dir));
    const only = r.sources.length === 1 ? r.sources[0]! : null;
    if (!m || r.dir === root || only?.name !== 'trainer_state.json' || only.format !== 'trainer_state')
      continue;
    snapshotRuns.add(r);
    if (m[1]) continue; // staged: renamed to checkpoint-N once complete
    const parent = dirname(r.dir);
    const n = Number(m[2]);
    const seen = newest.get(parent);
    if (!seen || n > seen.n)
      newest.set(parent, {
        n,
        source: { ...only, name: `${basename(r.dir)}/${only.name}`, snapshot: true },
      });
  }
  if (snapshotRuns.size === 0) return;
  const kept = runs.filter((r) => !snapshotRuns.has(r));
  const byDir = new Map(kept.map((r) => [r.dir, r]));
  const added: DiscoveredRun[] = [];
  for (const [parent, { source }] of newest) {
    const own = byDir.get(parent);
    if (own) {
      if (!own.sources.some((s) => s.format === 'trainer_state')) own.sources.push(source);
    } else if (!kept.some((r) => r.dir.startsWith(parent + sep))) {
      added.push({ run: rel(parent), dir: parent, sources: [source] });
    }
  }
  runs.splice(0, runs.length, ...kept, ...added);
}

/**
 * Per-step sample dumps (verl's `rollouts/{step}.jsonl`, OpenRLHF's or a custom `samples/step_N.jsonl`): a folder
 * below the opened one whose every recognised file is a completions file named by its step (`dumpStep`) is no run
 * of its own but one sample source of the run in its parent folder (a run made there when the parent has none), its
 * files named `FOLDER/N.jsonl` from that folder. Its reader names the source by the folder and takes the step from
 * the file name (completions.ts). Rewrites `runs` in place.
 */
function adoptDumps(runs: DiscoveredRun[], root: string, rel: (p: string) => string): void {
  const dumps = runs.filter(
    (r) => r.dir !== root && r.sources.every((s) => s.format === 'completions' && dumpStep(s.name) !== null),
  );
  if (dumps.length === 0) return;
  const kept = runs.filter((r) => !dumps.includes(r));
  const byDir = new Map(kept.map((r) => [r.dir, r]));
  for (const d of dumps) {
    const parent = dirname(d.dir);
    let own = byDir.get(parent);
    if (!own) byDir.set(parent, (own = { run: rel(parent), dir: parent, sources: [] }));
    if (!kept.includes(own)) kept.push(own);
    own.sources.push(...d.sources.map((s) => ({ ...s, name: `${basename(d.dir)}/${s.name}` })));
  }
  runs.splice(0, runs.length, ...kept);
}

/** A source's sort key: its name, a per-step dump's files by step. */
function sourceOrder(name: string): string {
  const cut = name.lastIndexOf('/');
  const step = dumpStep(name.slice(cut + 1));
  return step === null ? name : `${name.slice(0, cut + 1)}${String(step).padStart(16, '0')}`;
}

/** The order a run's sources are read and joined in (discovery, inspect, the workspace): by name, a per-step
 * dump's files by step (`rollouts/9.jsonl` before `rollouts/10.jsonl`, so its steps never look like a restart). */
export function bySourceName(a: string, b: string): number {
  return byCodeUnits(sourceOrder(a), sourceOrder(b));
}

/**
 * The folders to watch. `runTree`: the opened folder, the runs' folders (their files grow; an MLflow run's
 * metrics/ tree too; a per-step dump folder), the
 * checkpoint folders beside a run that reads snapshots (its next snapshot appears in one) and the
 * folders between (new runs appear beside old ones). `others`: the rest walked, where a new run may
 * appear too but seldom does (a link out to /usr is thousands of them). Each folder once.
 */
export function foldersToWatch(
  root: string,
  d: Pick<Discovery, 'runs'> & { dirs?: string[] },
): { runTree: string[]; others: string[] } {
  const tree = new Set([root]);
  const snapshotReaders = new Set<string>();
  const mlflowRuns = new Set<string>();
  for (const r of d.runs) {
    for (let dir = r.dir; dir.startsWith(root + sep) && !tree.has(dir); dir = dirname(dir)) tree.add(dir);
    if (r.sources.some((s) => s.snapshot)) snapshotReaders.add(r.dir);
    // A per-step dump folder of the run (adoptDumps): its next step's file appears there.
    for (const s of r.sources)
      if (s.format === 'completions' && dirname(s.path) !== r.dir && dirname(s.path).startsWith(root + sep))
        tree.add(dirname(s.path));
    if (r.sources.some((s) => s.format === 'mlflow')) mlflowRuns.add(r.dir);
  }
  const dirs = d.dirs ?? [];
  for (const dir of dirs) {
    if (snapshotReaders.has(dirname(dir)) && isCheckpointDir(basename(dir))) tree.add(dir);
    // An MLflow run's metrics/ and every folder in it (nested keys): where its metric files appear and grow.
    for (let p = dir; p.startsWith(root + sep); p = dirname(p))
      if (basename(p) === 'metrics' && mlflowRuns.has(dirname(p))) {
        tree.add(dir);
        break;
      }
  }
  return { runTree: [...tree], others: dirs.filter((dir) => !tree.has(dir)) };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
