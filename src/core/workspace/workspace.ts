// One opened folder: its runs, their live sources and live views; deltas pushed as files grow. Hosted by Electron main and `serve`.
//
// This class opens, closes and follows the folder (watcher, sweep, file events; which watcher is watcher-choice.ts's); merging a walk's findings is
// rediscovery.ts's, reading the RunLoader's (run-loader.ts), load progress the LoadProgressTracker's, RunInfo
// run-info.ts's (kept per run by run-info-cache.ts), what a run holds run-reads.ts's, runs.changed's pace
// runs-changed.ts's, databases' new runs database-walks.ts's.

import { EventEmitter } from 'node:events';
import type { Stats, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { relative, resolve } from 'node:path';
import type { PushPayloads } from '../../shared/contract';
import type { RunInfo, SeriesWindow } from '../../shared/domain';
import type { TextSource } from '../../shared/text-items';
import type { SampleSource } from '../../shared/samples';
import type { HistogramSource } from '../../shared/histogram-items';
import { effectiveConfig } from '../readers/run-config';
import { mayBeSource } from '../sources/sniff';
import type { ProgressInfo } from '../readers/types';
import type { RunFacts } from '../series/run-facts';
import { memoryCapSetting, type CapSetting, type ThinnedFact } from '../series/memory-cap';
import { DatabaseWalks } from './database-walks';
import { ExactReadBack, readBackLimits, type ExactQuery } from './exact-read-back';
import type { FolderWatcherHandlers, FolderWatching } from './folder-watcher';
import { LoadProgressTracker } from './load-progress';
import { makeWatcher, watcherKind, watchLimitNotice, type WatcherKind } from './watcher-choice';
import { MemoryGuard } from './memory-guard';
import { detectFilesystem, pollingSuggestion } from './mount-info';
import type { Discover, SourceFactory } from './ports';
import { rediscoverOnce, type RediscoveryHost } from './rediscovery';
import { RunLoader, type SeriesRead } from './run-loader';
import { RunInfoCache } from './run-info-cache';
import {
  RunFactsCache,
  runHistograms,
  runProgress,
  runSamples,
  runTexts,
  runWindow,
  storedStats,
} from './run-reads';
import { RunsChangedPacer } from './runs-changed';
import { byRunName, databaseOf, sourceConfig, type RunState } from './run-state';

export interface WorkspaceOptions {
  discover: Discover;
  createSource: SourceFactory;
  /** Follow the folder live (default true); off for one-shot use. */
  watch?: boolean;
  /** Poll instead of inotify (network filesystems). */
  usePolling?: boolean;
  /** Which watcher follows a folder that is not polled: 'auto' (default) plain fs.watch on a local Linux disk, else
   * chokidar; 'chokidar' always chokidar (RLWATCH_WATCHER=chokidar, create.ts). */
  watcher?: 'auto' | 'chokidar';
  /** How often every source is re-read in case a file event was missed (ms, default 1000). */
  sweepMs?: number;
  /** Most folders watched (default: the watcher's budget). */
  maxWatchedFolders?: number;
  /** fs.watch as the fs.watch watcher calls it (tests: a watch limit). */
  fsWatch?: typeof watch;
  /** /proc/self/mountinfo reader (tests); the network-filesystem check uses it. */
  readMountInfo?: () => Promise<string>;
  /** The memory cap on stored points (default: RLWATCH_MEMORY_CAP_MB, else min(2 GB, a quarter of the memory)). */
  memoryCap?: CapSetting;
}

export interface OpenOptions {
  /** Resolve once every run is read (default), or once the first run (by name) is. */
  until?: 'loaded' | 'first-run';
  /** The walk of the rest of the folder, once its first runs are listed and being read, waits for this (the page's
   * first screen: the walk of 10k folders otherwise took the cores it needed, #36). Default: it goes on at once. */
  restAfter?: () => Promise<void>;
}

/** Sources the sweep re-reads per tick at most (each source every ⌈sources / this⌉ ticks). */
const SWEEP_MAX_SOURCES = 500;

/** The contract's push events, and the workspace's own: a run's first read starting and done (its name), so the
 * alert pipeline can judge that read's points in the order they were written (alerts/load-order.ts). */
export interface WorkspaceEvents extends PushPayloads {
  'run.reading': string;
  'run.read': string;
  /** A read's deltas together, after each went out as `series.appended` (run-loader.ts). */
  'series.read': SeriesRead;
}

type Listener<E extends keyof WorkspaceEvents> = (payload: WorkspaceEvents[E]) => void;

export class Workspace {
  private readonly emitter = new EventEmitter();
  private readonly runs = new Map<string, RunState>();
  private readonly facts = new RunFactsCache();
  private readonly infos = new RunInfoCache();
  /** Paths found to be other names of a rotated-away file whose data a dead source already holds. */
  private readonly aliasPaths = new Set<string>();
  private watcher: FolderWatching | null = null;
  /** Which watcher the opened folder gets (decided on opening). */
  private kind: WatcherKind = 'chokidar';
  /** The folders the last discovery walked: what the watcher follows once it starts. */
  private walked: { runTree: string[]; others: string[] } | null = null;
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
  /** Ends the wait for the watcher's first scan (a folder closed before it finished). */
  private stopWaiting: (() => void) | null = null;
  private readonly runsPacer = new RunsChangedPacer(() => this.emit('runs.changed', this.listRuns()));
  private readonly databaseWalks: DatabaseWalks;
  private readonly rediscovery: RediscoveryHost;
  private readonly memory: MemoryGuard;
  /** Exact values of thinned series read back from their files for zoom, sessions and export. */
  private readonly exact: ExactReadBack;

  constructor(private readonly opts: WorkspaceOptions) {
    this.emitter.setMaxListeners(100);
    const cap = opts.memoryCap ?? memoryCapSetting(process.env, totalmem());
    this.exact = new ExactReadBack(readBackLimits(cap.bytes));
    this.memory = new MemoryGuard(cap, {
      runs: () => this.runs.values(),
      resync: (name) => {
        const run = this.runs.get(name);
        if (run) this.loader.resync(run);
      },
      runsChanged: (now) => this.runsChanged(now),
      notice: (level, text) => this.notice(level, text),
    });
    this.loader = new RunLoader(
      {
        epoch: () => this.epoch,
        isCurrent: (run) => this.runs.get(run.run) === run,
        emit: (event, payload) => this.emitter.emit(event, payload),
        notice: (level, text) => this.notice(level, text),
        runsChanged: (now, live) => this.runsChanged(now, live),
        rediscover: () => void this.rediscover(),
        checkMemory: (when) => this.memory.check(when),
      },
      this.progress,
    );
    this.databaseWalks = new DatabaseWalks({
      readMembers: (db) => new Set(this.loader.findFile(db, false).map((x) => x.entry.member)),
      rediscover: () => void this.rediscover(),
    });
    this.rediscovery = {
      root: () => this._root,
      localDisk: () => this.localDisk,
      epoch: () => this.epoch,
      runs: this.runs,
      aliasPaths: this.aliasPaths,
      loader: this.loader,
      progress: this.progress,
      discover: opts.discover,
      createSource: opts.createSource,
      watchFolders: (runTree, others) => {
        this.walked = { runTree, others };
        this.watcher?.watchFolders(runTree, others);
      },
      notice: (level, text) => this.notice(level, text),
      emit: (event, run) => this.emit(event, run),
      runsChanged: (now) => this.runsChanged(now),
      loadDone: () => this.memory.loadDone(),
    };
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
    const { network: fs, fsType } = await detectFilesystem(root, this.opts.readMountInfo);
    if (epoch !== this.epoch) return;
    this.localDisk = !polling && fs === null;
    this.kind = watcherKind({ polling, forced: this.opts.watcher, localDisk: this.localDisk, fsType });
    if (fs && !polling) {
      this.watch.suggestion = pollingSuggestion(fs.label);
      this.notice('info', this.watch.suggestion);
    }
    let firstRun!: () => void;
    const first = new Promise<void>((res) => (firstRun = res));
    const discovered = this.rediscover(firstRun, options.restAfter);
    // The watcher starts once the first run is announced (or discovery found none): its first scan of the
    // folder (a stat per entry: seconds for 10k run folders, #36) used to run beside discovery, on the same
    // thread as the first screen. A folder made before it watches is caught by the folder's own stat.
    const watching =
      this.opts.watch === false
        ? Promise.resolve()
        : Promise.race([first, discovered]).then(() => this.startWatching(root, st, epoch));
    this.loading = Promise.all([discovered, watching])
      .then(() => undefined)
      .finally(firstRun);
    await (options.until === 'first-run' ? first : this.loading);
  }

  /**
   * Starts following the folder: a watcher (fs.watch or chokidar, `kind`) on the opened folder and the folders
   * discovery walked. A watcher reports only what happens after it watches, so an opened folder whose mtime or link count moved since `before` (taken before
   * discovery's walk: a run folder made meanwhile) is walked again, and every source is swept once for appends made
   * meanwhile.
   */
  private async startWatching(root: string, before: Stats, epoch: number): Promise<void> {
    if (epoch !== this.epoch) return;
    const handlers: Omit<FolderWatcherHandlers, 'usePolling'> = {
      ...(this.opts.maxWatchedFolders === undefined ? {} : { maxFolders: this.opts.maxWatchedFolders }),
      onBudgetHit: (watched, skipped) =>
        this.notice(
          'warning',
          `watching ${watched} folders, the most allowed: ${skipped} more are not followed live (new runs there show on reopening)`,
        ),
      onStructureChange: () => void this.rediscover(),
      onFileChange: (path, reported) => this.fileChanged(path, reported === true),
      onFileWritten: (path) => this.fileWritten(path),
      onFileRemoved: (path) => this.loader.removeIfGone(path),
      onFolderRemoved: (path) => this.loader.removeUnderIfGone(path),
      onError: (message) => this.notice('warning', message),
    };
    this.watcher = makeWatcher(this.kind, root, handlers, {
      ...(this.opts.fsWatch ? { fsWatch: this.opts.fsWatch } : {}),
      onFallback: (f) => this.notice('warning', watchLimitNotice(f)),
    });
    if (this.walked) this.watcher.watchFolders(this.walked.runTree, this.walked.others);
    const closed = new Promise<void>((res) => (this.stopWaiting = res));
    await Promise.race([this.watcher.ready(), closed]);
    if (epoch !== this.epoch) return;
    const now = await stat(root).catch(() => null);
    if (epoch !== this.epoch) return;
    if (now?.mtimeMs !== before.mtimeMs || now.nlink !== before.nlink) void this.rediscover();
    // File events can be missed (appends racing the watcher's attach to a new file, or network
    // filesystems): a cheap periodic re-read of every source catches up; reads cost O(new bytes).
    // At most SWEEP_MAX_SOURCES a sweep, round-robin: with more sources each is re-read less often.
    this.loader.sweep(SWEEP_MAX_SOURCES, { syncTail: this.localDisk });
    this.sweepTimer = setInterval(
      () => this.loader.sweep(SWEEP_MAX_SOURCES, { syncTail: this.localDisk }),
      this.opts.sweepMs ?? 1000,
    );
    this.sweepTimer.unref();
  }

  /** Resolves when the folder's initial load (and any rediscovery under way) is done. */
  whenLoaded(): Promise<void> {
    return this.loading;
  }

  /** Which watcher follows the opened folder (decided on opening; 'chokidar' before any). */
  watcherKind(): WatcherKind {
    return this.kind;
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
    this.runsPacer.cancel();
    this.memory.reset();
    this.exact.clear();
    this.databaseWalks.cancel();
    await this.watcher?.close();
    this.watcher = null;
    this.walked = null;
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
    return [...this.runs.values()].sort(byRunName).map((r) => this.infos.of(r));
  }

  /** One run's info (null for an unknown run): listRuns builds every run's (10k runs: ~0.1 s). */
  runInfoOf(run: string): RunInfo | null {
    const state = this.runs.get(run);
    return state ? this.infos.of(state) : null;
  }

  /** The runs' names, in listRuns' order, without building their infos. */
  runNames(): string[] {
    return [...this.runs.values()].sort(byRunName).map((r) => r.run);
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

  /** The run's points and sessions over the live files (run-reads.ts); null for an unknown run. */
  tableFacts(run: string): RunFacts | null {
    const state = this.runs.get(run);
    return state ? this.facts.of(state) : null;
  }

  /** The text samples of a run's live sources; [] for an unknown run. */
  textsOf(run: string): TextSource[] {
    return runTexts(this.runs.get(run));
  }

  /** The sample tables of a run's live sources; [] for an unknown run. */
  samplesOf(run: string): SampleSource[] {
    return runSamples(this.runs.get(run));
  }

  /** The histograms of a run's live sources; [] for an unknown run. */
  histogramsOf(run: string): HistogramSource[] {
    return runHistograms(this.runs.get(run));
  }

  /** The newest progress a run's sources report; null for an unknown run or none. */
  progressOf(run: string): ProgressInfo | null {
    return runProgress(this.runs.get(run));
  }

  /** The live view of `tag` in `run` over an x-range (run-reads.ts); null for an unknown run/tag/session. A series
   * the memory cap thinned answers from its exact values where they were read back (`readExact`) and still hold. */
  getWindow(run: string, tag: string, q: ExactQuery): SeriesWindow | null {
    const state = this.runs.get(run);
    return (state && this.exact.window(state, tag, q)) ?? runWindow(state, tag, q);
  }

  /** Reads back from the files the exact values of `tag` in `run` where the memory cap thinned it, so that
   * `getWindow` answers `q` with them: a zoomed window (of the live view or one session), a zoomed export. Resolves
   * when done (or not possible: no range asked, the file gone, replaced or over the read-back limit); never rejects. */
  async readExact(run: string, tag: string, q: ExactQuery): Promise<void> {
    const state = this.runs.get(run);
    if (state) await this.exact.prepare(state, tag, q);
  }

  /** Folders the watcher follows (0 when not watching): bounded whatever links the folder holds. */
  watchedFolderCount(): number {
    return this.watcher?.watchedCount() ?? 0;
  }

  /** Points stored in memory and the bytes their columns hold: for memory checks. */
  storedStats(): { points: number; bytes: number; dropped: number } {
    return storedStats(this.runs.values());
  }

  /** The memory cap on stored points and where it comes from. */
  get memoryCap(): CapSetting {
    return this.memory.setting;
  }

  /** What the memory cap thinned so far (points kept and read in thinned series, runs); null when none. */
  thinned(): ThinnedFact | null {
    return this.memory.thinned();
  }

  /** The statement of what the memory cap thinned (the notice's words); null when nothing was. */
  thinnedStatement(): string | null {
    return this.memory.statement();
  }

  // ---- discovery ----

  /** Re-walks the folder; serialised so bursts of new folders cost one walk at a time. */
  private rediscover(onFirstRun?: () => void, restAfter?: () => Promise<void>): Promise<void> {
    if (this.rediscovering) {
      this.rediscoverAgain = true;
      return this.rediscovering;
    }
    const epoch = this.epoch;
    const job: Promise<void> = (async () => {
      do {
        this.rediscoverAgain = false;
        await rediscoverOnce(this.rediscovery, onFirstRun, restAfter);
      } while (this.rediscoverAgain && epoch === this.epoch);
    })().finally(() => {
      if (this.rediscovering === job) this.rediscovering = null;
    });
    this.rediscovering = job;
    return job;
  }

  /** A source's append, as soon as fs.watch reports it; anything else waits for the watcher's `change`. A database's
   * write (to it or its `-wal`) reads each of its runs. True when a file source of its own took it: nothing else
   * (no database walk, no rediscovery) can follow from the write. */
  private fileWritten(path: string): boolean {
    const found = this.loader.findFile(path);
    for (const f of found) void this.loader.requestRead(f.run, f.entry, { syncTail: this.localDisk });
    return found.length > 0 && found.every((f) => f.entry.member === undefined);
  }

  /** chokidar's `add` or `change`; `reported`: fs.watch's report of each write already read the sources (each
   * append was read three times: at the report, at `change`, at its trailing read). */
  private fileChanged(path: string, reported = false): void {
    const found = this.loader.findFile(path);
    if (!reported)
      for (const f of found) void this.loader.requestRead(f.run, f.entry, { syncTail: this.localDisk });
    // A database's write (or one to a companion `-wal`, `-shm`, `-journal` of a database with no run yet) may hold
    // new runs: a throttled rediscovery, not one per write.
    const member = found.find((f) => f.entry.member !== undefined)?.entry;
    if (member) this.databaseWalks.databaseWritten(member.path, member.format);
    else if (found.length === 0 && databaseOf(path) !== path)
      this.databaseWalks.databaseWritten(databaseOf(path), null);
    else if (found.length === 0 && !this.aliasPaths.has(path) && this.mayBeSource(path))
      void this.rediscover();
  }

  /** Whether a file nobody reads could become a source (sniff.ts): a write to one that cannot walks nothing. */
  private mayBeSource(path: string): boolean {
    return this._root === null || mayBeSource(relative(this._root, path));
  }

  // ---- runs.changed and notices ----

  /** runs.changed now (structure changed: every run's info is built again), or paced (runs-changed.ts; the caller
   * bumped the revision of the run that moved). */
  private runsChanged(now = false, live = false): void {
    if (now) this.infos.clear();
    this.runsPacer.changed(now, live);
  }

  /** One notice per message per opened folder (rediscovery would repeat them). */
  private notice(level: 'info' | 'warning' | 'error', text: string): void {
    if (this.noticed.has(text)) return;
    this.noticed.add(text);
    this.emit('app.notice', { level, message: text });
  }
}
