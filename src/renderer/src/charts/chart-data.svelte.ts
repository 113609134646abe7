// A chart's data state: per-line series (a run's tag), window requests (latest wins), deltas queued behind a load, generations.

import type { RequestArgs } from '../../../shared/contract';
import type { SeriesDelta, SeriesReset, SeriesWindow } from '../../../shared/domain';
import type { Result } from '../../../shared/result';
import { toQueryRange, type XAxisMode } from '../../../shared/charts/axis';
import type { ChartLine } from '../../../shared/charts/composed';
import type { SeriesFeed } from './series-feed';
import type { EarlyWindow } from './early-windows';
import { GROWTH_FACTOR, RunSeries } from '../../../shared/charts/series-model';

/** A zoomed window covers the visible range plus this fraction of its width on each side. */
export const ZOOM_MARGIN = 0.5;
/** Earlier sessions drawn per run at most (the latest ones before the current session). */
export const MAX_EARLIER_SESSIONS = 8;

/** One earlier session of a run, as drawn (faded) beside its current line. */
export interface EarlierSession {
  session: number;
  series: RunSeries;
}

/** What the data state asks of its panel: the backend, layout and view facts, and redraw requests. */
export interface ChartDataHost {
  fetchWindow(args: RequestArgs['series.get']): Promise<Result<SeriesWindow>>;
  /** A window asked for this request before the chart was made (the first screen's), taken once; else null. */
  takeEarly?(args: RequestArgs['series.get']): EarlyWindow | null;
  /** Device pixels across the plot. */
  pixelWidth(): number;
  /** The zoomed x-range to fetch (already widened by ZOOM_MARGIN), or null for the whole series. */
  zoomRange(): [number, number] | null;
  xAxis(): XAxisMode;
  /** A window arrived: rebuild the points and draw, even off screen. */
  windowLoaded(): void;
  /** Points were appended in place: draw when visible. */
  appended(): void;
}

export class ChartData {
  loadState = $state<'loading' | 'ready' | 'error'>('loading');
  errorText = $state('');
  /** Per line key. Not reactive on purpose: the hot path mutates these and asks for one redraw per frame. */
  readonly series = new Map<string, RunSeries>();
  /** Per line key: its run and tag; and the key of each run + tag pushes name. */
  private readonly lines = new Map<string, ChartLine>();
  private readonly keyOf = new Map<string, string>();
  /** Lines whose series.get answered not-found (a run without that tag), by key. */
  readonly missing = new Set<string>();
  /** Deltas that arrive while a run's window is being fetched; applied after it. */
  private readonly queued = new Map<string, SeriesDelta[]>();
  /** Bumped when runs/tag change (and on destroy): answers for an older generation are dropped. */
  private generation = 0;
  /** Per line, the sequence number of the latest series.get: older answers that arrive late are dropped. */
  private readonly latestRequest = new Map<string, number>();
  private requestSeq = 0;
  private lineCount = 0;
  private earlierOn = true;
  /** Per line: its earlier sessions as last fetched, and what they were fetched for (range and sessions). */
  private readonly earlier = new Map<string, { key: string; lines: EarlierSession[] }>();
  /** Lines whose earlier sessions are being fetched: the chart is still loading (data-state says so). */
  private readonly earlierPending = new Set<string>();
  /** Per line: the request and answer of its latest window, whose earlier sessions are fetched when turned on. */
  private readonly landed = new Map<string, { args: RequestArgs['series.get']; window: SeriesWindow }>();

  constructor(private readonly host: ChartDataHost) {}

  /** Shows these runs' `tag`: subscribes to the feed and loads each run's whole series; returns the unsubscribe. */
  show(runs: readonly string[], tag: string, feed: SeriesFeed): () => void {
    return this.showLines(
      runs.map((run) => ({ key: run, run, tag })),
      feed,
    );
  }

  /** Shows these lines (keys unique): subscribes to the feed and loads each whole series; returns the unsubscribe. */
  showLines(lines: readonly ChartLine[], feed: SeriesFeed): () => void {
    this.generation++;
    this.lineCount = lines.length;
    this.series.clear();
    this.lines.clear();
    this.keyOf.clear();
    this.earlier.clear();
    this.earlierPending.clear();
    this.landed.clear();
    this.queued.clear();
    this.missing.clear();
    this.loadState = 'loading';
    this.errorText = '';
    for (const l of lines) {
      this.series.set(l.key, new RunSeries(l.key));
      this.lines.set(l.key, l);
      this.keyOf.set(`${l.run}\u0000${l.tag}`, l.key);
    }
    const listener = {
      append: (d: SeriesDelta) => this.onDelta(d),
      reset: (r: SeriesReset) => this.onReset(r),
    };
    const offs = lines.map((l) => feed.subscribe(l.run, l.tag, listener));
    for (const l of lines) void this.load(l.key, null);
    return () => offs.forEach((off) => off());
  }

  /** Whether earlier sessions are drawn; turning them on fetches them. */
  setEarlierSessions(on: boolean): void {
    if (on === this.earlierOn) return;
    this.earlierOn = on;
    this.earlier.clear();
    // Only the earlier sessions are fetched: the windows shown stay (a line still loading fetches them as it lands).
    if (on) for (const [key, l] of this.landed) void this.loadEarlier(key, l.args, l.window, this.generation);
    else this.host.windowLoaded();
  }

  /** Every run's earlier sessions to draw (none when they are off). */
  earlierLines(): EarlierSession[] {
    if (!this.earlierOn) return [];
    return [...this.earlier.values()].flatMap((e) => e.lines);
  }

  /** Drops every answer still in flight (the panel is going away). */
  close(): void {
    this.generation++;
  }

  /** A line's window (or its earlier sessions) is being fetched. */
  isLoading(key: string): boolean {
    return this.queued.has(key) || this.earlierPending.has(key);
  }

  /** Re-fetches every line for `range` (null: the whole series). */
  reloadAll(range: [number, number] | null): void {
    for (const key of this.series.keys()) void this.load(key, range);
  }

  /** Re-fetches the whole series of runs that hold only a zoomed window. */
  reloadPartial(): void {
    for (const s of this.series.values()) if (s.partial) void this.load(s.run, null);
  }

  /** Fetches a line's window (the whole series, or `zoomedRange` plus margins), then applies what queued meanwhile. */
  async load(key: string, zoomedRange: [number, number] | null): Promise<void> {
    const s = this.series.get(key);
    const line = this.lines.get(key);
    if (!s || !line) return;
    const gen = this.generation;
    let pixels = this.host.pixelWidth();
    const args: RequestArgs['series.get'] = { run: line.run, tag: line.tag, pixels };
    if (zoomedRange) {
      const q = toQueryRange(this.host.xAxis(), zoomedRange[0], zoomedRange[1], s.origin);
      // The window is wider than the view by the margins: keep the same density per visible pixel.
      pixels = Math.min(20000, Math.round(pixels * (1 + 2 * ZOOM_MARGIN)));
      Object.assign(args, { pixels, xMin: q.xMin, xMax: q.xMax, axis: q.axis });
    }
    if (!this.queued.has(key)) this.queued.set(key, []);
    const seq = ++this.requestSeq;
    this.latestRequest.set(key, seq);
    // The first screen's windows were asked before their charts were made: the answer and the pushes since then.
    const early = zoomedRange === null ? (this.host.takeEarly?.(args) ?? null) : null;
    const r = await (early?.answer ?? this.host.fetchWindow(args));
    if (gen !== this.generation || this.latestRequest.get(key) !== seq) return;
    const pending = [...(early?.deltas ?? []), ...(this.queued.get(key) ?? [])];
    this.queued.delete(key);
    if (!r.ok) {
      if (r.error.code === 'not-found') this.missing.add(key);
      // A run without this tag is just absent from an overlay; the chart fails only when nothing loads.
      if (r.error.code !== 'not-found' || this.lineCount === 1) {
        this.errorText = r.error.message;
        if (![...this.series.values()].some((x) => x.count > 0)) this.loadState = 'error';
      }
      // The panel's next frame sees this line settled (the chart is ready once every line is).
      this.host.windowLoaded();
      return;
    }
    this.missing.delete(key);
    if (this.loadState === 'error') this.loadState = 'loading';
    this.errorText = '';
    s.setWindow(r.value, pixels, zoomedRange !== null);
    let gap = false;
    for (const d of pending) if (s.applyDelta(d) === 'gap') gap = true;
    if (gap) void this.load(key, this.host.zoomRange());
    this.host.windowLoaded();
    this.landed.set(key, { args, window: r.value });
    void this.loadEarlier(key, args, r.value, gen);
  }

  /** Fetches the run's earlier sessions (frozen: again only when the range or the sessions changed). */
  private async loadEarlier(
    run: string,
    args: RequestArgs['series.get'],
    w: SeriesWindow,
    gen: number,
  ): Promise<void> {
    const sessions = w.sessions.slice(0, -1).slice(-MAX_EARLIER_SESSIONS);
    if (!this.earlierOn || sessions.length === 0) {
      if (this.earlier.delete(run)) this.host.windowLoaded();
      return;
    }
    const key = `${args.xMin ?? ''}|${args.xMax ?? ''}|${args.axis ?? ''}|${args.pixels}|${sessions.map((x) => `${x.index}:${x.points}`).join(',')}`;
    if (this.earlier.get(run)?.key === key) return;
    this.earlierPending.add(run);
    const answers = await Promise.all(
      sessions.map((x) => this.host.fetchWindow({ ...args, session: x.index })),
    );
    if (gen !== this.generation) return;
    this.earlierPending.delete(run);
    if (!this.earlierOn || !this.series.has(run)) {
      this.host.windowLoaded();
      return;
    }
    const lines: EarlierSession[] = [];
    answers.forEach((a, k) => {
      if (!a.ok) return;
      const s = new RunSeries(run);
      s.setWindow(a.value, args.pixels, args.xMin !== undefined);
      lines.push({ session: sessions[k]!.index, series: s });
    });
    this.earlier.set(run, { key, lines });
    this.host.windowLoaded();
  }

  private onDelta(d: SeriesDelta): void {
    const key = this.keyOf.get(`${d.run}\u0000${d.tag}`);
    if (key === undefined) return;
    const q = this.queued.get(key);
    if (q) {
      q.push(d);
      return;
    }
    const s = this.series.get(key);
    if (!s) return;
    const outcome = s.applyDelta(d);
    if (outcome === 'gap') {
      void this.load(key, this.host.zoomRange());
      return;
    }
    if (outcome === 'stale') return;
    // Growing forever costs every redraw: past ~4 points per pixel, ask for a fresh downsampled window.
    if (s.count > GROWTH_FACTOR * this.host.pixelWidth() && !this.queued.has(key)) {
      void this.load(key, this.host.zoomRange());
    }
    this.host.appended();
  }

  private onReset(r: SeriesReset): void {
    const key = this.keyOf.get(`${r.run}\u0000${r.tag}`);
    if (key === undefined) return;
    void this.load(key, this.host.zoomRange());
  }
}
