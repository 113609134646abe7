// One opened folder: its runs, their live sources, deltas pushed as files grow. Hosted by Electron main and `serve`.

import { EventEmitter } from 'node:events';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { PushPayloads } from '../../shared/contract';
import type { RunInfo, ScalarColumns, SeriesDelta, SeriesWindow } from '../../shared/domain';
import { toWire } from '../../shared/domain';
import { readRunConfig } from '../health/run-config';
import type { ProgressInfo } from '../readers/types';
import type { ScalarSeries } from '../series/scalar-series';
import type { Discover, LiveSource, SourceFactory } from './live-source';
import { FolderWatcher } from './folder-watcher';

interface RunState {
  run: string;
  dir: string;
  sources: LiveSource[];
  fileWrittenAt: number | null;
  /** The run's own config.json (thresholds like target_kl come from it), read when first seen. */
  config: Record<string, unknown> | null;
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
}

type Listener<E extends keyof PushPayloads> = (payload: PushPayloads[E]) => void;

export class Workspace {
  private readonly emitter = new EventEmitter();
  private readonly runs = new Map<string, RunState>();
  private readonly sourceByPath = new Map<string, { run: RunState; source: LiveSource }>();
  /** Points already pushed per source path and tag, so each append crosses once. */
  private readonly emitted = new Map<string, Map<string, number>>();
  private watcher: FolderWatcher | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private _root: string | null = null;
  private rediscovering: Promise<void> | null = null;
  private rediscoverAgain = false;

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

  /** Opens `folder` (closing any previous one), reads every run once, then follows it. */
  async open(folder: string): Promise<void> {
    const root = resolve(folder);
    const st = await stat(root);
    if (!st.isDirectory()) throw new Error(`${root} is not a folder`);
    await this.close();
    this._root = root;
    if (this.opts.watch !== false) {
      this.watcher = new FolderWatcher(root, {
        usePolling: this.opts.usePolling ?? false,
        onStructureChange: () => void this.rediscover(),
        onFileChange: (path) => void this.readSource(path),
        onError: (message) => this.emit('app.notice', { level: 'warning', message }),
      });
      await this.watcher.ready();
      // File events can be missed (appends racing chokidar's attach to a new file, or network
      // filesystems): a cheap periodic re-read of every source catches up; reads cost O(new bytes).
      this.sweepTimer = setInterval(() => this.sweep(), this.opts.sweepMs ?? 1000);
      this.sweepTimer.unref();
    }
    await this.rediscover();
  }

  private sweep(): void {
    for (const path of this.sourceByPath.keys()) void this.readSource(path);
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await this.watcher?.close();
    this.watcher = null;
    for (const { source } of this.sourceByPath.values()) source.close();
    this.sourceByPath.clear();
    this.runs.clear();
    this.emitted.clear();
    this._root = null;
  }

  listRuns(): RunInfo[] {
    return [...this.runs.values()].sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0)).map(runInfo);
  }

  /** The run's own config.json, or null (also for an unknown run). */
  configOf(run: string): Record<string, unknown> | null {
    return this.runs.get(run)?.config ?? null;
  }

  /** The newest progress a run's sources report (training_progress.json, trainer_state.json), with raw fields. */
  progressOf(run: string): ProgressInfo | null {
    const state = this.runs.get(run);
    let found: ProgressInfo | null = null;
    for (const s of state?.sources ?? []) if (s.progress) found = s.progress;
    return found;
  }

  /** Every point of `tag` in `run`, sources concatenated in file-name order. */
  getSeries(run: string, tag: string): ScalarColumns | null {
    const state = this.runs.get(run);
    if (!state) return null;
    const parts = state.sources.filter((s) => s.series.has(tag)).map((s) => s.series.get(tag));
    if (parts.length === 0) return null;
    const out: ScalarColumns = { steps: [], wallTimes: [], values: [] };
    for (const s of parts) appendColumns(out, s, 0, s.length);
    return out;
  }

  /** The live view of `tag` in `run` over an x-range, downsampled for `pixels`; null for an unknown run/tag.
   * TEMPORARY body (whole series, not downsampled) until the run model lands this session. */
  getWindow(
    run: string,
    tag: string,
    _q: { pixels: number; xMin?: number; xMax?: number; axis?: 'step' | 'wall' },
  ): SeriesWindow | null {
    const cols = this.getSeries(run, tag);
    if (!cols) return null;
    const steps = Float64Array.from(cols.steps);
    return {
      run,
      tag,
      steps,
      wallTimes: Float64Array.from(cols.wallTimes),
      values: Float64Array.from(cols.values, (v) => Number(v)),
      length: steps.length,
      inRange: steps.length,
      downsampled: false,
      extent: null,
      restarts: [],
    };
  }

  /** Re-walks the folder; serialised so bursts of new files cost one walk at a time. */
  private rediscover(): Promise<void> {
    if (this.rediscovering) {
      this.rediscoverAgain = true;
      return this.rediscovering;
    }
    this.rediscovering = (async () => {
      do {
        this.rediscoverAgain = false;
        await this.rediscoverOnce();
      } while (this.rediscoverAgain);
    })().finally(() => {
      this.rediscovering = null;
    });
    return this.rediscovering;
  }

  private async rediscoverOnce(): Promise<void> {
    const root = this._root;
    if (!root) return;
    const found = await this.opts.discover(root);
    if (this._root !== root) return;
    for (const e of found.errors)
      this.emit('app.notice', { level: 'warning', message: `${e.path}: ${e.message}` });
    let changed = false;
    const fresh: LiveSource[] = [];
    for (const d of found.runs) {
      let state = this.runs.get(d.run);
      if (!state) {
        state = {
          run: d.run,
          dir: d.dir,
          sources: [],
          fileWrittenAt: null,
          config: await readRunConfig(d.dir),
        };
        this.runs.set(d.run, state);
        changed = true;
      }
      for (const s of d.sources) {
        if (this.sourceByPath.has(s.path)) continue;
        const source = this.opts.createSource(s.path, s.format);
        this.sourceByPath.set(s.path, { run: state, source });
        state.sources.push(source);
        state.sources.sort((a, b) => (basename(a.path) < basename(b.path) ? -1 : 1));
        fresh.push(source);
        changed = true;
      }
    }
    await Promise.all(fresh.map((s) => this.readSource(s.path, false)));
    if (changed || fresh.length > 0) this.emit('runs.changed', this.listRuns());
  }

  private readonly reading = new Map<string, Promise<void>>();
  private readonly readAgain = new Set<string>();

  /** Reads appended bytes of one source, coalescing change bursts into at most one extra read. */
  private readSource(path: string, announce = true): Promise<void> {
    const inFlight = this.reading.get(path);
    if (inFlight) {
      this.readAgain.add(path);
      return inFlight;
    }
    const entry = this.sourceByPath.get(path);
    if (!entry) {
      void this.rediscover();
      return Promise.resolve();
    }
    const job = (async () => {
      do {
        this.readAgain.delete(path);
        const before = entry.source.records;
        await entry.source.readMore();
        // Only a read that found something new moves freshness; the once-a-second sweep stays one syscall per file.
        if (entry.source.records !== before || entry.run.fileWrittenAt === null)
          await this.touch(entry.run, path);
        this.pushDeltas(entry.run, entry.source);
        if (announce && entry.source.records !== before && entry.source.progress) {
          this.emit('runs.changed', this.listRuns());
        }
      } while (this.readAgain.has(path) && this.sourceByPath.get(path) === entry);
    })().finally(() => this.reading.delete(path));
    this.reading.set(path, job);
    return job;
  }

  private async touch(run: RunState, path: string): Promise<void> {
    try {
      const m = (await stat(path)).mtimeMs;
      if (run.fileWrittenAt === null || m > run.fileWrittenAt) run.fileWrittenAt = m;
    } catch {
      // A vanished file keeps its data; freshness just stops advancing.
    }
  }

  private pushDeltas(run: RunState, source: LiveSource): void {
    let sent = this.emitted.get(source.path);
    if (!sent) {
      sent = new Map();
      this.emitted.set(source.path, sent);
    }
    let reset = false;
    for (const [tag, series] of source.series.entries()) {
      const from = sent.get(tag) ?? 0;
      if (series.length < from) reset = true;
      if (series.length <= from) {
        sent.set(tag, series.length);
        continue;
      }
      const n = series.length - from;
      const delta: SeriesDelta = {
        run: run.run,
        tag,
        from,
        steps: new Float64Array(n),
        wallTimes: new Float64Array(n),
        values: new Float64Array(n),
      };
      for (let i = 0; i < n; i++) {
        delta.steps[i] = series.step(from + i);
        delta.wallTimes[i] = series.wallTime(from + i);
        delta.values[i] = series.value(from + i);
      }
      sent.set(tag, series.length);
      this.emit('series.appended', delta);
    }
    if (reset) this.emit('runs.changed', this.listRuns());
  }
}

function appendColumns(out: ScalarColumns, s: ScalarSeries, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    out.steps.push(s.step(i));
    out.wallTimes.push(s.wallTime(i));
    out.values.push(toWire(s.value(i)));
  }
}

function runInfo(state: RunState): RunInfo {
  const tags = new Set<string>();
  let points = 0;
  let lastWall = -Infinity;
  let progress: RunInfo['progress'] = null;
  for (const s of state.sources) {
    for (const [tag, series] of s.series.entries()) {
      tags.add(tag);
      points += series.length;
      if (series.length > 0) lastWall = Math.max(lastWall, series.wallTime(series.length - 1));
    }
    if (s.progress) progress = { fraction: s.progress.fraction, etaSeconds: s.progress.etaSeconds };
  }
  return {
    run: state.run,
    sources: state.sources.map((s) => ({
      file: basename(s.path),
      format: s.format,
      records: s.records,
      errors: s.errors.map((e) => ({ offset: e.offset, kind: e.kind, message: e.message })),
      dead: false,
    })),
    tags: [...tags].sort(),
    points,
    lastEventAt: Number.isFinite(lastWall) ? Math.round(lastWall * 1000) : null,
    fileWrittenAt: state.fileWrittenAt,
    progress,
    loaded: true,
    restarts: 0,
    worstAlert: null,
    stalled: false,
  };
}
