// One opened folder: its runs, their live sources and live views; deltas pushed as files grow. Hosted by Electron main and `serve`.
//
// This class opens, closes and follows the folder (watcher, sweep, rediscovery); reading is the
// RunLoader's (run-loader.ts), load progress the LoadProgressTracker's, RunInfo is run-info.ts's.

import { EventEmitter } from 'node:events';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PushPayloads } from '../../shared/contract';
import type { RunInfo, SeriesWindow } from '../../shared/domain';
import type { TextSource } from '../../shared/text-items';
import type { SampleSource } from '../../shared/samples';
import { textSamples } from '../samples/text-samples';
import type { SourceFormatName } from '../../shared/formats';
import type { HistogramSource } from '../../shared/histogram-items';
import { foldersToWatch } from '../discovery';
import { effectiveConfig, readRunConfig } from '../readers/run-config';
import { databaseRuns } from '../sources/registry';
import type { ProgressInfo } from '../readers/types';
import type { WindowQuery } from '../series/live-view';
import { factSource, runFacts, type FactSource, type RunFacts } from '../series/run-facts';
import type { SeriesSet } from '../series/series-set';
import { mapBounded } from './bounded-map';
import { FolderWatcher } from './folder-watcher';
import { LoadProgressTracker, THROTTLE_MS } from './load-progress';
import { detectNetworkFilesystem, pollingSuggestion } from './mount-info';
import type { Discover, Discovery, SourceFactory } from './ports';
import { fileInfo, message, RunLoader } from './run-loader';
import { runInfo } from './run-info';
import {
  byRunName,
  databaseOf,
  newRunState,
  sourceConfig,
  sourceKey,
  sourceProgress,
  type LiveEntry,
  type RunState,
} from './run-state';

export interface WorkspaceOptions {
  discover: Discover;
  createSource: SourceFactory;
  /** Follow the folder live (default true); off for one-shot use. */
  watch?: boolean;
  /** Poll instead of inotify (network filesystems). */
  usePolling?: boolean;
  /** How often every source is re-read in case a file event was missed (ms, default 1000). */
  sweepMs?: number;
  /** Most folders watched (default: the watcher's budget). */
  maxWatchedFolders?: number;
  /** /proc/self/mountinfo reader (tests); the network-filesystem check uses it. */
  readMountInfo?: () => Promise<string>;
}

export interface OpenOptions {
  /** Resolve once every run is read (default), or once the first run (by name) is. */
  until?: 'loaded' | 'first-run';
}

/** New runs' config.json and new files' stat calls in flight at once while (re)discovering. */
const SETUP_CONCURRENCY = 32;

/** A database's writes (new rows, maybe new runs) rediscover the folder at most this often. */
const DATABASE_REDISCOVER_MS = 2000;

/** Sources the sweep re-reads per tick at most (each source every ⌈sources / this⌉ ticks). */
const SWEEP_MAX_SOURCES = 500;
/** The most of the time throttled runs.changed (listing runs and what listeners do) may take. */
const RUNS_CHANGED_SHARE = 0.1;

/** The contract's push events, and the workspace's own: a run's first read starting and done (its name), so the
 * alert pipeline can judge that read's points in the order they were written (alerts/load-order.ts). */
export interface WorkspaceEvents extends PushPayloads {
  'run.reading': string;
  'run.read': string;
}

type Listener<E extends keyof WorkspaceEvents> = (payload: WorkspaceEvents[E]) => void;

export class Workspace {
  private readonly emitter = new EventEmitter();
  private readonly runs = new Map<string, RunState>();
  /** Each run's table facts and the live sources' series sets and sizes they were counted from. */
  private readonly factsKept = new WeakMap<
    RunState,
    { sets: readonly SeriesSet[]; counts: readonly number[]; facts: RunFacts }
  >();
  /** Paths found to be other names of a rotated-away file whose data a dead source already holds. */
  private readonly aliasPaths = new Set<string>();
  private watcher: FolderWatcher | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private _root: string | null = null;
  /** Bumped by open/close: async work of an older folder stops when it sees a newer epoch. */
  private epoch = 0;
  private rediscovering: Promise<void> | null = null;
  private rediscoverAgain = false;
  private loading: Promise<void> = Promise.resolve();
  private readonly noticed = new Set<string>();
  private watch: { polling: boolean; suggestion: string | null } = { polling: false, suggestion: null };
  /** The folder is on a local filesystem, watched with fs.watch: a reported append is read at once. */
  private localDisk = false;
  private readonly progress = new LoadProgressTracker((p) => this.emit('load.progress', p));
  private readonly loader: RunLoader;
  private runsTimer: NodeJS.Timeout | null = null;
  /** Ends the wait for the watcher's first scan (a folder closed before it finished). */
  private stopWaiting: (() => void) | null = null;
  private lastRunsAt = 0;
  /** When a database's write last asked for a rediscovery (its new runs), and the one waiting. */
  private databaseWalkAt = 0;
  private databaseWalkTimer: NodeJS.Timeout | null = null;
  /** The databases written since the last check, with the format their runs are read as (null: none yet). */
  private readonly databasesWritten = new Map<string, SourceFormatName | null>();
  /** The least time between two throttled runs.changed (grows with their cost). */
  private runsGapMs = THROTTLE_MS;

  constructor(private readonly opts: WorkspaceOptions) {
    this.emitter.setMaxListeners(100);
    this.loader = new RunLoader(
      {
        epoch: () => this.epoch,
        isCurrent: (run) => this.runs.get(run.run) === run,
        emit: (event, payload) => this.emitter.emit(event, payload),
        notice: (level, text) => this.notice(level, text),
        runsChanged: (now) => this.runsChanged(now),
        rediscover: () => void this.rediscover(),
      },
      this.progress,
    );
  }

  get root(): string | null {
    return this._root;
  }

  on<E extends keyof WorkspaceEvents>(event: E, listener: Listener<E>): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  private emit<E extends keyof WorkspaceEvents>(event: E, payload: WorkspaceEvents[E]): void {
    this.emitter.emit(event, payload);
  }

  /**
   * Opens `folder` (closing any previous one), then loads it progressively: runs are listed as soon
   * as they are found (`loaded: false`), then read one at a time in name order, with `load.progress`
   * events meanwhile; long reads are cut into slices so the event loop never waits long. Resolves
   * when everything is read (or with `until: 'first-run'` when the first run is); `whenLoaded()`
   * tells the rest. Then follows the folder.
   */
  async open(folder: string, options: OpenOptions = {}): Promise<void> {
    const root = resolve(folder);
    const st = await stat(root);
    if (!st.isDirectory()) throw new Error(`${root} is not a folder`);
    await this.close();
    const epoch = ++this.epoch;
    this._root = root;
    const polling = this.opts.usePolling ?? false;
    this.watch = { polling, suggestion: null };
    const fs = await detectNetworkFilesystem(root, this.opts.readMountInfo);
    if (epoch !== this.epoch) return;
    this.localDisk = !polling && fs === null;
    if (fs && !polling) {
      this.watch.suggestion = pollingSuggestion(fs.label);
      this.notice('info', this.watch.suggestion);
    }
    let watching: Promise<void> = Promise.resolve();
    if (this.opts.watch !== false) {
      this.watcher = new FolderWatcher(root, {
        usePolling: polling,
        ...(this.opts.maxWatchedFolders === undefined ? {} : { maxFolders: this.opts.maxWatchedFolders }),
        onBudgetHit: (watched, skipped) =>
          this.notice(
            'warning',
            `watching ${watched} folders, the most allowed: ${skipped} more are not followed live (new runs there show on reopening)`,
          ),
        onStructureChange: () => void this.rediscover(),
        onFileChange: (path) => this.fileChanged(path),
        onFileWritten: (path) => this.fileWritten(path),
        onFileRemoved: (path) => this.loader.removeIfGone(path),
        onError: (message) => this.notice('warning', message),
      });
      // The watcher's first scan of the folder (a stat per entry: ~1.5 s for 10k run folders) runs beside
      // discovery rather than before it: chokidar watches the folder before it scans, so a folder made
      // meanwhile is still reported. The load counts as done once both are.
      const closed = new Promise<void>((res) => (this.stopWaiting = res));
      watching = Promise.race([this.watcher.ready(), closed]).then(() => {
        if (epoch !== this.epoch) return;
        // File events can be missed (appends racing chokidar's attach to a new file, or network
        // filesystems): a cheap periodic re-read of every source catches up; reads cost O(new bytes).
        // At most SWEEP_MAX_SOURCES a sweep, round-robin: with more sources each is re-read less often.
        this.sweepTimer = setInterval(
          () => this.loader.sweep(SWEEP_MAX_SOURCES, { syncTail: this.localDisk }),
          this.opts.sweepMs ?? 1000,
        );
        this.sweepTimer.unref();
      });
    }
    let firstRun!: () => void;
    const first = new Promise<void>((res) => (firstRun = res));
    this.loading = Promise.all([this.rediscover(firstRun), watching])
      .then(() => undefined)
      .finally(firstRun);
    await (options.until === 'first-run' ? first : this.loading);
  }

  /** Resolves when the folder's initial load (and any rediscovery under way) is done. */
  whenLoaded(): Promise<void> {
    return this.loading;
  }

  /** Whether the folder is polled, and a suggestion to poll when it is on a network filesystem. */
  watchInfo(): { polling: boolean; suggestion: string | null } {
    return { ...this.watch };
  }

  async close(): Promise<void> {
    this.epoch++;
    this.stopWaiting?.();
    this.stopWaiting = null;
    this.rediscovering = null;
    this.rediscoverAgain = false;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    if (this.runsTimer) clearTimeout(this.runsTimer);
    this.runsTimer = null;
    if (this.databaseWalkTimer) clearTimeout(this.databaseWalkTimer);
    this.databaseWalkTimer = null;
    this.databasesWritten.clear();
    await this.watcher?.close();
    this.watcher = null;
    this.loader.closeAll();
    this.aliasPaths.clear();
    this.runs.clear();
    this.noticed.clear();
    this._root = null;
    this.progress.reset();
  }

  /** Whether the folder holds `run` (a lookup: listRuns builds every run's info). */
  hasRun(run: string): boolean {
    return this.runs.has(run);
  }

  listRuns(): RunInfo[] {
    return [...this.runs.values()].sort(byRunName).map(runInfo);
  }

  /** Each run's absolute folder (the system sampler looks for the process training it). */
  runDirs(): { run: string; dir: string }[] {
    return [...this.runs.values()].sort(byRunName).map((r) => ({ run: r.run, dir: r.dir }));
  }

  /** ms: the newest write time of the run's files as last stat'ed; null for an unknown run or before any. */
  writtenAt(run: string): number | null {
    return this.runs.get(run)?.fileWrittenAt ?? null;
  }

  /** The run's effective config: its own config.json over what its sources carry (W&B config); null
   * when it has none (also for an unknown run). */
  configOf(run: string): Record<string, unknown> | null {
    const state = this.runs.get(run);
    return state ? effectiveConfig(state.config, state.entries.map(sourceConfig)) : null;
  }

  /** The run's points and sessions over the files that exist now (a deleted file's data, still charted, is not
   * counted): what `inspect --table` reads of the same folder; null for an unknown run. Kept per run until one of
   * its live sources changes or grows: a table asked again for 1000 runs that did not move walks no series. */
  tableFacts(run: string): RunFacts | null {
    const state = this.runs.get(run);
    if (!state) return null;
    const live = state.entries.filter((e) => e.state === 'live');
    const sets = live.map((e) => e.set);
    const counts = sets.map((set) => set.pointCount());
    const kept = this.factsKept.get(state);
    if (
      kept &&
      kept.sets.length === sets.length &&
      kept.sets.every((set, i) => set === sets[i] && kept.counts[i] === counts[i])
    )
      return kept.facts;
    const tags = new Map<string, FactSource[]>();
    for (const e of live)
      for (const [tag, series] of e.set.entries()) {
        let list = tags.get(tag);
        if (!list) tags.set(tag, (list = []));
        list.push(factSource(e.name, e.format, series));
      }
    const facts = runFacts(tags);
    this.factsKept.set(state, { sets, counts, facts });
    return facts;
  }

  /** The text samples of a run's live sources (TensorBoard `text` summaries), in file order; [] for an unknown run. */
  textsOf(run: string): TextSource[] {
    const out: TextSource[] = [];
    for (const e of this.runs.get(run)?.entries ?? [])
      if (e.state === 'live' && e.live.texts) out.push(e.live.texts);
    return out;
  }

  /** The sample tables of a run's live sources (completions JSONL, W&B tables, TensorBoard text as samples); [] for an unknown run. */
  samplesOf(run: string): SampleSource[] {
    const out: SampleSource[] = [];
    for (const e of this.runs.get(run)?.entries ?? []) {
      if (e.state !== 'live') continue;
      if (e.live.samples) out.push(e.live.samples);
      if (e.live.texts && e.live.texts.count > 0) out.push(textSamples(e.live.texts));
    }
    return out;
  }

  /** The histograms of a run's live sources (TensorBoard, W&B), in file order; [] for an unknown run. */
  histogramsOf(run: string): HistogramSource[] {
    const out: HistogramSource[] = [];
    for (const e of this.runs.get(run)?.entries ?? [])
      if (e.state === 'live' && e.live.histogramSteps) out.push(e.live.histogramSteps);
    return out;
  }

  /** The newest progress a run's sources report (training_progress.json, trainer_state.json), with raw fields. */
  progressOf(run: string): ProgressInfo | null {
    let found: ProgressInfo | null = null;
    for (const e of this.runs.get(run)?.entries ?? []) found = sourceProgress(e) ?? found;
    return found;
  }

  /** The live view of `tag` in `run` over an x-range, downsampled for `pixels` (or one session's own points
   * with `session`); null for an unknown run/tag/session. */
  getWindow(run: string, tag: string, q: WindowQuery & { session?: number }): SeriesWindow | null {
    const view = this.runs.get(run)?.views.get(tag);
    if (!view) return null;
    if (q.session === undefined) return { run, tag, ...view.window(q) };
    const w = view.sessionWindow(q.session, q);
    return w ? { run, tag, ...w } : null;
  }

  /** Folders the watcher follows (0 when not watching): bounded whatever links the folder holds. */
  watchedFolderCount(): number {
    return this.watcher?.watchedCount() ?? 0;
  }

  /** Points stored in memory (every source series, dropped restart points included) and the bytes
   * their columns hold (capacity, not just length): for memory checks. */
  storedStats(): { points: number; bytes: number } {
    let points = 0;
    let bytes = 0;
    for (const run of this.runs.values())
      for (const e of run.entries)
        for (const [, s] of e.set.entries()) {
          points += s.length;
          bytes += s.byteSize;
        }
    return { points, bytes };
  }

  // ---- discovery ----

  /** Re-walks the folder; serialised so bursts of new folders cost one walk at a time. */
  private rediscover(onFirstRun?: () => void): Promise<void> {
    if (this.rediscovering) {
      this.rediscoverAgain = true;
      return this.rediscovering;
    }
    const epoch = this.epoch;
    const job: Promise<void> = (async () => {
      do {
        this.rediscoverAgain = false;
        await this.rediscoverOnce(onFirstRun);
      } while (this.rediscoverAgain && epoch === this.epoch);
    })().finally(() => {
      if (this.rediscovering === job) this.rediscovering = null;
    });
    this.rediscovering = job;
    return job;
  }

  private async rediscoverOnce(onFirstRun?: () => void): Promise<void> {
    const root = this._root;
    const epoch = this.epoch;
    if (!root) return;
    this.progress.setPhase('discovering');
    let found: Discovery;
    try {
      // An MLflow file-store run keeps the key it was first given while the folder stays open (renamed since).
      const keep = new Map<string, string>();
      for (const r of this.runs.values())
        if (r.entries.some((e) => e.format === 'mlflow' && e.member === undefined)) keep.set(r.dir, r.run);
      found = await this.opts.discover(root, keep);
    } catch (e) {
      this.notice('error', `cannot list ${root}: ${message(e)}`);
      found = { runs: [], errors: [] };
    }
    if (epoch !== this.epoch) return;
    for (const e of found.errors) this.notice('warning', discoveryMessage(e));
    const folders = foldersToWatch(root, found);
    this.watcher?.watchFolders(folders.runTree, folders.others);

    // What a new run or source needs from the disk (config.json, each file's identity and size) is
    // fetched for all of them at once, SETUP_CONCURRENCY at a time: 10k runs one by one took seconds
    // before the list could show. The pass below then runs without awaiting, so it sees one state.
    const unknown = (s: { path: string; member?: string }): boolean =>
      !this.loader.find(sourceKey(s)) && !this.aliasPaths.has(s.path);
    // A database's run has no folder of its own: a config.json beside the database is not its.
    const ownFolder = (d: Discovery['runs'][number]): boolean =>
      d.sources.every((s) => s.member === undefined);
    const fetched = await mapBounded(found.runs, SETUP_CONCURRENCY, async (d) => ({
      config:
        this.runs.has(d.run) || !ownFolder(d)
          ? null
          : await readRunConfig(d.dir, (m) => this.notice('warning', `${d.dir}: ${m}`)),
      infos: await Promise.all(d.sources.map((s) => (unknown(s) ? fileInfo(s.path) : null))),
    }));
    if (epoch !== this.epoch) return;

    const newRuns: RunState[] = [];
    const newEntries: { run: RunState; entry: LiveEntry }[] = [];
    const moved: { run: RunState; entry: LiveEntry }[] = [];
    const snapshotPaths = new Set<string>();
    found.runs.forEach((d, i) => {
      const { config, infos } = fetched[i]!;
      let state = this.runs.get(d.run);
      if (!state) {
        state = newRunState(d.run, d.dir, config);
        this.runs.set(d.run, state);
        newRuns.push(state);
      }
      d.sources.forEach((s, k) => {
        if (s.snapshot) snapshotPaths.add(s.path);
        if (!unknown(s)) return;
        const movedEntry = s.snapshot ? this.loader.moveSnapshot(state, s.path, s.name) : null;
        if (movedEntry) return void moved.push({ run: state, entry: movedEntry });
        const info = infos[k] ?? null;
        if (
          info &&
          s.member === undefined &&
          state.entries.some(
            (e) => e.state === 'dead' && e.identity === info.identity && e.mtimeMs === info.mtimeMs,
          )
        ) {
          // A rotated-away file renamed to another recognised name: its data is already shown.
          this.aliasPaths.add(s.path);
          return;
        }
        const live = this.opts.createSource(s.path, s.format, {
          pause: () => this.loader.pause(),
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
        this.loader.add(state, entry);
        newEntries.push({ run: state, entry });
        this.progress.sourceFound(entry.size);
      });
    });
    // A snapshot discovery no longer lists (its checkpoints deleted, or the run now has its own log)
    // stays while its file does, and dies when it is gone.
    for (const { run, entry } of this.loader.snapshots())
      if (!snapshotPaths.has(entry.path)) void this.loader.dieIfGone(run, entry);
    this.progress.runsFound(this.runs.size);
    if (newRuns.length > 0 || newEntries.length > 0 || moved.length > 0) this.runsChanged(true);
    this.progress.setPhase('reading');

    // New sources of runs already loaded are read now; new runs one after the other, by name.
    const reads = newEntries
      .filter(({ run }) => run.loaded)
      .map(({ run, entry }) =>
        this.loader.requestRead(run, entry).then(() => this.progress.sourceRead(entry.size)),
      )
      .concat(moved.map(({ run, entry }) => this.loader.requestRead(run, entry)));
    newRuns.sort(byRunName);
    for (const run of newRuns) {
      this.emit('run.reading', run.run);
      await this.loader.enqueue(run, () => this.loader.loadRun(run));
      if (epoch !== this.epoch) return;
      run.loaded = true;
      this.emit('run.read', run.run);
      // Appends that arrived while the run was being read: read them now rather than at the next sweep.
      for (const e of run.entries) void this.loader.requestRead(run, e);
      this.progress.runLoaded();
      // The first run read on opening is announced at once: the page waits on it for its first charts (after
      // listing 10k runs, the throttle's gap alone would be seconds).
      this.runsChanged(onFirstRun !== undefined && run === newRuns[0]);
      this.progress.report();
      onFirstRun?.();
    }
    await Promise.all(reads);
    if (epoch !== this.epoch) return;
    this.progress.setPhase('done');
  }

  /** A source's append, as soon as fs.watch reports it; anything else waits for chokidar's `change`. A database's
   * write (to it or its `-wal`) reads each of its runs. */
  private fileWritten(path: string): void {
    for (const found of this.loader.findFile(path))
      void this.loader.requestRead(found.run, found.entry, { syncTail: this.localDisk });
  }

  private fileChanged(path: string): void {
    const found = this.loader.findFile(path);
    for (const f of found) void this.loader.requestRead(f.run, f.entry, { syncTail: this.localDisk });
    // A database's write (or one to a companion `-wal`, `-shm`, `-journal` of a database with no run yet) may hold
    // new runs: a throttled rediscovery, not one per write.
    const member = found.find((f) => f.entry.member !== undefined)?.entry;
    if (member) this.databaseWritten(member.path, member.format);
    else if (found.length === 0 && databaseOf(path) !== path) this.databaseWritten(databaseOf(path), null);
    else if (found.length === 0 && !this.aliasPaths.has(path)) void this.rediscover();
  }

  /**
   * A database was written (`format` null: one with no run yet): its new runs show after a rediscovery, at most every
   * DATABASE_REDISCOVER_MS, and only when it lists a run the workspace does not read (its listing reads only the rows
   * added since the last one): a run writing all day never walks the folder again.
   */
  private databaseWritten(db: string, format: SourceFormatName | null): void {
    this.databasesWritten.set(db, format);
    if (this.databaseWalkTimer) return;
    const wait = Math.max(0, this.databaseWalkAt + DATABASE_REDISCOVER_MS - Date.now());
    this.databaseWalkTimer = setTimeout(() => {
      this.databaseWalkTimer = null;
      this.databaseWalkAt = Date.now();
      const written = [...this.databasesWritten];
      this.databasesWritten.clear();
      // A run listed that is not read yet (by member, not count: deleted MLflow runs are not listed, but their runs
      // stay read, so counts could match while a new run waits).
      const grew = ([path, f]: [string, SourceFormatName | null]): boolean => {
        if (f === null) return true;
        const read = new Set(this.loader.findFile(path, false).map((x) => x.entry.member));
        return databaseRuns(path, f).some((r) => !read.has(r.member));
      };
      if (written.some(grew)) void this.rediscover();
    }, wait);
    this.databaseWalkTimer.unref();
  }

  // ---- runs.changed and notices ----

  /**
   * runs.changed now (structure changed), or throttled with a trailing update: at most every
   * THROTTLE_MS, and never more than RUNS_CHANGED_SHARE of the time (with 10k runs, building and
   * sending the list costs milliseconds: the gap grows with what the last one cost).
   */
  private runsChanged(now = false): void {
    const t = Date.now();
    if (now || t - this.lastRunsAt >= this.runsGapMs) {
      if (this.runsTimer) clearTimeout(this.runsTimer);
      this.runsTimer = null;
      this.emitRuns();
      return;
    }
    this.runsTimer ??= setTimeout(
      () => {
        this.runsTimer = null;
        this.emitRuns();
      },
      this.runsGapMs - (t - this.lastRunsAt),
    );
  }

  private emitRuns(): void {
    const t0 = performance.now();
    this.emit('runs.changed', this.listRuns());
    this.lastRunsAt = Date.now();
    this.runsGapMs = Math.max(THROTTLE_MS, (performance.now() - t0) / RUNS_CHANGED_SHARE);
  }

  /** One notice per message per opened folder (rediscovery would repeat them). */
  private notice(level: 'info' | 'warning' | 'error', text: string): void {
    if (this.noticed.has(text)) return;
    this.noticed.add(text);
    this.emit('app.notice', { level, message: text });
  }
}

function discoveryMessage(e: Discovery['errors'][number]): string {
  const where = e.path === '.' ? 'the opened folder' : e.path;
  if (e.kind === 'symlink-loop') return `skipped ${where}: symbolic link loop (${e.message})`;
  if (e.kind === 'limit') return `stopped walking at ${where}: ${e.message}`;
  if (e.kind === 'database') return `cannot read database ${where}: ${e.message}`;
  return `cannot read folder ${where}: ${e.message}`;
}
