// One opened folder: its runs, their live sources and live views; deltas pushed as files grow. Hosted by Electron main and `serve`.

import { EventEmitter } from 'node:events';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PushPayloads } from '../../shared/contract';
import type { LoadProgress, RunInfo, SeriesWindow } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import { effectiveConfig, readRunConfig } from '../readers/run-config';
import type { ProgressInfo, ReadError } from '../readers/types';
import { yieldToLoop, type LiveSource } from '../sources/live-source';
import { LiveView, type ResetReason, type WindowQuery } from '../series/live-view';
import type { ScalarSeries } from '../series/scalar-series';
import type { SeriesSet } from '../series/series-set';
import { FolderWatcher } from './folder-watcher';
import type { Discover, Discovery, SourceFactory } from './ports';
import { detectNetworkFilesystem, pollingSuggestion } from './mount-info';

/**
 * When several formats of one run carry the same tag (the demo writes an event file and a CSV with
 * the same metrics), the live view shows the first format of this list only: no doubled points.
 */
export const FORMAT_PRIORITY: readonly SourceFormatName[] = [
  'tfevents',
  'wandb',
  'trainer_state',
  'jsonl',
  'csv',
  'json',
  'training_progress',
];
const RANK = new Map(FORMAT_PRIORITY.map((f, i) => [f, i]));

/** Formats appended to in place: a file replaced at their path is a rotation (old data stays, dead). */
const APPEND_FORMATS = new Set<SourceFormatName>(['tfevents', 'csv', 'jsonl', 'wandb']);

/** View points fed per slice, and the largest delta pushed at once (~6 MB of arrays). */
const FEED_SLICE = 1 << 18;
const DELTA_MAX = 1 << 18;
/** Work between two yields to the event loop, in ms. */
const SLICE_MS = 8;
/** load.progress and trailing runs.changed at most every this many ms. */
const THROTTLE_MS = 100;

interface SourceEntry {
  path: string;
  name: string;
  format: SourceFormatName;
  /** Orders a file replaced at the same path after the old one. */
  gen: number;
  /** Null once dead (deleted or rotated away): its series stay in the views. */
  live: LiveSource | null;
  /** The series set last seen (a reader starting over makes a new one). */
  set: SeriesSet;
  /** For dead sources: records, errors and config when it died. */
  records: number;
  errors: readonly ReadError[];
  config: Record<string, unknown> | null;
  /** dev:ino when last read, to tell a replaced file from a truncated one. */
  identity: string | null;
  /** File size when found (load progress). */
  size: number;
  /** mtime when last read: a dead source's file found under another name is recognised by dev:ino and
   * an unchanged mtime (a new file reusing a deleted file's inode has a newer one). */
  mtimeMs: number | null;
  queued: Promise<void> | null;
}

interface RunState {
  run: string;
  dir: string;
  entries: SourceEntry[];
  views: Map<string, LiveView>;
  fileWrittenAt: number | null;
  /** The run's own config.json (thresholds like target_kl come from it), read when first seen. */
  config: Record<string, unknown> | null;
  loaded: boolean;
  /** Reads and view updates of one run run one at a time, in order. */
  chain: Promise<void>;
  gens: number;
}

export interface WorkspaceOptions {
  discover: Discover;
  createSource: SourceFactory;
  /** Follow the folder live (default true); off for one-shot use. */
  watch?: boolean;
  /** Poll instead of inotify (network filesystems). */
  usePolling?: boolean;
  /** How often every source is re-read in case a file event was missed (ms, default 1000). */
  sweepMs?: number;
  /** /proc/self/mountinfo reader (tests); the network-filesystem check uses it. */
  readMountInfo?: () => Promise<string>;
}

export interface OpenOptions {
  /** Resolve once every run is read (default), or once the first run (by name) is. */
  until?: 'loaded' | 'first-run';
}

type Listener<E extends keyof PushPayloads> = (payload: PushPayloads[E]) => void;

export class Workspace {
  private readonly emitter = new EventEmitter();
  private readonly runs = new Map<string, RunState>();
  private readonly sourceByPath = new Map<string, { run: RunState; entry: SourceEntry }>();
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
  private progress: LoadProgress = {
    phase: 'done',
    runsFound: 0,
    runsLoaded: 0,
    bytesTotal: 0,
    bytesRead: 0,
  };
  /** Bytes of fully read sources, and the source being read for the first time. */
  private bytesDone = 0;
  private reading: SourceEntry | null = null;
  private lastProgressAt = 0;
  private lastYield = 0;
  private runsTimer: NodeJS.Timeout | null = null;
  private lastRunsAt = 0;

  constructor(private readonly opts: WorkspaceOptions) {
    this.emitter.setMaxListeners(100);
  }

  get root(): string | null {
    return this._root;
  }

  on<E extends keyof PushPayloads>(event: E, listener: Listener<E>): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  private emit<E extends keyof PushPayloads>(event: E, payload: PushPayloads[E]): void {
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
    if (fs && !polling) {
      this.watch.suggestion = pollingSuggestion(fs.label);
      this.notice('info', this.watch.suggestion);
    }
    if (this.opts.watch !== false) {
      this.watcher = new FolderWatcher(root, {
        usePolling: polling,
        onStructureChange: () => void this.rediscover(),
        onFileChange: (path) => void this.fileChanged(path),
        onFileRemoved: (path) => void this.fileRemoved(path),
        onError: (message) => this.notice('warning', message),
      });
      await this.watcher.ready();
      if (epoch !== this.epoch) return;
      // File events can be missed (appends racing chokidar's attach to a new file, or network
      // filesystems): a cheap periodic re-read of every source catches up; reads cost O(new bytes).
      this.sweepTimer = setInterval(() => this.sweep(), this.opts.sweepMs ?? 1000);
      this.sweepTimer.unref();
    }
    let firstRun!: () => void;
    const first = new Promise<void>((res) => (firstRun = res));
    this.loading = this.rediscover(firstRun).finally(firstRun);
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
    this.rediscovering = null;
    this.rediscoverAgain = false;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    if (this.runsTimer) clearTimeout(this.runsTimer);
    this.runsTimer = null;
    await this.watcher?.close();
    this.watcher = null;
    for (const { entry } of this.sourceByPath.values()) entry.live?.close();
    this.sourceByPath.clear();
    this.aliasPaths.clear();
    this.runs.clear();
    this.noticed.clear();
    this._root = null;
    this.progress = { phase: 'done', runsFound: 0, runsLoaded: 0, bytesTotal: 0, bytesRead: 0 };
    this.bytesDone = 0;
    this.reading = null;
  }

  listRuns(): RunInfo[] {
    return [...this.runs.values()].sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0)).map(runInfo);
  }

  /** The run's effective config: what its sources carry (W&B config) under its own config.json; null
   * when it has none (also for an unknown run). */
  configOf(run: string): Record<string, unknown> | null {
    const state = this.runs.get(run);
    if (!state) return null;
    return effectiveConfig(
      state.config,
      state.entries.map((e) => (e.live ? e.live.config : e.config)),
    );
  }

  /** The newest progress a run's sources report (training_progress.json, trainer_state.json), with raw fields. */
  progressOf(run: string): ProgressInfo | null {
    const state = this.runs.get(run);
    let found: ProgressInfo | null = null;
    for (const e of state?.entries ?? []) if (e.live?.progress) found = e.live.progress;
    return found;
  }

  /** The live view of `tag` in `run` over an x-range, downsampled for `pixels`; null for an unknown run/tag. */
  getWindow(run: string, tag: string, q: WindowQuery): SeriesWindow | null {
    const view = this.runs.get(run)?.views.get(tag);
    if (!view) return null;
    return { run, tag, ...view.window(q) };
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

  // ---- discovery and loading ----

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
    this.setPhase('discovering');
    let found: Discovery;
    try {
      found = await this.opts.discover(root);
    } catch (e) {
      this.notice('error', `cannot list ${root}: ${message(e)}`);
      found = { runs: [], errors: [] };
    }
    if (epoch !== this.epoch) return;
    for (const e of found.errors) this.notice('warning', discoveryMessage(e));

    const newRuns: RunState[] = [];
    const newEntries: { run: RunState; entry: SourceEntry }[] = [];
    for (const d of found.runs) {
      let state = this.runs.get(d.run);
      if (!state) {
        const config = await readRunConfig(d.dir);
        if (epoch !== this.epoch) return;
        state = {
          run: d.run,
          dir: d.dir,
          entries: [],
          views: new Map(),
          fileWrittenAt: null,
          config,
          loaded: false,
          chain: Promise.resolve(),
          gens: 0,
        };
        this.runs.set(d.run, state);
        newRuns.push(state);
      }
      for (const s of d.sources) {
        if (this.sourceByPath.has(s.path) || this.aliasPaths.has(s.path)) continue;
        const info = await fileInfo(s.path);
        if (epoch !== this.epoch) return;
        if (
          info &&
          state.entries.some(
            (e) => e.live === null && e.identity === info.identity && e.mtimeMs === info.mtimeMs,
          )
        ) {
          // A rotated-away file renamed to another recognised name: its data is already shown.
          this.aliasPaths.add(s.path);
          continue;
        }
        const live = this.opts.createSource(s.path, s.format, { pause: () => this.pause() });
        const entry: SourceEntry = {
          path: s.path,
          name: basename(s.path),
          format: s.format,
          gen: ++state.gens,
          live,
          set: live.series,
          records: 0,
          errors: [],
          config: null,
          identity: null,
          size: info?.size ?? 0,
          mtimeMs: null,
          queued: null,
        };
        this.sourceByPath.set(s.path, { run: state, entry });
        state.entries.push(entry);
        sortEntries(state.entries);
        newEntries.push({ run: state, entry });
        this.progress.bytesTotal += entry.size;
      }
    }
    this.progress.runsFound = this.runs.size;
    if (newRuns.length > 0 || newEntries.length > 0) this.runsChanged(true);
    this.setPhase('reading');

    // New sources of runs already loaded are read now; new runs one after the other, by name.
    const reads = newEntries
      .filter(({ run }) => run.loaded)
      .map(({ run, entry }) =>
        this.requestRead(run, entry).then(() => {
          this.bytesDone += entry.size;
        }),
      );
    newRuns.sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0));
    for (const run of newRuns) {
      await this.enqueue(run, () => this.loadRun(run));
      if (epoch !== this.epoch) return;
      run.loaded = true;
      // Appends that arrived while the run was being read: read them now rather than at the next sweep.
      for (const e of run.entries) void this.requestRead(run, e);
      this.progress.runsLoaded++;
      this.runsChanged();
      this.reportProgress();
      onFirstRun?.();
    }
    await Promise.all(reads);
    if (epoch !== this.epoch) return;
    this.setPhase('done');
  }

  /** First read of a run: every source, then every tag's view once (so format choice sees all sources). */
  private async loadRun(run: RunState): Promise<void> {
    const epoch = this.epoch;
    const dirty = new Map<string, ResetReason>();
    for (const entry of [...run.entries]) {
      this.reading = entry;
      await this.readEntry(run, entry, dirty);
      this.reading = null;
      this.bytesDone += entry.size;
      if (epoch !== this.epoch) return;
      this.reportProgress();
    }
    await this.syncViews(run, dirty);
  }

  private enqueue(run: RunState, job: () => Promise<void>): Promise<void> {
    const p = run.chain.then(job).catch((e: unknown) => {
      this.notice('error', `${run.run}: internal error while reading: ${message(e)}`);
    });
    run.chain = p;
    return p;
  }

  /** Reads one source of a loaded run and updates the views; requests while one waits are coalesced. */
  private requestRead(run: RunState, entry: SourceEntry): Promise<void> {
    if (!run.loaded || entry.live === null) return Promise.resolve();
    if (entry.queued) return entry.queued;
    const epoch = this.epoch;
    const job = this.enqueue(run, async () => {
      entry.queued = null;
      if (epoch !== this.epoch || entry.live === null) return;
      const dirty = new Map<string, ResetReason>();
      const progressBefore = entry.live.progress;
      const recordsBefore = entry.live.records;
      await this.readEntry(run, entry, dirty);
      if (epoch !== this.epoch) return;
      await this.syncViews(run, dirty);
      if (entry.live && entry.live.records !== recordsBefore && (entry.live.progress || progressBefore))
        this.runsChanged();
    });
    entry.queued = job;
    return job;
  }

  private fileChanged(path: string): void {
    const found = this.sourceByPath.get(path);
    if (found) void this.requestRead(found.run, found.entry);
    else if (!this.aliasPaths.has(path)) void this.rediscover();
  }

  private fileRemoved(path: string): void {
    const found = this.sourceByPath.get(path);
    if (!found) return;
    const epoch = this.epoch;
    void this.enqueue(found.run, async () => {
      const info = await fileInfo(path);
      if (epoch !== this.epoch || info !== null || found.entry.live === null) return;
      this.markDead(found.run, found.entry);
    });
  }

  private sweep(): void {
    for (const { run, entry } of this.sourceByPath.values()) void this.requestRead(run, entry);
  }

  /** Reads what is new in one source; records in `dirty` the tags whose views must be refreshed. */
  private async readEntry(run: RunState, entry: SourceEntry, dirty: Map<string, ResetReason>): Promise<void> {
    const live = entry.live;
    if (!live) return;
    const oldSet = entry.set;
    const recordsBefore = live.records;
    const errorsBefore = live.errors; // readers replace the array when it changes: no copy needed
    const configBefore = live.config;
    await live.readMore();
    if (this.runs.get(run.run) !== run || entry.live !== live) return;
    if (live.series !== oldSet) {
      // The reader started over: the file shrank (truncated) or another file took its path (rotation).
      const info = await fileInfo(entry.path);
      const replaced =
        APPEND_FORMATS.has(entry.format) &&
        entry.identity !== null &&
        (info === null || info.identity !== entry.identity);
      if (replaced) {
        const ghost: SourceEntry = {
          ...entry,
          live: null,
          records: recordsBefore,
          errors: errorsBefore,
          config: configBefore,
          set: oldSet,
          queued: null,
        };
        entry.gen = ++run.gens;
        run.entries.push(ghost);
        sortEntries(run.entries);
        this.runsChanged(true);
      }
      entry.identity = info?.identity ?? null;
      const reason: ResetReason = replaced ? 'bulk' : 'truncated';
      for (const [tag] of oldSet.entries()) dirty.set(tag, reason);
      entry.set = live.series;
    }
    if (
      live.records !== recordsBefore ||
      live.errors.length !== errorsBefore.length ||
      run.fileWrittenAt === null ||
      entry.identity === null
    ) {
      const info = await fileInfo(entry.path);
      if (info) {
        entry.identity = info.identity;
        entry.mtimeMs = info.mtimeMs;
        if (run.fileWrittenAt === null || info.mtimeMs > run.fileWrittenAt) run.fileWrittenAt = info.mtimeMs;
      } else if (live.errors.some((e) => e.kind === 'io')) {
        this.markDead(run, entry);
        return;
      }
    }
    if (live.records !== recordsBefore || entry.set !== oldSet)
      for (const [tag] of entry.set.entries()) if (!dirty.has(tag)) dirty.set(tag, 'bulk');
  }

  /** The file is gone: its data stays in the views, it reads no more; a new file there is a new source. */
  private markDead(run: RunState, entry: SourceEntry): void {
    const live = entry.live;
    if (!live) return;
    entry.records = live.records;
    entry.errors = live.errors.filter((e) => e.kind !== 'io');
    entry.config = live.config;
    entry.live = null;
    live.close();
    if (this.sourceByPath.get(entry.path)?.entry === entry) this.sourceByPath.delete(entry.path);
    this.runsChanged(true);
  }

  /** Refreshes the views of `tags` and pushes what changed: resets, then appended points. */
  private async syncViews(run: RunState, tags: Map<string, ResetReason>): Promise<void> {
    const epoch = this.epoch;
    for (const [tag, reason] of tags) {
      let view = run.views.get(tag);
      if (!view) {
        view = new LiveView();
        run.views.set(tag, view);
      }
      view.setParts(partsOf(run, tag), reason);
      for (;;) {
        const fed = view.feed(FEED_SLICE);
        const reset = view.takeReset();
        if (reset) this.emit('series.reset', { run: run.run, tag, reason: reset });
        for (let d = view.takeDelta(DELTA_MAX); d; d = view.takeDelta(DELTA_MAX))
          this.emit('series.appended', { run: run.run, tag, ...d });
        if (fed < FEED_SLICE) break;
        await this.pause();
        if (epoch !== this.epoch) return;
      }
      await this.maybePause();
      if (epoch !== this.epoch) return;
    }
  }

  // ---- pacing, progress, notices ----

  /** Yields to the event loop (timers, IO, requests) and reports load progress. */
  private async pause(): Promise<void> {
    await yieldToLoop();
    this.lastYield = performance.now();
    this.reportProgress();
  }

  private async maybePause(): Promise<void> {
    if (performance.now() - this.lastYield > SLICE_MS) await this.pause();
  }

  private setPhase(phase: LoadProgress['phase']): void {
    if (this.progress.phase === phase) return;
    this.progress.phase = phase;
    this.reportProgress(true);
  }

  private reportProgress(force = false): void {
    const now = performance.now();
    if (!force && now - this.lastProgressAt < THROTTLE_MS) return;
    this.lastProgressAt = now;
    const current = this.reading?.live?.bytesRead ?? 0;
    this.progress.bytesRead = Math.min(this.progress.bytesTotal, this.bytesDone + current);
    this.emit('load.progress', { ...this.progress });
  }

  /** runs.changed now (structure changed), or at most every THROTTLE_MS with a trailing update. */
  private runsChanged(now = false): void {
    const t = Date.now();
    if (now || t - this.lastRunsAt >= THROTTLE_MS) {
      if (this.runsTimer) clearTimeout(this.runsTimer);
      this.runsTimer = null;
      this.lastRunsAt = t;
      this.emit('runs.changed', this.listRuns());
      return;
    }
    this.runsTimer ??= setTimeout(
      () => {
        this.runsTimer = null;
        this.lastRunsAt = Date.now();
        this.emit('runs.changed', this.listRuns());
      },
      THROTTLE_MS - (t - this.lastRunsAt),
    );
  }

  /** One notice per message per opened folder (rediscovery would repeat them). */
  private notice(level: 'info' | 'warning' | 'error', text: string): void {
    if (this.noticed.has(text)) return;
    this.noticed.add(text);
    this.emit('app.notice', { level, message: text });
  }
}

function sortEntries(entries: SourceEntry[]): void {
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.gen - b.gen));
}

/** The series of `tag` a view concatenates: those of the best-ranked format carrying it, in file order. */
function partsOf(run: RunState, tag: string): ScalarSeries[] {
  let best = Number.POSITIVE_INFINITY;
  for (const e of run.entries) if (e.set.has(tag)) best = Math.min(best, RANK.get(e.format) ?? 99);
  const out: ScalarSeries[] = [];
  for (const e of run.entries)
    if (e.set.has(tag) && (RANK.get(e.format) ?? 99) === best) out.push(e.set.get(tag));
  return out;
}

async function fileInfo(path: string): Promise<{ identity: string; size: number; mtimeMs: number } | null> {
  try {
    const st = await stat(path);
    return { identity: `${st.dev}:${st.ino}`, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return null;
  }
}

function discoveryMessage(e: { path: string; message: string; kind?: string }): string {
  const where = e.path === '.' ? 'the opened folder' : e.path;
  if (e.kind === 'symlink-loop') return `skipped ${where}: symbolic link loop (${e.message})`;
  if (e.kind === 'limit') return `stopped walking at ${where}: ${e.message}`;
  return `cannot read folder ${where}: ${e.message}`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function runInfo(state: RunState): RunInfo {
  let points = 0;
  let restarts = 0;
  for (const v of state.views.values()) {
    points += v.length;
    restarts = Math.max(restarts, v.restarts.length);
  }
  let lastWall = -Infinity;
  let progress: RunInfo['progress'] = null;
  for (const e of state.entries) {
    for (const [, series] of e.set.entries())
      if (series.length > 0) lastWall = Math.max(lastWall, series.wallTime(series.length - 1));
    const p = e.live?.progress;
    if (p) progress = { fraction: p.fraction, etaSeconds: p.etaSeconds };
  }
  return {
    run: state.run,
    sources: state.entries.map((e) => ({
      file: e.name,
      format: e.format,
      records: e.live?.records ?? e.records,
      errors: (e.live?.errors ?? e.errors).map((x) => ({
        offset: x.offset,
        kind: x.kind,
        message: x.message,
      })),
      dead: e.live === null,
    })),
    tags: [...state.views.keys()].sort(),
    points,
    lastEventAt: Number.isFinite(lastWall) ? Math.round(lastWall * 1000) : null,
    fileWrittenAt: state.fileWrittenAt,
    progress,
    loaded: state.loaded,
    restarts,
    worstAlert: null,
    stalled: false,
  };
}
