// Reads a workspace's runs: the live sources by path, one read queue per run, file identity and
// rotation, and syncing the live views (series.reset / series.appended), paced so the event loop never waits long.

import { performance } from 'node:perf_hooks';
import { sep } from 'node:path';
import type { PushPayloads } from '../../shared/contract';
import type { SeriesDelta } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import { LiveView, type ResetReason } from '../series/live-view';
import type { ScalarSeries } from '../series/scalar-series';
import { shownSeriesWriters, writerTag, type TagSource, type Writer } from '../series/writers';
import { yieldToLoop } from '../readers/reader';
import type { LoadProgressTracker } from './load-progress';
import { headsDiffer, HEAD_BYTES, readFileHead } from './file-head';
import { fileInfo, fileInfoSync, fileStampSync, isGone, type FileInfo } from './file-info';
import { updateRunEnd } from './run-end';
import { settleRewrites } from './rewrites';
import {
  databaseOf,
  deadEntry,
  sortEntries,
  sourceKey,
  type LiveEntry,
  type RunState,
  type SourceEntry,
} from './run-state';

/** Formats appended to in place: a file replaced at their path is a rotation (old data stays, dead). */
const APPEND_FORMATS = new Set<SourceFormatName>(['tfevents', 'csv', 'jsonl', 'wandb', 'completions']);

/** Formats whose read depends on the file's bytes alone (no time-based close of a quiet file, no other file
 * beside it, no database of many runs): the sweep passes over one whose stamp is unchanged since its last read. */
const STAMPED_FORMATS = new Set<SourceFormatName>(['tfevents', 'csv', 'jsonl']);

/** View points fed per slice, and the largest delta pushed at once (~6 MB of arrays). */
const FEED_SLICE = 1 << 18;
const DELTA_MAX = 1 << 18;
/** Work between two yields to the event loop, in ms. */
const SLICE_MS = 8;
/** A watched append up to this size on a local disk is read with synchronous calls (`syncTailBytes`): tens of
 * microseconds of page-cache reads and ~0.2 ms of parsing, where five threadpool round trips each waited for a
 * wake-up (the `watch --json` line's p95, docs/BENCHMARKS.md). */
const SYNC_TAIL_BYTES = 64 * 1024;

/** Every delta one read of a run pushed (`series.appended`, each as it went out), in push order: an internal event,
 * so the watch session handles a run's read once, not once per tag (#36). Sent after those deltas, and before
 * any reset or turn of the event loop that follows them. */
export interface SeriesRead {
  run: string;
  deltas: SeriesDelta[];
}

/** What the loader pushes: the contract's deltas and resets, and each read's deltas together. */
export type LoaderEvents = Pick<PushPayloads, 'series.reset' | 'series.appended'> & {
  'series.read': SeriesRead;
};

/** What the loader needs from the workspace hosting it. */
export interface LoaderHost {
  /** Bumped by open/close: a read of an older folder stops when it sees a newer epoch. */
  epoch(): number;
  /** Whether `run` is still a run of the opened folder. */
  isCurrent(run: RunState): boolean;
  emit<E extends keyof LoaderEvents>(event: E, payload: LoaderEvents[E]): void;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  /** The runs' RunInfo changed: now (structure) or throttled (the run that moved has its revision bumped first);
   * `live`: only a loaded run's new points moved it (runs-changed.ts: at most once a second). */
  runsChanged(now?: boolean, live?: boolean): void;
  /** Walk the folder again (a path's file was replaced: what is there now becomes a new source). */
  rediscover(): void;
  /** Keeps the stored points under the memory cap (thinning what passes it): between two slices of work, after a
   * run's first read (`loaded`: checked then unless checks have grown costly, so a load ends under the cap), after
   * an append's read (`append`: at most every second, so watching costs next to nothing). */
  checkMemory(when: 'slice' | 'loaded' | 'append'): void;
}

type Found = { run: RunState; entry: LiveEntry };

export class RunLoader {
  /** Live sources by key (`sourceKey`: the path, and a database's run id); a dead one leaves (a new file at its path
   * is a new source). */
  private readonly sources = new Map<string, Found>();
  /** The live sources reading runs of one database, by its path. */
  private readonly databases = new Map<string, Set<Found>>();
  private lastYield = 0;
  /** Where the sweep goes on next time (a live iterator: sources added or removed meanwhile are fine). */
  private sweepCursor: Iterator<{ run: RunState; entry: LiveEntry }> | null = null;
  /** Sources whose queued read a watch report asked for on a local disk: a small append is read at once. */
  private readonly syncTail = new WeakSet<LiveEntry>();
  /** Views of runs thinned by the memory cap, waiting to be fed again (`resync`). */
  private readonly resyncing = new Set<Promise<void>>();

  constructor(
    private readonly host: LoaderHost,
    private readonly progress: LoadProgressTracker,
  ) {}

  // ---- live sources by path ----

  /** The live source of this key (`sourceKey`). */
  find(key: string): Found | undefined {
    return this.sources.get(key);
  }

  /** The live sources a file event on `path` concerns: the source of that file, or every run of the database it is
   * (with `companions`, also of the database whose `-wal`, `-shm` or `-journal` it is). */
  findFile(path: string, companions = true): Found[] {
    const own = this.sources.get(path);
    if (own) return [own];
    return [...(this.databases.get(companions ? databaseOf(path) : path) ?? [])];
  }

  add(run: RunState, entry: LiveEntry): void {
    const found = { run, entry };
    this.sources.set(sourceKey(entry), found);
    if (entry.member !== undefined) {
      let set = this.databases.get(entry.path);
      if (!set) this.databases.set(entry.path, (set = new Set()));
      set.add(found);
    }
    run.entries.push(entry);
    sortEntries(run.entries);
    run.revision++;
  }

  /**
   * A newer checkpoint holds the run's snapshot: its live snapshot entry reads on from `path` (`name`
   * its sort key), the same reader, so only the entries the newer snapshot adds are new points.
   * Returns the entry moved, or null when the run has none that can move.
   */
  moveSnapshot(run: RunState, path: string, name: string): LiveEntry | null {
    const entry = run.entries.find((e): e is LiveEntry => e.state === 'live' && e.snapshot && this.isLive(e));
    if (!entry?.live.moveTo) return null;
    this.sources.delete(entry.path);
    entry.live.moveTo(path);
    Object.assign(entry, { path, name, identity: null, mtimeMs: null, head: null, unlinkSeen: false });
    this.sources.set(path, { run, entry });
    sortEntries(run.entries);
    run.revision++;
    return entry;
  }

  /** Live snapshot entries, for rediscovery to retire those discovery no longer lists. */
  snapshots(): { run: RunState; entry: LiveEntry }[] {
    return [...this.sources.values()].filter(({ entry }) => entry.snapshot);
  }

  /**
   * The sweep that catches missed file events: asks up to `max` live sources for what is new, going
   * round the sources over successive calls (every source each call while there are at most `max`).
   * Bounded so 10k runs do not cost 10k stat calls a second. `syncTail` (a local disk): each source's check is the
   * synchronous tail read (open, fstat, close: microseconds), not a threadpool read with its two 1 MiB buffers
   * (with 50 live runs, 100 MiB allocated a second and a sixth of the process's time in the collector).
   */
  sweep(max: number, opts: { syncTail?: boolean } = {}): void {
    for (let n = 0; n < max; n++) {
      this.sweepCursor ??= this.sources.values();
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = null;
        return;
      }
      const { run, entry } = next.value;
      // A local file whose stamp is the one taken before its last read has nothing new: one stat, no open.
      if (
        opts.syncTail &&
        run.loaded &&
        entry.stamp &&
        this.stamped(entry) &&
        entry.stamp === fileStampSync(entry.path)
      )
        continue;
      void this.requestRead(run, entry, opts);
    }
  }

  /** Whether the sweep may pass over `entry` on an unchanged stamp: a format read from its bytes alone, and
   * nothing pending (a deleted path, an unreadable file's io error waiting to be retried). */
  private stamped(entry: LiveEntry): boolean {
    return (
      STAMPED_FORMATS.has(entry.format) &&
      entry.member === undefined &&
      !entry.snapshot &&
      !entry.unlinkSeen &&
      !entry.live.samples &&
      !entry.live.errors.some((e) => e.kind === 'io')
    );
  }

  closeAll(): void {
    for (const { entry } of this.sources.values()) entry.live.close();
    this.sources.clear();
    this.databases.clear();
    this.sweepCursor = null;
  }

  private isLive(entry: LiveEntry): boolean {
    return this.sources.get(sourceKey(entry))?.entry === entry;
  }

  // ---- pacing ----

  /** Yields to the event loop (timers, IO, requests) and reports load progress. A reader's slice (series grew)
   * checks the memory cap first; a slice of feeding views (`grew` false) does not: it adds no series bytes, and the
   * checks it made were most of the guard's (all 2,500 series summed up to 50 times a second while 50 runs log). */
  async pause(grew = true): Promise<void> {
    if (grew) this.host.checkMemory('slice');
    await yieldToLoop();
    this.lastYield = performance.now();
    this.progress.report();
  }

  // ---- the read queue ----

  enqueue(run: RunState, job: () => Promise<void>): Promise<void> {
    const p = run.chain.then(job).catch((e: unknown) => {
      this.host.notice('error', `${run.run}: internal error while reading: ${message(e)}`);
    });
    run.chain = p;
    return p;
  }

  /** First read of a run: every source, then every tag's view once (so format choice sees all sources). */
  async loadRun(run: RunState): Promise<void> {
    const epoch = this.host.epoch();
    const dirty = new Map<string, ResetReason>();
    for (const entry of [...run.entries]) {
      if (entry.state === 'live') {
        this.progress.readingNow(entry.live);
        await this.readEntry(run, entry, dirty);
        this.progress.readingNow(null);
      }
      this.progress.sourceRead(entry.size);
      if (epoch !== this.host.epoch()) return;
      this.progress.report();
    }
    this.host.checkMemory('loaded');
    await this.syncViews(run, dirty);
    await updateRunEnd(run);
    run.revision++;
  }

  /** Reads one source of a loaded run and updates the views; requests while one waits are coalesced.
   * `syncTail`: a watch report on a local disk asks (a small append is read with synchronous calls). */
  requestRead(run: RunState, entry: SourceEntry, opts: { syncTail?: boolean } = {}): Promise<void> {
    if (!run.loaded || entry.state === 'dead' || !this.isLive(entry)) return Promise.resolve();
    if (opts.syncTail) this.syncTail.add(entry);
    if (entry.queued) return entry.queued;
    const epoch = this.host.epoch();
    const live = entry.live;
    const job = this.enqueue(run, async () => {
      entry.queued = null;
      const syncTail = this.syncTail.delete(entry);
      if (epoch !== this.host.epoch() || !this.isLive(entry)) return;
      const dirty = new Map<string, ResetReason>();
      const recordsBefore = live.records;
      const errorsBefore = live.errors.length;
      const writtenBefore = run.fileWrittenAt;
      const mtimeBefore = entry.mtimeMs;
      // Taken before the read: whatever it saw, the read reads (a write after it changes the stamp).
      entry.stamp = syncTail && this.stamped(entry) ? fileStampSync(entry.path) : null;
      await this.readEntry(run, entry, dirty, syncTail);
      if (epoch !== this.host.epoch()) return;
      this.host.checkMemory('append');
      await this.syncViews(run, dirty);
      // Points (freshness, counts), errors and the run's end are RunInfo: announce them. Only a W&B log or an
      // MLflow run's status says how a run ended: other sources' reads (every second by the sweep) cost no extra stat.
      const ended = entry.format === 'wandb' || entry.format === 'mlflow' ? await updateRunEnd(run) : false;
      const announce =
        ended ||
        (this.isLive(entry) && (live.records !== recordsBefore || live.errors.length !== errorsBefore));
      // The sweep's reads that found nothing new (every source every second) leave the run's RunInfo as it was.
      if (announce || dirty.size > 0 || run.fileWrittenAt !== writtenBefore || entry.mtimeMs !== mtimeBefore)
        run.revision++;
      if (announce) this.host.runsChanged(false, run.loaded && !ended && live.errors.length === errorsBefore);
    });
    entry.queued = job;
    return job;
  }

  /**
   * A file event said `path` was removed: once queued reads are done, a source whose file is gone
   * dies. If a file is already back at the path, it is another file (deleted, then re-created: on a
   * filesystem without birth times the inode alone would take it for the old one, truncated).
   */
  removeIfGone(path: string): void {
    for (const found of this.findFile(path, false)) this.removeSourceIfGone(path, found);
  }

  /** A watched folder was deleted or moved away: each source under it is checked as `removeIfGone` checks one. */
  removeUnderIfGone(folder: string): void {
    const under = folder + sep;
    const paths = new Set<string>();
    for (const { entry } of this.sources.values()) if (entry.path.startsWith(under)) paths.add(entry.path);
    for (const path of paths) this.removeIfGone(path);
  }

  private removeSourceIfGone(path: string, found: Found): void {
    // A run's snapshot moves to the next newest checkpoint rather than dying: rediscovery decides.
    if (found.entry.snapshot) return this.host.rediscover();
    found.entry.unlinkSeen = true;
    const epoch = this.host.epoch();
    void this.enqueue(found.run, async () => {
      if (epoch !== this.host.epoch() || !this.isLive(found.entry)) return;
      const info = await fileInfo(path);
      if (epoch !== this.host.epoch()) return;
      if (info === null) this.markDead(found.run, found.entry);
      else if (found.entry.unlinkSeen) this.replacedAfterUnlink(found.run, found.entry, info);
    });
  }

  /** Marks a source dead once its file is gone (a snapshot discovery no longer lists). */
  dieIfGone(run: RunState, entry: LiveEntry): Promise<void> {
    const epoch = this.host.epoch();
    return this.enqueue(run, async () => {
      if (epoch === this.host.epoch() && (await isGone(entry.path))) this.markDead(run, entry);
    });
  }

  /** Deleted and re-created before any read noticed: an append log's data stays as a dead source and the
   * file now at the path is read from its start as a new source (JSON documents are read whole anyway).
   * Where the filesystem keeps birth times the identity tells (the reader starts over by itself). */
  private replacedAfterUnlink(run: RunState, entry: LiveEntry, now: FileInfo): void {
    entry.unlinkSeen = false;
    if (!APPEND_FORMATS.has(entry.format) || now.birthTime) return;
    this.markDead(run, entry);
    this.host.rediscover();
  }

  /** Reads what is new in one source; records in `dirty` the tags whose views must be refreshed. */
  private async readEntry(
    run: RunState,
    entry: LiveEntry,
    dirty: Map<string, ResetReason>,
    syncTail = false,
  ): Promise<void> {
    if (entry.unlinkSeen) {
      // Deleted, and a file is back: reading on could take the new file's bytes for the old one's
      // (from the old offset, or as a truncation).
      const now = await fileInfo(entry.path);
      if (now && this.isLive(entry)) {
        this.replacedAfterUnlink(run, entry, now);
        if (!this.isLive(entry)) return;
      }
    }
    const live = entry.live;
    const oldSet = entry.set;
    const recordsBefore = live.records;
    const errorsBefore = live.errors; // readers replace the array when it changes: no copy needed
    const configBefore = live.config;
    // Points can come without records: a sample source charts a step's means once its file has gone quiet.
    const pointsBefore = live.samples ? oldSet.pointCount() : null;
    await live.readMore(syncTail ? { syncTailBytes: SYNC_TAIL_BYTES } : {});
    if (!this.host.isCurrent(run) || !this.isLive(entry)) return;
    if (live.series !== oldSet) {
      // The reader started over: the file shrank (truncated) or another file took its path (rotation).
      // Another file, not the old one cut short: another identity, or (where the filesystem keeps no
      // birth time, so a reused inode looks the same) a different start. With birth times the
      // identity decides: a file truncated and rewritten in place is a truncation whatever it holds.
      const info = await fileInfo(entry.path);
      const noBirthTime = APPEND_FORMATS.has(entry.format) && info !== null && !info.birthTime;
      const head = noBirthTime ? await readFileHead(entry.path) : null;
      const replaced =
        APPEND_FORMATS.has(entry.format) &&
        entry.identity !== null &&
        (info === null || info.identity !== entry.identity || headsDiffer(entry.head, head));
      entry.head = head;
      // The old data stays, as a dead source; the live one reads the new file. A file cut short by its writer
      // keeps its earlier contents too (a restarted trainer truncating its log starts a session), unless what
      // it is rewritten with repeats them (settleRewrites).
      const truncated = !replaced && oldSet.pointCount() > 0;
      if (replaced || truncated) {
        const dead = deadEntry(entry, {
          records: recordsBefore,
          errors: errorsBefore,
          config: configBefore,
          set: oldSet,
        });
        if (truncated) dead.rewritten = 'pending';
        run.entries.push(dead);
        entry.gen = ++run.gens;
        sortEntries(run.entries);
        this.host.runsChanged(true);
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
      const info = syncTail ? fileInfoSync(entry.path) : await fileInfo(entry.path);
      if (info) {
        entry.identity = info.identity;
        entry.mtimeMs = info.mtimeMs;
        if (
          !info.birthTime &&
          APPEND_FORMATS.has(entry.format) &&
          (entry.head?.length ?? 0) < Math.min(HEAD_BYTES, info.size)
        )
          entry.head = await readFileHead(entry.path);
        // A database's file is written for all its runs (and in WAL mode seldom): its runs' freshness is their rows' times.
        if (entry.member === undefined && (run.fileWrittenAt === null || info.mtimeMs > run.fileWrittenAt))
          run.fileWrittenAt = info.mtimeMs;
      } else if (live.errors.some((e) => e.kind === 'io') && (await isGone(entry.path))) {
        // Gone, not unreadable: an unreadable file (permission denied) keeps its io error and stays live.
        // A snapshot waits for rediscovery to move it to the next checkpoint (or retire it).
        if (!entry.snapshot) this.markDead(run, entry);
        return;
      }
    }
    if (
      live.records !== recordsBefore ||
      entry.set !== oldSet ||
      (pointsBefore !== null && entry.set.pointCount() !== pointsBefore)
    )
      for (const [tag] of entry.set.entries()) if (!dirty.has(tag)) dirty.set(tag, 'bulk');
    if (settleRewrites(run, entry, dirty)) this.host.runsChanged(true);
  }

  /** The file is gone: its data stays in the views, it reads no more; a new file there is a new source. */
  private markDead(run: RunState, entry: LiveEntry): void {
    if (!this.isLive(entry)) return;
    const live = entry.live;
    const dead = deadEntry(entry, {
      records: live.records,
      errors: live.errors.filter((e) => e.kind !== 'io'),
      config: live.config,
      set: entry.set,
    });
    const at = run.entries.indexOf(entry);
    if (at >= 0) run.entries[at] = dead;
    live.close();
    const key = sourceKey(entry);
    const found = this.sources.get(key);
    this.sources.delete(key);
    if (found) this.databases.get(entry.path)?.delete(found);
    this.host.runsChanged(true);
  }

  /** Series of `run` were thinned (memory cap): its views drop the old indices at once, and are fed again and
   * pushed (a 'bulk' reset) in the run's read order. */
  resync(run: RunState): void {
    for (const view of run.views.values()) view.dropStale();
    const tags = new Map<string, ResetReason>();
    for (const e of run.entries) for (const [tag] of e.set.entries()) tags.set(tag, 'bulk');
    const epoch = this.host.epoch();
    const job = this.enqueue(run, async () => {
      if (epoch === this.host.epoch() && this.host.isCurrent(run)) await this.syncViews(run, tags);
      run.revision++;
    });
    this.resyncing.add(job);
    void job.finally(() => this.resyncing.delete(job));
  }

  /** Resolves once every view thinning left to feed again is fed (a load is done only then). */
  async resynced(): Promise<void> {
    while (this.resyncing.size > 0) await Promise.all(this.resyncing);
  }

  /** Refreshes the views of `tags` (source tags: each writer of one is a view) and pushes what changed:
   * resets, then appended points. */
  async syncViews(run: RunState, tags: Map<string, ResetReason>): Promise<void> {
    const epoch = this.host.epoch();
    const read: SeriesDelta[] = [];
    for (const [tag, reason] of tags) {
      // Most tags (every tag of every read with 50 runs × 50 tags, #36) have one source and always had: their view
      // is fed from that series, with no writers to work out.
      const sole = run.writerTags.has(tag) ? null : soleSeries(run, tag);
      if (sole) {
        let view = run.views.get(tag);
        if (!view) {
          view = new LiveView();
          run.views.set(tag, view);
        }
        view.setParts(sole, reason);
        while (this.pushView(run, tag, view, read)) {
          this.sendRead(run, read);
          await this.pause(false);
          if (epoch !== this.host.epoch()) return;
        }
      } else if (!(await this.syncWriters(run, tag, reason, epoch, read))) return;
      // Only when the slice is spent: an await per tag was two microtask turns per tag of every read
      // (2,500 a second with 50 runs × 50 tags, #36).
      if (performance.now() - this.lastYield > SLICE_MS) {
        this.sendRead(run, read);
        await this.pause(false);
        if (epoch !== this.host.epoch()) return;
      }
    }
    this.sendRead(run, read);
  }

  /** Sends the deltas gathered since the last send as one `series.read`, and empties the list. */
  private sendRead(run: RunState, read: SeriesDelta[]): void {
    if (read.length === 0) return;
    this.host.emit('series.read', { run: run.run, deltas: read.slice() });
    read.length = 0;
  }

  /** A tag's views, one per writer (series/writers.ts); false when the folder changed meanwhile. */
  private async syncWriters(
    run: RunState,
    tag: string,
    reason: ResetReason,
    epoch: number,
    read: SeriesDelta[],
  ): Promise<boolean> {
    const writers = writersOf(run, tag);
    const shown = writers.map((w) => writerTag(tag, w.label));
    const before = run.writerTags.get(tag);
    if (before)
      for (const gone of before)
        if (!shown.includes(gone) && run.views.delete(gone)) this.host.runsChanged(true);
    if (shown.length > 1 || before) run.writerTags.set(tag, shown);
    for (let k = 0; k < writers.length; k++) {
      const viewTag = shown[k]!;
      let view = run.views.get(viewTag);
      if (!view) {
        view = new LiveView();
        run.views.set(viewTag, view);
      }
      view.setParts(
        writers[k]!.sources.map((x) => x.ref),
        reason,
      );
      while (this.pushView(run, viewTag, view, read)) {
        this.sendRead(run, read);
        await this.pause(false);
        if (epoch !== this.host.epoch()) return false;
      }
    }
    return true;
  }

  /** Feeds a view one slice and pushes its reset and deltas (kept in `read` too); true when it has more to feed. */
  private pushView(run: RunState, viewTag: string, view: LiveView, read: SeriesDelta[]): boolean {
    const fed = view.feed(FEED_SLICE);
    const reset = view.takeReset();
    if (reset) {
      // The read's earlier deltas go out as one before the reset.
      this.sendRead(run, read);
      this.host.emit('series.reset', { run: run.run, tag: viewTag, reason: reset });
    }
    for (let d = view.takeDelta(DELTA_MAX); d; d = view.takeDelta(DELTA_MAX)) {
      const delta: SeriesDelta = {
        run: run.run,
        tag: viewTag,
        from: d.from,
        steps: d.steps,
        wallTimes: d.wallTimes,
        values: d.values,
      };
      this.host.emit('series.appended', delta);
      read.push(delta);
    }
    return fed >= FEED_SLICE;
  }
}

/** The one series of `tag` when a single source of the run carries it (as a one-part list), else null. */
export function soleSeries(run: RunState, tag: string): ScalarSeries[] | null {
  let found: ScalarSeries | undefined;
  for (const e of run.entries) {
    if (!e.set.has(tag)) continue;
    if (found) return null;
    found = e.set.get(tag);
  }
  return found ? [found] : null;
}

/** The writers of `tag`: the sources of the best-ranked format carrying it, in file order, split where they
 * were written at the same time (series/writers.ts). */
export function writersOf(run: RunState, tag: string): Writer<ScalarSeries>[] {
  const sources: TagSource[] = [];
  for (const e of run.entries) {
    if (e.set.has(tag)) sources.push({ name: e.name, format: e.format, series: e.set.get(tag) });
  }
  return shownSeriesWriters(sources);
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
