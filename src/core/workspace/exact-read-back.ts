// Exact values read back from the files for a zoomed, session or exported window of a series the memory cap thinned:
// the thinned parts re-read from their live files (one file at a time, a read shared by every request waiting on
// it), the exact views kept in a cache bounded in bytes; a window the cache cannot answer exactly is the envelope's.

import type { SeriesWindow } from '../../shared/domain';
import { LiveView, type WindowQuery } from '../series/live-view';
import { ScalarSeries } from '../series/scalar-series';
import type { SeriesSet } from '../series/series-set';
import { writerTag } from '../series/writers';
import { readSource } from '../sources/registry';
import { fileInfo } from './file-info';
import { writersOf } from './run-loader';
import type { RunState, SourceEntry } from './run-state';

export type ExactQuery = WindowQuery & { session?: number };

/** Bytes a stored point takes in a read-back series (f64 step, wall time and value; as the reader holds them). */
const POINT_BYTES = 24;

export interface ReadBackLimits {
  /** Bytes the cached exact views may take in all (oldest dropped first). */
  cacheBytes: number;
  /** A file whose points (every tag's, as read) would take more than this is read back only for the tag asked, and
   * only an event file (the one format whose read skips other tags); past it for that tag too, its envelope stays. */
  fileBytes: number;
}

/** The limits for a memory cap: one file's read takes at most a quarter of it, the cache an eighth (thinning brings
 * stored points down to 40 % of the cap: these fit beside them and the process's own code, heap and buffers). */
export function readBackLimits(capBytes: number): ReadBackLimits {
  return { cacheBytes: capBytes / 8, fileBytes: capBytes / 4 };
}

/** One part of a shown tag's view: its stored series and the entry it came from. */
interface Part {
  stored: ScalarSeries;
  entry: SourceEntry;
}

/** The exact points of a run's shown tag (or one session of it) over a range wider than the window asked, and what
 * the live view held when they were read. */
interface Snapshot {
  axis: 'step' | 'wall';
  min: number;
  max: number;
  /** The exact points in [min, max] (every one, or per-pixel min/max of `EXACT_POINTS / 2` buckets). */
  points: LiveView;
  downsampled: boolean;
  /** The last step and wall time read then: a later point may fall in the range only past them. */
  stepMax: number;
  wallMax: number;
  /** The stored parts it stands for, in order, and each one's points read then (`length + dropped`). */
  parts: ScalarSeries[];
  read: number[];
  restarts: number;
  bytes: number;
}

/** Exact points a snapshot holds at most (24 MB): a wider range keeps per-pixel min/max, finer than any chart. */
const EXACT_POINTS = 1_000_000;

/** Points read into a series so far: those held and those the cap thinned away. */
const readCount = (s: ScalarSeries): number => s.length + s.dropped;

/** What a thinned series' exact window is asked over: a range (a zoom) on one axis, maybe one session. */
interface Ranged {
  axis: 'step' | 'wall';
  xMin: number;
  xMax: number;
  session?: number;
}

function rangeOf(q: ExactQuery): Ranged | null {
  if (q.xMin === undefined || q.xMax === undefined || !(q.xMin <= q.xMax)) return null;
  return {
    axis: q.axis ?? 'step',
    xMin: q.xMin,
    xMax: q.xMax,
    ...(q.session === undefined ? {} : { session: q.session }),
  };
}

const keyOf = (run: string, tag: string, session?: number): string => `${run}\0${tag}\0${session ?? ''}`;

export class ExactReadBack {
  /** By run, shown tag and session, oldest first (a Map keeps insertion order: a hit is moved to the end). */
  private readonly cache = new Map<string, Snapshot>();
  private cachedBytes = 0;
  /** One file read at a time; requests for a file being read wait for that read. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly reading = new Map<string, Promise<SeriesSet | null>>();

  constructor(
    private readonly limits: ReadBackLimits,
    private readonly read: typeof readSource = readSource,
  ) {}

  /** Forgets every exact view (the folder was closed). */
  clear(): void {
    this.cache.clear();
    this.cachedBytes = 0;
  }

  /** The exact window of a thinned series over a range from a fresh snapshot; null when none answers `q` exactly
   * (no range asked, the series not thinned, nothing read back for that range, or the live view moved on). */
  window(state: RunState, shownTag: string, q: ExactQuery): SeriesWindow | null {
    const r = rangeOf(q);
    const live = state.views.get(shownTag);
    if (!r || !live) return null;
    const key = keyOf(state.run, shownTag, r.session);
    const snap = this.cache.get(key);
    if (!snap) return null;
    const parts = partsOf(state, shownTag);
    if (!parts || !fresh(snap, parts, live, r, q.pixels)) return null;
    this.cache.delete(key);
    this.cache.set(key, snap);
    const base = r.session === undefined ? live.window(q) : live.sessionWindow(r.session, q);
    if (!base) return null;
    const points = snap.points.window({ pixels: q.pixels, xMin: r.xMin, xMax: r.xMax, axis: r.axis });
    return {
      ...base,
      run: state.run,
      tag: shownTag,
      steps: points.steps,
      wallTimes: points.wallTimes,
      values: points.values,
      inRange: points.inRange,
      downsampled: points.downsampled,
    };
  }

  /** Reads back the thinned parts of `shownTag` when a ranged window of it is not yet answered exactly, keeping the
   * exact points of a range three times as wide (a pan nearby needs no read); resolves once done, or not possible
   * (gone or replaced files, files over the read limit). Never rejects. */
  async prepare(state: RunState, shownTag: string, q: ExactQuery): Promise<void> {
    const r = rangeOf(q);
    const live = state.views.get(shownTag);
    const parts = partsOf(state, shownTag);
    if (!r || !live || !parts || !parts.some((p) => p.stored.dropped > 0)) return;
    if (this.window(state, shownTag, q)) return;
    const exact: ScalarSeries[] = [];
    let readBack = false;
    for (const p of parts) {
      const got = p.stored.dropped > 0 ? await this.exactPart(state, p, shownTag) : null;
      if (got) readBack = true;
      exact.push(got ?? p.stored);
    }
    // Every thinned part's file was gone, replaced or over the limit: nothing exact to keep.
    if (!readBack) return;
    const view = new LiveView();
    view.setParts(exact, 'bulk');
    view.feed(Number.POSITIVE_INFINITY);
    const width = r.xMax - r.xMin;
    const min = r.xMin - width;
    const max = r.xMax + width;
    const w =
      r.session === undefined
        ? view.window({ pixels: EXACT_POINTS / 2, xMin: min, xMax: max, axis: r.axis })
        : view.sessionWindow(r.session, { pixels: EXACT_POINTS / 2, xMin: min, xMax: max, axis: r.axis });
    if (!w) return;
    const kept = new ScalarSeries(w.steps.length, 'f64');
    for (let i = 0; i < w.steps.length; i++) kept.append(w.steps[i]!, w.wallTimes[i]!, w.values[i]!);
    const points = new LiveView();
    points.setParts([kept], 'bulk');
    points.feed(Number.POSITIVE_INFINITY);
    const extent = view.extent();
    this.put(keyOf(state.run, shownTag, r.session), {
      axis: r.axis,
      min,
      max,
      points,
      downsampled: w.downsampled,
      stepMax: extent?.stepMax ?? Number.NEGATIVE_INFINITY,
      wallMax: extent?.wallMax ?? Number.NEGATIVE_INFINITY,
      parts: parts.map((p) => p.stored),
      read: parts.map((p) => readCount(p.stored)),
      restarts: live.restarts.length,
      bytes: kept.byteSize,
    });
  }

  /** `tag`'s exact series in the part's file, or null: a dead entry (its path may hold another file now), a file
   * replaced or cut short since it was read, one over the size limit, or a read that failed. */
  private async exactPart(state: RunState, p: Part, shownTag: string): Promise<ScalarSeries | null> {
    const e = p.entry;
    if (e.state !== 'live' || e.identity === null) return null;
    const tag = sourceTagOf(state, shownTag);
    let points = 0;
    for (const [, s] of e.set.entries()) points += readCount(s);
    // A file too large to read whole: an event file's read keeps just this tag where that fits (read for it alone).
    let only: string | null = null;
    if (points * POINT_BYTES > this.limits.fileBytes) {
      if (e.format !== 'tfevents' || readCount(p.stored) * POINT_BYTES > this.limits.fileBytes) return null;
      only = tag;
    }
    let key = e.member === undefined ? e.path : `${e.path}\0${e.member}`;
    if (only !== null) key += `\0\0${only}`;
    let pending = this.reading.get(key);
    if (!pending) {
      pending = this.queue.then(() => this.readFile(e, only));
      this.queue = pending;
      this.reading.set(key, pending);
      void pending.finally(() => this.reading.delete(key));
    }
    const set = await pending;
    if (!set?.has(tag)) return null;
    const s = set.get(tag);
    // Fewer points than were read from it: not the file the stored series came from.
    return s.length >= readCount(p.stored) ? s : null;
  }

  /** The series of `e`'s file (`only`: just that tag's), or null: the file replaced since, or a failed read. */
  private async readFile(e: SourceEntry, only: string | null): Promise<SeriesSet | null> {
    try {
      const before = await fileInfo(e.path);
      if (!before || before.identity !== e.identity) return null;
      const r = await this.read(e.path, e.format, {
        workers: true,
        ...(e.member === undefined ? {} : { member: e.member }),
        ...(only === null ? {} : { onlyScalars: [only] }),
      });
      return r.series;
    } catch {
      return null;
    }
  }

  private put(key: string, snap: Snapshot): void {
    if (snap.bytes > this.limits.cacheBytes) return;
    const old = this.cache.get(key);
    if (old) {
      this.cachedBytes -= old.bytes;
      this.cache.delete(key);
    }
    for (const [k, s] of this.cache) {
      if (this.cachedBytes + snap.bytes <= this.limits.cacheBytes) break;
      this.cache.delete(k);
      this.cachedBytes -= s.bytes;
    }
    this.cache.set(key, snap);
    this.cachedBytes += snap.bytes;
  }
}

/** The source tag a shown tag is a writer of (`loss (validation)` → `loss` where the run split it). */
function sourceTagOf(state: RunState, shownTag: string): string {
  for (const [tag, shown] of state.writerTags) if (shown.includes(shownTag)) return tag;
  return shownTag;
}

/** The parts of a shown tag's live view and their entries, as the loader set them (run-loader's `writersOf`). */
function partsOf(state: RunState, shownTag: string): Part[] | null {
  const tag = sourceTagOf(state, shownTag);
  const writer = writersOf(state, tag).find((w) => writerTag(tag, w.label) === shownTag);
  if (!writer) return null;
  const parts: Part[] = [];
  for (const src of writer.sources) {
    const entry = state.entries.find((e) => e.set.has(tag) && e.set.get(tag) === src.ref);
    if (!entry) return null;
    parts.push({ stored: src.ref, entry });
  }
  return parts;
}

/** Whether a snapshot answers a range exactly: inside its range, the same parts, no restart since, no point read since that could fall in the range, and fine enough (every point,
 * or at least two per pixel of the window). */
function fresh(snap: Snapshot, parts: Part[], live: LiveView, r: Ranged, pixels: number): boolean {
  if (r.axis !== snap.axis || r.xMin < snap.min || r.xMax > snap.max) return false;
  if (parts.length !== snap.parts.length || live.restarts.length !== snap.restarts) return false;
  let grown = false;
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i]!.stored;
    if (s !== snap.parts[i]) return false;
    if (readCount(s) !== snap.read[i]) grown = true;
  }
  if (grown && r.xMax > (r.axis === 'wall' ? snap.wallMax : snap.stepMax)) return false;
  if (!snap.downsampled) return true;
  return snap.points.window({ pixels: 1, xMin: r.xMin, xMax: r.xMax, axis: r.axis }).inRange >= 2 * pixels;
}
