// Finds the runs under a folder: every folder directly holding a recognised metrics file is a run
// (HF checkpoint folders excepted: a snapshot of the run beside them; an MLflow run holds its metrics/ tree),
// and every run of a tracker database (trackio, mlflow.db) is one.
//
// This file walks the folder; what it finds is discovery/discovered.ts's shapes, the runs a tracker names
// discovery/tracker-runs.ts's, the folders a run adopts (snapshots, sample dumps) discovery/adopted.ts's.

import { readdirSync, type Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { SourceFormatName } from '../shared/formats';
import { errorCode } from './readers/file-io';
import { yieldToLoop } from './readers/reader';
import { RUN_CONFIG_ENTRIES } from './readers/run-config';
import { isBelow } from './readers/side-file';
import { classifyFile } from './sources/sniff';
import { dumpStep } from './samples/completions';
import { byCodeUnits } from '../shared/order';
import { adoptDumps, adoptSnapshots, isCheckpointDir, isDumpFolder } from './discovery/adopted';
import {
  WALK_BATCH,
  type DiscoveredRun,
  type DiscoveredSource,
  type Discovery,
  type DiscoveryError,
} from './discovery/discovered';
import {
  expandDatabase,
  isDatabase,
  isMlflowRunDir,
  nameMlflowRuns,
  unreadableDatabase,
} from './discovery/tracker-runs';

export type {
  DiscoveredRun,
  DiscoveredSource,
  Discovery,
  DiscoveryError,
  DiscoveryErrorKind,
} from './discovery/discovered';
export { isDatabase } from './discovery/tracker-runs';
export { isCheckpointDir } from './discovery/adopted';

export interface DiscoverOptions {
  maxDepth?: number;
  maxDirs?: number;
  /** Keys already given to runs, by run folder: an MLflow run found there keeps its key (renamed since, or a
   * name now taken by another), so a run's key changes only when the folder is opened again. */
  keep?: ReadonlyMap<string, string>;
  /** The folder is on a local disk: folders are listed and files' heads read with synchronous calls, WALK_BATCH
   * folders between yields to the event loop (10k run folders through the threadpool took seconds, #36). */
  localDisk?: boolean;
  /** Runs handed out while the walk goes on (a first screen's runs before 10k folders are walked, #36). */
  early?: EarlyRuns;
}

/**
 * Once the walk has found `count` runs that the rest of it cannot change, `found` is called with them (once, sorted
 * by name, each as the walk's answer will hold it), and the walk goes on when what it answers resolves. Such a run
 * is a folder below the opened one with no folder in it (a checkpoint's snapshot or a sample dump folder would be
 * adopted by it), no MLflow run or part of one (renamed, given its metrics/ tree), no checkpoint folder and no sample
 * dump folder (adopted by their parent). A walk that ends before finding `count` hands out nothing early. */
export interface EarlyRuns {
  count: number;
  found(runs: DiscoveredRun[]): void | Promise<void>;
}

/** Folders that hold code or caches, never runs; skipping them keeps big checkouts cheap. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);

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
  const sync = options.localDisk === true;
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
  /** The run config names (RUN_CONFIG_ENTRIES) in each folder walked: its run's config needs no second listing. */
  const configNames = new Map<string, string[]>();
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
  /** Runs the rest of the walk cannot change (EarlyRuns), until handed out. */
  let settled: DiscoveredRun[] | null = options.early ? [] : null;

  const walk = async (item: Pending): Promise<void> => {
    if (++walked > maxDirs) {
      if (!limited)
        errors.push({ kind: 'limit', path: rel(item.dir), message: `stopped after ${maxDirs} folders` });
      limited = true;
      return;
    }
    let entries: Dirent[];
    try {
      entries = sync
        ? readdirSync(item.dir, { withFileTypes: true })
        : await readdir(item.dir, { withFileTypes: true });
    } catch (e) {
      errors.push({ kind: 'io', path: rel(item.dir), message: message(e) });
      return;
    }
    dirs.push(item.dir);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    configNames.set(
      item.dir,
      entries.filter((e) => RUN_CONFIG_ENTRIES.has(e.name)).map((e) => e.name),
    );
    const sources: DiscoveredSource[] = [];
    /** A folder is in this one (walked later: what it holds may be adopted by this folder's run). */
    let holdsFolder = false;
    const inMetrics = basename(item.dir) === 'metrics';
    // An MLflow run (mlruns/EXP/RUN/meta.yaml): its metrics/ files are its sources, params/ and tags/ its
    // meta.yaml reader's. Files anywhere in metrics/ are metrics whatever their name (a key may be `a.csv`).
    const isMlflowRun = item.mlflowRun === undefined && (await isMlflowRunDir(item.dir, entries));
    if (isMlflowRun) mlflowRuns.add(item.dir);
    const classify = (path: string, name: string): Promise<SourceFormatName | null> =>
      item.mlflowRun !== undefined ? Promise.resolve('mlflow') : classifyFile(path, name, inMetrics, sync);
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
        holdsFolder = true;
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
          holdsFolder = true;
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
    if (sources.length === 0) return;
    const run: DiscoveredRun = { run: rel(item.dir), dir: item.dir, sources };
    runs.push(run);
    if (
      settled !== null &&
      !holdsFolder &&
      item.dir !== root &&
      item.mlflowRun === undefined &&
      !isMlflowRun &&
      !isCheckpointDir(basename(item.dir)) &&
      !isDumpFolder(sources)
    )
      settled.push({
        ...run,
        sources: [...sources].sort((a, b) => bySourceName(a.name, b.name)),
        configNames: configNames.get(item.dir)!,
      });
  };

  for (;;) {
    if (queue.length > 0) {
      // Real folders a batch at a time: readdir and sniffing overlap in the threadpool (10k run
      // folders one by one took 7.4 s). Links wait until every real folder is walked.
      await Promise.all(queue.splice(0, WALK_BATCH).map(walk));
      if (settled !== null && settled.length >= options.early!.count) {
        const early = settled.sort((a, b) => byCodeUnits(a.run, b.run));
        settled = null;
        await options.early!.found(early);
      }
      if (sync) await yieldToLoop();
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
  for (const r of runs) {
    const names = configNames.get(r.dir);
    if (names) r.configNames = names;
  }
  // Batches finish in any order: shallow folders first, then by path (each folder's depth counted once: counted in
  // the comparison, 10k folders' sort took 0.3 s, #36).
  const depths = new Map(dirs.map((p) => [p, p.split(sep).length]));
  dirs.sort((a, b) => depths.get(a)! - depths.get(b)! || byCodeUnits(a, b));
  for (const r of runs) r.sources.sort((a, b) => bySourceName(a.name, b.name));
  return { root, runs, errors, dirs };
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
