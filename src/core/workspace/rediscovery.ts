// Rediscovery: a walk of the folder merged into the workspace's runs (new runs and sources, moved snapshots, aliases), new runs read by name.

import { MAX_SWEEP_SCAN } from '../../shared/compare/sweep';
import { foldersToWatch } from '../discovery';
import { yieldToLoop } from '../readers/reader';
import { readRunConfig } from '../readers/run-config';
import { mapBounded } from './bounded-map';
import { fileInfo, fileInfoSync, type FileInfo } from './file-info';
import type { LoadProgressTracker } from './load-progress';
import type { Discover, Discovery, SourceFactory } from './ports';
import { message, type RunLoader } from './run-loader';
import { byRunName, newRunState, sourceKey, type LiveEntry, type RunState } from './run-state';

/** New runs' config.json and (off a local disk) new files' stat calls in flight at once while (re)discovering. */
const SETUP_CONCURRENCY = 32;

/** On opening, the runs found are listed once the first run is read, or after this long (ms) if its read is slow (a
 * page's requests answered meanwhile delay a small read too: 250 ms ran out on a busy 2-core machine). */
const FIRST_RUN_WAIT_MS = 1000;

/** What rediscovery works on: the workspace's state and its outlets. */
export interface RediscoveryHost {
  /** The opened folder (null once closed). */
  root(): string | null;
  /** Whether the opened folder is on a local disk (read with synchronous calls where that is cheaper). */
  localDisk(): boolean;
  /** Bumped by open/close: a walk of an older folder stops when it sees a newer epoch. */
  epoch(): number;
  readonly runs: Map<string, RunState>;
  /** Paths found to be other names of a rotated-away file whose data a dead source already holds. */
  readonly aliasPaths: Set<string>;
  readonly loader: RunLoader;
  readonly progress: LoadProgressTracker;
  readonly discover: Discover;
  readonly createSource: SourceFactory;
  watchFolders(runTree: string[], others: string[]): void;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  emit(event: 'run.reading' | 'run.read', run: string): void;
  runsChanged(now?: boolean): void;
  /** The load is done (the memory guard says what it thinned and has not said). */
  loadDone(): void;
}

/** On opening, this many runs found (that the rest of the walk cannot change: `EarlyRuns`) are set up, listed and read
 * while the walk goes on: a first screen's rows and its first run need not wait for a walk of 10k folders (#36). More
 * than a page scans for a sweep (MAX_SWEEP_SCAN): a folder's early list is never overlaid as a sweep that its whole
 * list is not (a 10k folder's first 128 runs were, and the first chart followed each new member as it was read). */
export const EARLY_RUNS = MAX_SWEEP_SCAN + 1;

/** What a walk added to the host's runs. */
interface Merged {
  newRuns: RunState[];
  newEntries: { run: RunState; entry: LiveEntry }[];
  moved: { run: RunState; entry: LiveEntry }[];
}

/** One walk of the opened folder merged into the host's runs; new sources of loaded runs read now, new runs one
 * after the other by name (`onFirstRun` once the first is read). On opening (`onFirstRun` given), the first
 * EARLY_RUNS runs the walk finds are merged, listed and read before it ends, the walk going on once `restAfter`
 * resolves (OpenOptions.restAfter). Stops when the host's epoch moves on. */
export async function rediscoverOnce(
  host: RediscoveryHost,
  onFirstRun?: () => void,
  restAfter?: () => Promise<void>,
): Promise<void> {
  const root = host.root();
  const epoch = host.epoch();
  if (!root) return;
  host.progress.setPhase('discovering');
  const opening = onFirstRun !== undefined;
  /** No run is read yet on opening: the next one read is announced at once. */
  let firstRead = opening;
  /** On opening, the list of runs found waits for the first run's read, at most FIRST_RUN_WAIT_MS: the page's first
   * charts wait on a list that says it is read, and a list of 10k runs costs ~0.5 s to build, send and show (#36). */
  let listWait: NodeJS.Timeout | null = null;
  let waited = false;
  const announce = (m: Merged): void => {
    if (m.newRuns.length === 0 && m.newEntries.length === 0 && m.moved.length === 0) return;
    if (listWait !== null) return; // the list waiting for the first read will hold these too
    if (firstRead && !waited && m.newRuns.length > 0) {
      waited = true;
      listWait = setTimeout(() => {
        listWait = null;
        if (epoch === host.epoch()) host.runsChanged(true);
      }, FIRST_RUN_WAIT_MS);
      listWait.unref();
    } else host.runsChanged(true);
  };
  /** New runs read one after the other, by name; false once the host's epoch moved on. */
  const readRuns = async (runs: RunState[]): Promise<boolean> => {
    runs.sort(byRunName);
    for (const run of runs) {
      host.emit('run.reading', run.run);
      await host.loader.enqueue(run, () => host.loader.loadRun(run));
      if (listWait) clearTimeout(listWait);
      listWait = null;
      if (epoch !== host.epoch()) return false;
      run.loaded = true;
      run.revision++;
      host.emit('run.read', run.run);
      // Appends that arrived while the run was being read: read them now rather than at the next sweep.
      for (const e of run.entries) void host.loader.requestRead(run, e);
      host.progress.runLoaded();
      // The first run read on opening is announced at once: the page waits on it for its first charts (after
      // listing 10k runs, the throttle's gap alone would be seconds).
      host.runsChanged(firstRead);
      firstRead = false;
      host.progress.report();
      onFirstRun?.();
    }
    return true;
  };
  let reading: Promise<boolean> = Promise.resolve(true);
  const readInTurn = (runs: RunState[]): void => {
    reading = reading.then((going) => going && readRuns(runs));
  };

  // The early runs are merged (their configs and stats fetched: awaits) while the walk goes on, and the first of them
  // read; the others are read with the walk's new runs (416 reads, each listed and judged, took the cores the page's
  // first screen needed). The walk's answer is merged after them.
  let early: Promise<void> = Promise.resolve();
  let earlyUnread: RunState[] = [];
  const earlyRuns = opening
    ? {
        count: EARLY_RUNS,
        found: (runs: Discovery['runs']): Promise<void> => {
          early = mergeFound(host, runs, epoch, false).then((m) => {
            if (!m) return;
            announce(m);
            m.newRuns.sort(byRunName);
            readInTurn(m.newRuns.slice(0, 1));
            earlyUnread = m.newRuns.slice(1);
          });
          return restAfter ? early.then(restAfter) : Promise.resolve();
        },
      }
    : undefined;
  let found: Discovery;
  try {
    // An MLflow file-store run keeps the key it was first given while the folder stays open (renamed since).
    const keep = new Map<string, string>();
    for (const r of host.runs.values())
      if (r.entries.some((e) => e.format === 'mlflow' && e.member === undefined)) keep.set(r.dir, r.run);
    found = await host.discover(root, keep, host.localDisk(), earlyRuns);
  } catch (e) {
    host.notice('error', `cannot list ${root}: ${message(e)}`);
    found = { runs: [], errors: [] };
  }
  await early;
  if (epoch !== host.epoch()) return;
  for (const e of found.errors) host.notice('warning', discoveryMessage(e));
  const folders = foldersToWatch(root, found);
  host.watchFolders(folders.runTree, folders.others);
  const merged = await mergeFound(host, found.runs, epoch, true);
  if (!merged) return;
  announce(merged);
  host.progress.setPhase('reading');

  // New sources of runs already loaded are read now; new runs one after the other, by name.
  const reads = merged.newEntries
    .filter(({ run }) => run.loaded)
    .map(({ run, entry }) =>
      host.loader.requestRead(run, entry).then(() => host.progress.sourceRead(entry.size)),
    )
    .concat(merged.moved.map(({ run, entry }) => host.loader.requestRead(run, entry)));
  readInTurn([...earlyUnread, ...merged.newRuns]);
  if (!(await reading)) return;
  await Promise.all(reads);
  // Views the memory cap thinned meanwhile are fed again before the load counts as done.
  await host.loader.resynced();
  if (epoch !== host.epoch()) return;
  host.loadDone();
  host.progress.setPhase('done');
}

/**
 * Runs found merged into the host's runs: new runs and sources made (not read), moved snapshots. `whole`: `found` is
 * the walk's whole answer (a snapshot it no longer lists dies if its file is gone); else the walk's early runs.
 * Null when the host's epoch moved on meanwhile.
 */
async function mergeFound(
  host: RediscoveryHost,
  found: Discovery['runs'],
  epoch: number,
  whole: boolean,
): Promise<Merged | null> {
  // What a new run or source needs from the disk (config.json, each file's identity and size) is
  // fetched for all of them at once (SETUP_CONCURRENCY at a time; stats on a local disk by sourceInfos): 10k runs one by one took seconds
  // before the list could show. The pass below then runs without awaiting, so it sees one state.
  const unknown = (s: { path: string; member?: string }): boolean =>
    !host.loader.find(sourceKey(s)) && !host.aliasPaths.has(s.path);
  // A database's run has no folder of its own: a config.json beside the database is not its.
  const ownFolder = (d: Discovery['runs'][number]): boolean => d.sources.every((s) => s.member === undefined);
  const configs = await mapBounded(found, SETUP_CONCURRENCY, (d) =>
    host.runs.has(d.run) || !ownFolder(d)
      ? Promise.resolve(null)
      : readRunConfig(d.dir, (m) => host.notice('warning', `${d.dir}: ${m}`), d.configNames),
  );
  const infos = await sourceInfos(found, unknown, host.localDisk());
  if (epoch !== host.epoch()) return null;

  const newRuns: RunState[] = [];
  const newEntries: { run: RunState; entry: LiveEntry }[] = [];
  const moved: { run: RunState; entry: LiveEntry }[] = [];
  const snapshotPaths = new Set<string>();
  found.forEach((d, i) => {
    const config = configs[i]!;
    let state = host.runs.get(d.run);
    if (!state) {
      state = newRunState(d.run, d.dir, config);
      host.runs.set(d.run, state);
      newRuns.push(state);
    }
    d.sources.forEach((s, k) => {
      if (s.snapshot) snapshotPaths.add(s.path);
      if (!unknown(s)) return;
      const movedEntry = s.snapshot ? host.loader.moveSnapshot(state, s.path, s.name) : null;
      if (movedEntry) return void moved.push({ run: state, entry: movedEntry });
      const info = infos[i]![k] ?? null;
      if (
        info &&
        s.member === undefined &&
        state.entries.some((e) => e.identity === info.identity && e.mtimeMs === info.mtimeMs)
      ) {
        // A rotated-away file renamed to another recognised name: its data is already shown. Its entry may still
        // be live: a walk that comes before the rotation is seen (the old path's next read marks it dead) finds
        // the same file, unchanged since it was read, under its new name.
        host.aliasPaths.add(s.path);
        return;
      }
      const live = host.createSource(s.path, s.format, {
        pause: () => host.loader.pause(),
        ...(s.member === undefined ? {} : { member: s.member }),
      });
      const entry: LiveEntry = {
        state: 'live',
        path: s.path,
        ...(s.member === undefined ? {} : { member: s.member }),
        name: s.name,
        format: s.format,
        gen: ++state.gens,
        live,
        set: live.series,
        identity: null,
        size: info?.size ?? 0,
        mtimeMs: null,
        queued: null,
        head: null,
        unlinkSeen: false,
        snapshot: s.snapshot === true,
      };
      host.loader.add(state, entry);
      newEntries.push({ run: state, entry });
      host.progress.sourceFound(entry.size);
    });
  });
  // A snapshot discovery no longer lists (its checkpoints deleted, or the run now has its own log)
  // stays while its file does, and dies when it is gone.
  if (whole)
    for (const { run, entry } of host.loader.snapshots())
      if (!snapshotPaths.has(entry.path)) void host.loader.dieIfGone(run, entry);
  host.progress.runsFound(host.runs.size);
  return { newRuns, newEntries, moved };
}

/** Runs whose sources are stat'ed between yields to the event loop, on a local disk. */
const STAT_SLICE = 256;

/**
 * Each run's sources' identity and size (null for a source already known, or gone). On a local disk with synchronous
 * calls, STAT_SLICE runs between yields to the event loop (10k stats through the threadpool took a second at load, #36);
 * else SETUP_CONCURRENCY runs at a time.
 */
async function sourceInfos(
  runs: Discovery['runs'],
  unknown: (s: { path: string; member?: string }) => boolean,
  localDisk: boolean,
): Promise<(FileInfo | null)[][]> {
  if (!localDisk)
    return mapBounded(runs, SETUP_CONCURRENCY, (d) =>
      Promise.all(d.sources.map((s) => (unknown(s) ? fileInfo(s.path) : null))),
    );
  const out: (FileInfo | null)[][] = [];
  for (let i = 0; i < runs.length; i++) {
    if (i > 0 && i % STAT_SLICE === 0) await yieldToLoop();
    out.push(runs[i]!.sources.map((s) => (unknown(s) ? fileInfoSync(s.path) : null)));
  }
  return out;
}

function discoveryMessage(e: Discovery['errors'][number]): string {
  const where = e.path === '.' ? 'the opened folder' : e.path;
  if (e.kind === 'symlink-loop') return `skipped ${where}: symbolic link loop (${e.message})`;
  if (e.kind === 'limit') return `stopped walking at ${where}: ${e.message}`;
  if (e.kind === 'database') return `cannot read database ${where}: ${e.message}`;
  return `cannot read folder ${where}: ${e.message}`;
}
