// The live view of one run's tag: segments over the sources' own ScalarSeries (no copies), restarts cut in, and
// every session (the points written between two restarts) kept whole.

import type { RestartMark, SeriesReset, SeriesWindow, SessionInfo } from '../../shared/domain';
import { BLOCK_SCAN_THRESHOLD, blockIndexOf } from './block-index';
import { lowerBound } from './downsample';
import type { ScalarSeries } from './scalar-series';
import { SegmentList, type ViewPoints, type WindowQuery } from './segment-list';

export type { Segment, ViewPoints, WindowQuery } from './segment-list';

export type ResetReason = SeriesReset['reason'];

interface Part {
  series: ScalarSeries;
  /** Points of the series already fed into the segments. */
  consumed: number;
  /** The series' `dropped` when fed: thinning (memory cap) since moved every index. */
  dropped: number;
}

/**
 * The points of one tag as the user sees them: the given series (one per source, in file order)
 * concatenated, except that a step lower than the highest seen is a restart (TensorBoard's
 * preemption rule): points before it with step >= the restart step leave the view (they stay in
 * the source series) and a RestartMark records it. The view is therefore sorted by step: the run as it
 * now stands.
 *
 * Sessions: each restart starts a session; a session is every point written between two restarts, in
 * write order (steps non-decreasing), whatever the view later cut. Sessions are never dropped: a crashed
 * session's tail stays readable (`sessionWindow`, `sessionPoints`) after the restart hid it from the view.
 *
 * Memory: a few numbers per segment; the points themselves are only referenced.
 * Consumers learn about changes through `takeReset()` and `takeDelta()`: after a reset, the next
 * delta's `from` is where the view continues; points before `from` are unchanged.
 */
export class LiveView {
  private parts: Part[] = [];
  private readonly view = new SegmentList();
  /** Every session's own points, in write order; the last is the current one. */
  private readonly sessionLists: SegmentList[] = [];
  /** Index of the part being fed; parts before it are fully consumed. */
  private cursor = 0;
  private maxStep = Number.NEGATIVE_INFINITY;
  private _restarts: RestartMark[] = [];
  /** View points consumers were sent. */
  private emitted = 0;
  private pendingReset: ResetReason | null = null;

  get length(): number {
    return this.view.length;
  }

  get restarts(): readonly RestartMark[] {
    return this._restarts;
  }

  /** Whether every part holds float32 values (their exact text is float32's shortest form). */
  get float32(): boolean {
    return this.parts.every((p) => !p.series.isDouble);
  }

  /** Sessions so far (0 before any point). */
  get sessionCount(): number {
    return this.sessionLists.length;
  }

  /** Points of the parts not yet fed into the view. */
  get backlog(): number {
    let n = 0;
    for (let p = this.cursor; p < this.parts.length; p++) {
      const part = this.parts[p]!;
      n += Math.max(0, part.series.length - part.consumed);
    }
    return n;
  }

  /** Sets the series making up the view, in order. When the old list is not a prefix of the new one
   * (same series objects, none shrunk), the view starts over and consumers get `reason`. */
  setParts(series: readonly ScalarSeries[], reason: ResetReason): void {
    let prefix = series.length >= this.parts.length;
    for (let i = 0; prefix && i < this.parts.length; i++) {
      const old = this.parts[i]!;
      if (old.series !== series[i] || series[i]!.length < old.consumed || series[i]!.dropped !== old.dropped)
        prefix = false;
    }
    if (!prefix) {
      this.rebuild(series, reason);
      return;
    }
    for (let i = this.parts.length; i < series.length; i++)
      this.parts.push({ series: series[i]!, consumed: 0, dropped: series[i]!.dropped });
  }

  /** A part was thinned (memory cap) since it was fed: its indices moved, so the view starts over at once (a
   * window asked before the next feed must not read the old indices); consumers get a 'bulk' reset. */
  dropStale(): boolean {
    if (this.parts.every((p) => p.series.dropped === p.dropped)) return false;
    this.rebuild(
      this.parts.map((p) => p.series),
      'bulk',
    );
    return true;
  }

  /** Feeds up to `budget` new points of the parts into the view; returns how many it fed. */
  feed(budget: number): number {
    this.dropStale();
    // A part before the one being fed grew: its points belong earlier in the view, so start over.
    for (let p = 0; p < this.cursor; p++) {
      const part = this.parts[p]!;
      if (part.series.length !== part.consumed) {
        this.rebuild(
          this.parts.map((q) => q.series),
          'bulk',
        );
        break;
      }
    }
    let done = 0;
    while (this.cursor < this.parts.length && done < budget) {
      const part = this.parts[this.cursor]!;
      const n = part.series.length;
      if (part.consumed >= n) {
        if (this.cursor === this.parts.length - 1) break;
        this.cursor++;
        continue;
      }
      done += this.feedPart(part, Math.min(n, part.consumed + (budget - done)));
    }
    return done;
  }

  private feedPart(part: Part, stop: number): number {
    const series = part.series;
    const steps = series.steps();
    const first = part.consumed;
    let runStart = first;
    let max = this.maxStep;
    if (first < stop && this.sessionLists.length === 0) this.sessionLists.push(new SegmentList());
    for (let i = first; i < stop; i++) {
      const st = steps[i]!;
      if (st < max) {
        this.accept(series, runStart, i);
        this.cut(st, series.wallTime(i));
        this.sessionLists.push(new SegmentList());
        runStart = i;
        max = st;
      } else if (st > max) max = st;
    }
    this.accept(series, runStart, stop);
    this.maxStep = max;
    part.consumed = stop;
    // Fed points are final: summarise their blocks now (inside the caller's slice) for fast windows.
    if (stop >= BLOCK_SCAN_THRESHOLD) blockIndexOf(series).update(series, stop);
    return stop - first;
  }

  /** Points [start, end) of `series` join the view and the current session. */
  private accept(series: ScalarSeries, start: number, end: number): void {
    this.view.append(series, start, end);
    this.sessionLists[this.sessionLists.length - 1]!.append(series, start, end);
  }

  /** A restart at `step`: drops every view point with step >= step (the view is sorted by step). */
  private cut(step: number, wallTime: number): void {
    const segments = this.view.segments;
    let dropped = 0;
    while (segments.length > 0) {
      const s = segments[segments.length - 1]!;
      const j = lowerBound(s.series.steps(), step, s.start, s.end);
      dropped += s.end - j;
      s.end = j;
      if (j > s.start) break;
      segments.pop();
    }
    this.view.length -= dropped;
    this._restarts.push({ step, wallTime, dropped });
    if (this.emitted > this.view.length) {
      this.emitted = this.view.length;
      this.pendingReset ??= 'restart';
    }
  }

  private rebuild(series: readonly ScalarSeries[], reason: ResetReason): void {
    this.parts = series.map((s) => ({ series: s, consumed: 0, dropped: s.dropped }));
    this.view.clear();
    this.sessionLists.length = 0;
    this.cursor = 0;
    this.maxStep = Number.NEGATIVE_INFINITY;
    this._restarts = [];
    if (this.emitted > 0) this.pendingReset = reason;
    this.emitted = 0;
  }

  /** The reset consumers must be told about (once), or null. */
  takeReset(): ResetReason | null {
    const r = this.pendingReset;
    this.pendingReset = null;
    return r;
  }

  /** The next up to `max` points consumers have not been sent, or null when they have everything. */
  takeDelta(max = Number.POSITIVE_INFINITY): ViewPoints | null {
    if (this.emitted >= this.view.length) return null;
    const from = this.emitted;
    const to = Math.min(this.view.length, from + Math.max(1, max));
    this.emitted = to;
    return this.view.gather(from, to);
  }

  /** Full-resolution points [from, to) of the view. */
  gather(from: number, to: number): ViewPoints {
    return this.view.gather(from, to);
  }

  extent(): SeriesWindow['extent'] {
    return this.view.extent();
  }

  /** What each session holds, in write order (1-based `index`). */
  sessions(): SessionInfo[] {
    return this.sessionLists.map((s, k) => sessionInfo(s, k + 1));
  }

  /** Every point session `index` (1-based) wrote, in write order; null for no such session. */
  sessionPoints(index: number): ViewPoints | null {
    const s = this.sessionLists[index - 1];
    return s ? s.gather(0, s.length) : null;
  }

  /**
   * Display points over [xMin, xMax] (whole view by default) in `axis` units: every point when at
   * most 2 per pixel are in range, else per-pixel min/max over pixels/2 buckets (spikes survive,
   * NaN stays NaN). With an explicit range the nearest point outside it on each side is included so
   * lines reach the edges. The 'wall' axis assumes wall times increase along the view.
   */
  window(q: WindowQuery): Omit<SeriesWindow, 'run' | 'tag'> {
    return { ...this.view.window(q), restarts: this._restarts.slice(), sessions: this.sessions() };
  }

  /** `window` over session `index` (1-based): every point it wrote, cut or not; null for no such session.
   * `length` is the session's point count (sessions before the current one no longer grow). */
  sessionWindow(index: number, q: WindowQuery): Omit<SeriesWindow, 'run' | 'tag'> | null {
    const s = this.sessionLists[index - 1];
    if (!s) return null;
    return { ...s.window(q), restarts: [], sessions: this.sessions(), session: index };
  }
}

function sessionInfo(s: SegmentList, index: number): SessionInfo {
  const e = s.extent();
  const first = s.segments[0];
  const last = s.segments[s.segments.length - 1];
  const startWall = first ? first.series.wallTime(first.start) : Number.NaN;
  const endWall = last ? last.series.wallTime(last.end - 1) : Number.NaN;
  return {
    index,
    startStep: e?.stepMin ?? 0,
    endStep: e?.stepMax ?? 0,
    startWall: Number.isFinite(startWall) ? startWall : null,
    endWall: Number.isFinite(endWall) ? endWall : null,
    points: s.length,
  };
}
