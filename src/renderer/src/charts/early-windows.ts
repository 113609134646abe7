// The first screen's whole-series windows asked before their charts mount (#36): the grid asks them as it first
// renders, each chart's data state takes its answer once (with the pushes that came meanwhile) instead of asking again.

import type { RequestArgs } from '../../../shared/contract';
import type { SeriesDelta, SeriesWindow } from '../../../shared/domain';
import type { Result } from '../../../shared/result';
import type { SeriesFeed } from './series-feed';

/** A window fetched for `p` device pixels serves a plot of `w` pixels when neither is 1.5× the other (the same slack
 * as a chart grown wider keeps its window: ChartPanel's ResizeObserver). */
export const PIXEL_SLACK = 1.5;
/** An answer no chart took by then is dropped (its chart was never made, or asked another width). */
export const EARLY_TTL_MS = 15_000;
/** Series asked early at most, in the grid's order (the first chart's runs first): each is a follow and a
 * series.get sent at once, and serve drops a client with more than 512 requests waiting — 8 charts of a 50-run
 * sweep (400 series) were 800 (#36). The charts past it ask their own as they are made. */
export const MAX_EARLY_SERIES = 64;

/** What a chart takes: the answer (in flight or landed) and the pushes for its series since it was asked. */
export interface EarlyWindow {
  answer: Promise<Result<SeriesWindow>>;
  deltas: SeriesDelta[];
}

interface Entry extends EarlyWindow {
  pixels: number;
  off: () => void;
  timer: ReturnType<typeof setTimeout>;
}

const keyOf = (run: string, tag: string): string => `${run}\u0000${tag}`;

/** One per app, beside the series feed: asked by the grid, taken by the charts' data states. */
export class EarlyWindows {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetchWindow: (args: RequestArgs['series.get']) => Promise<Result<SeriesWindow>>,
    private readonly feed: SeriesFeed,
  ) {}

  /**
   * Asks each line's whole series for a plot of `pixels` device pixels, unless already asked, the first
   * MAX_EARLY_SERIES waiting at most. The series is followed first (as a chart does: no push after the window's
   * answer is missed) and its pushes are kept for the chart.
   */
  ask(lines: readonly { run: string; tag: string }[], pixels: number): void {
    for (const { run, tag } of lines) {
      if (this.entries.size >= MAX_EARLY_SERIES) return;
      const key = keyOf(run, tag);
      if (this.entries.has(key)) continue;
      const deltas: SeriesDelta[] = [];
      const off = this.feed.subscribe(run, tag, {
        append: (d) => deltas.push(d),
        // The series changed other than by appending: this answer may be stale; the chart asks its own.
        reset: () => this.drop(key),
      });
      const answer = this.fetchWindow({ run, tag, pixels });
      const timer = setTimeout(() => this.drop(key), EARLY_TTL_MS);
      this.entries.set(key, { answer, deltas, pixels, off, timer });
    }
  }

  /**
   * The early answer for a chart's request, once: only for the whole series (no range, no earlier session) at a
   * width within PIXEL_SLACK of the one asked; otherwise null (and an answer for another width is dropped). The
   * chart must already be subscribed to the series: from here on its own subscription queues the pushes.
   */
  take(args: RequestArgs['series.get']): EarlyWindow | null {
    if (args.xMin !== undefined || args.xMax !== undefined || args.session !== undefined) return null;
    const key = keyOf(args.run, args.tag);
    const e = this.entries.get(key);
    if (!e) return null;
    this.drop(key);
    const fits = args.pixels <= e.pixels * PIXEL_SLACK && e.pixels <= args.pixels * PIXEL_SLACK;
    return fits ? { answer: e.answer, deltas: e.deltas } : null;
  }

  /** How many answers wait for their chart (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every answer not taken (the app is going away). */
  dispose(): void {
    for (const key of [...this.entries.keys()]) this.drop(key);
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    clearTimeout(e.timer);
    e.off();
  }
}

/** Layout of the grid (styles.css): `.content` padding 14 px a side, `.charts` columns of at least 340 px with 12 px
 * gaps, `.chart` padding 10 px and a 1 px border a side. */
const CONTENT_PADDING = 28;
const MIN_COLUMN = 340;
const GAP = 12;
const CHART_INSET = 22;

/** The device pixels across a grid chart's plot in a main area `areaWidth` CSS pixels wide (before any is laid out). */
export function gridPlotPixels(areaWidth: number, dpr: number): number {
  const inner = Math.max(0, areaWidth - CONTENT_PADDING);
  const columns = Math.max(1, Math.floor((inner + GAP) / (MIN_COLUMN + GAP)));
  const cell = (inner - GAP * (columns - 1)) / columns;
  return Math.max(64, Math.min(20000, Math.round(Math.max(0, cell - CHART_INSET) * (dpr || 1))));
}

/** The app's EarlyWindows, set by App for the grid (which asks) and the chart panels (which take). */
export const EARLY_WINDOWS_CONTEXT = Symbol('early-windows');
