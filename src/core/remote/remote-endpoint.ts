// One remote endpoint as the app sees it: its link, its runs and alerts under our keys, kept while it is away.

import type { PushPayloads } from '../../shared/contract';
import type { PushEvent } from '../../shared/channels';
import type {
  AlertChange,
  AlertInfo,
  EndpointInfo,
  EndpointState,
  RunDetails,
  RunInfo,
  SeriesWindow,
} from '../../shared/domain';
import {
  alertChangeShape,
  alertInfoShape,
  alertListShape,
  appNoticeShape,
  runDetailsShape,
  runListShape,
  seriesDeltaShape,
  seriesResetShape,
  seriesWindowShape,
  systemGpuShape,
} from '../../shared/remote-shapes';
import { ApiError, type Result } from '../../shared/result';
import type { EndpointUrl } from './endpoint-url';
import { DEFAULT_KEEP, keyOf, KeptSeries, type KeepBounds } from './kept-series';
import { RemoteLink, type LinkLimits } from './remote-link';
import type { BackoffOptions } from '../../shared/backoff';
import { remoteName, renameAlert, renameAlertChange, renameRun, renameSeries } from './rename';

/** Where an endpoint reports what changed; the hub merges it into the app's one bus. */
export interface EndpointSink {
  /** Its run list changed (or its link state did: the runs' greying follows the endpoint list). */
  runsChanged(): void;
  /** A push to forward to the renderer, already under our keys. */
  push<E extends PushEvent>(event: E, payload: PushPayloads[E]): void;
  /** An alert of it changed (pushed): for the tray and the notification limiter. */
  alertChanged(change: AlertChange): void;
  /** Its state changed. */
  stateChanged(): void;
}

export interface LinkTuning {
  limits?: Partial<LinkLimits>;
  backoff?: Partial<BackoffOptions>;
  /** Bounds of the copy kept of each endpoint's series. */
  keep?: Partial<KeepBounds>;
  /** Pause between two background fetches filling that copy (default 50 ms: ≤ 20 small answers a second,
   * well inside the endpoint's rate budget). */
  fillGapMs?: number;
  /** An answer slower than this, with nothing else heard from the endpoint meanwhile, is stood in for by the kept
   * copy where there is one (default 1500 ms; see RemoteEndpoint.orKept). */
  slowAnswerMs?: number;
  /** An endpoint's run-list changes reach the app at most once per this many ms (default 1000). */
  runsEveryMs?: number;
}

/** A zod schema as this module uses it (core takes zod's schemas from shared, never zod itself). */
export interface Shape<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/** Most runs and alerts kept from one endpoint (a remote that sends more is cut, never held without bound). */
const MAX_RUNS = 10_000;
const MAX_ALERTS = 10_000;

export class RemoteEndpoint {
  private readonly link: RemoteLink;
  private runList: RunInfo[] = [];
  private readonly alertsById = new Map<string, AlertInfo>();
  private readonly kept: KeptSeries;
  private readonly keep: KeepBounds;
  /** Series to fetch (again) in the background for the kept copy, under our keys, in order. */
  private readonly toFill = new Map<string, { run: string; tag: string }>();
  private filling = false;
  private closed = false;
  private readonly fillGapMs: number;
  private readonly keptDetails = new Map<string, RunDetails>();
  private since: number;
  /** Since when what we know of it is not current: from the link going down (or its start) until the run list asked
   * on (re)connect has come; null while it is current. A node is judged only on a current run list (#38: a frozen
   * agent that resumes is not silent on the stale list it left). */
  private staleFrom: number | null;
  private error: string | null = null;
  /** Why its run list is cut, while it is. */
  private cut: string | null = null;
  private dropped = 0;
  private refreshSeq = 0;
  /** When something last came from it (an answer or a push), and since when it has been mute past a slow answer. */
  private lastHeard: number;
  private muteSince = -Infinity;
  private readonly slowAnswerMs: number;
  /** Its newest fresh system sample's GPU utilisations (%) and when we got it (our clock); null before one. */
  private gpus: { pct: number[]; at: number } | null = null;

  constructor(
    readonly url: EndpointUrl,
    readonly sessionOnly: boolean,
    private readonly sink: EndpointSink,
    private readonly clock: () => number,
    tuning: LinkTuning = {},
  ) {
    this.since = clock();
    this.staleFrom = this.since;
    this.keep = { ...DEFAULT_KEEP, ...tuning.keep };
    this.kept = new KeptSeries(this.keep);
    this.fillGapMs = tuning.fillGapMs ?? 50;
    this.slowAnswerMs = tuning.slowAnswerMs ?? 1500;
    this.lastHeard = clock();
    this.link = new RemoteLink(
      url,
      {
        opened: () => void this.refresh(),
        push: (event, payload) => this.onPush(event, payload),
        state: (state, error) => this.onState(state, error),
        garbage: () => this.dropped++,
      },
      tuning,
    );
    this.link.start();
  }

  get id(): string {
    return this.url.id;
  }

  /** Since when its run list is not current (the link down, or up again before its run list came); null while current. */
  staleSince(): number | null {
    return this.staleFrom;
  }

  info(): EndpointInfo {
    return {
      id: this.id,
      url: this.url.shown,
      state: this.link.state,
      since: this.since,
      error: this.error ?? this.cut,
      runs: this.runList.length,
      dropped: this.dropped,
      sessionOnly: this.sessionOnly,
    };
  }

  runs(): readonly RunInfo[] {
    return this.runList;
  }

  alerts(run?: string): AlertInfo[] {
    const all = [...this.alertsById.values()];
    return run === undefined ? all : all.filter((a) => a.run === run);
  }

  async series(
    run: string,
    tag: string,
    q: { pixels: number; xMin?: number; xMax?: number; axis?: 'step' | 'wall' },
  ): Promise<SeriesWindow> {
    const asked = this.ask('series.get', { run: this.nameOf(run), tag, ...q }, seriesWindowShape);
    const whole = q.xMin === undefined && q.xMax === undefined;
    const store = (v: SeriesWindow): SeriesWindow => {
      const w = renameSeries(this.id, v);
      if (whole) this.kept.store(w);
      return w;
    };
    const r = await this.orKept(asked, () => this.kept.get(run, tag, q), store);
    if ('kept' in r) return r.kept;
    if (r.ok) return store(r.value);
    // The link is down or the endpoint did not answer: the kept copy of the series, over the asked range.
    const kept = r.error.code === 'unavailable' ? this.kept.get(run, tag, q) : null;
    if (kept) return kept;
    throw new ApiError(r.error.code, r.error.message);
  }

  /** The GPU utilisations (%) of its newest fresh system sample, when one came within `maxAgeMs` while connected;
   * null otherwise (no GPU, not sampled, stale, away). For the job rules' idle-GPU check. */
  gpuUtilisation(maxAgeMs: number): number[] | null {
    if (this.link.state !== 'connected' || this.gpus === null) return null;
    return this.clock() - this.gpus.at <= maxAgeMs ? this.gpus.pct : null;
  }

  /** Series of it kept for while it is away (for tests and diagnostics). */
  keptSeries(): number {
    return this.kept.size;
  }

  async details(run: string): Promise<RunDetails> {
    const keep = (v: RunDetails): RunDetails => {
      const d = { ...v, run };
      this.keptDetails.set(run, d);
      return d;
    };
    const asked = this.ask('runs.details', { run: this.nameOf(run) }, runDetailsShape);
    const r = await this.orKept(asked, () => this.keptDetails.get(run) ?? null, keep);
    if ('kept' in r) return r.kept;
    if (r.ok) return keep(r.value);
    const kept = r.error.code === 'unavailable' ? this.keptDetails.get(run) : undefined;
    if (kept) return kept;
    throw new ApiError(r.error.code, r.error.message);
  }

  /**
   * The answer, unless it takes over `slowAnswerMs` while nothing at all comes from the endpoint (a frozen process
   * whose socket is still open): then the kept copy, at once, so a local client's one-at-a-time requests never wait
   * out the request timeout behind it. The request goes on and `late` stores its answer; while the endpoint stays
   * mute, later requests that have a kept copy answer from it without waiting.
   */
  private async orKept<T>(
    asked: Promise<Result<T>>,
    kept: () => T | null,
    late: (answer: T) => void,
  ): Promise<Result<T> | { kept: T }> {
    if (kept() === null) return asked;
    const first = await this.unlessMute(asked);
    const copy = kept();
    if (first !== null || copy === null) return first ?? asked;
    void asked.then((r) => r.ok && late(r.value));
    return { kept: copy };
  }

  /**
   * A request that has no kept copy to stand in for it (a remote run's texts, samples and histograms,
   * `remote-items.ts`): its checked answer, or `unavailable` once it is over `slowAnswerMs` with nothing at all heard
   * from the endpoint meanwhile (at once while it stays mute), so a frozen endpoint never holds a local client's
   * one-at-a-time requests for the whole request timeout.
   */
  async askLive<T>(channel: string, args: unknown, shape: Shape<T>): Promise<Result<T>> {
    const asked = this.ask(channel, args, shape);
    return (
      (await this.unlessMute(asked)) ?? {
        ok: false,
        error: { code: 'unavailable', message: `${this.id} is not answering ${channel}` },
      }
    );
  }

  /** The answer if it comes within `slowAnswerMs` (no wait while the endpoint is mute), or later when something
   * else came from the endpoint meanwhile (it is alive, just slow); null when it stayed silent: mute from then on. */
  private async unlessMute<T>(asked: Promise<Result<T>>): Promise<Result<T> | null> {
    const sent = this.clock();
    const wait = this.lastHeard < this.muteSince ? 0 : this.slowAnswerMs;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<null>((res) => (timer = setTimeout(() => res(null), wait)));
    const first = await Promise.race([asked, slow]);
    clearTimeout(timer);
    if (first !== null) return first;
    if (this.lastHeard >= sent) return asked;
    this.muteSince = Math.max(this.muteSince, sent);
    return null;
  }

  async ack(id: string): Promise<AlertInfo> {
    return this.alertAnswer(await this.ask('alerts.ack', { id: this.nameOf(id) }, alertInfoShape));
  }

  async snooze(id: string, minutes: number): Promise<AlertInfo> {
    return this.alertAnswer(
      await this.ask('alerts.snooze', { id: this.nameOf(id), minutes }, alertInfoShape),
    );
  }

  close(): void {
    this.closed = true;
    this.toFill.clear();
    this.link.close();
  }

  // --- internals ---

  private nameOf(key: string): string {
    const name = remoteName(this.id, key);
    if (name === null) throw new ApiError('not-found', `${key} is not from ${this.id}`);
    return name;
  }

  private alertAnswer(r: Result<AlertInfo>): AlertInfo {
    if (!r.ok) throw new ApiError(r.error.code, r.error.message);
    const a = renameAlert(this.id, r.value);
    this.keepAlert(a);
    return a;
  }

  /** A request whose answer is checked against the channel's shape (a malformed one is a typed error). */
  private async ask<T>(channel: string, args: unknown, shape: Shape<T>): Promise<Result<T>> {
    const r = await this.link.request(channel, args);
    if (r.ok || r.error.code !== 'unavailable') this.heard();
    if (!r.ok) return r;
    const parsed = shape.safeParse(r.value);
    if (parsed.success) return { ok: true, value: parsed.data };
    this.dropped++;
    return {
      ok: false,
      error: { code: 'internal', message: `${this.id} sent a malformed ${channel} answer` },
    };
  }

  /** On every (re)connect: its runs and alerts afresh, and charts of its runs told to re-query. */
  private async refresh(): Promise<void> {
    const seq = ++this.refreshSeq;
    const [runs, alerts] = await Promise.all([
      this.ask('runs.list', {}, runListShape),
      this.ask('alerts.list', {}, alertListShape),
    ]);
    if (seq !== this.refreshSeq) return;
    if (runs.ok) {
      if (this.link.state === 'connected') this.staleFrom = null;
      this.setRuns(runs.value);
    }
    if (alerts.ok) {
      this.alertsById.clear();
      for (const a of alerts.value.slice(-MAX_ALERTS)) {
        const renamed = renameAlert(this.id, a);
        this.alertsById.set(renamed.id, renamed);
        this.sink.push('alerts.changed', { kind: 'updated', alert: renamed });
      }
    }
    const failed = !runs.ok ? runs.error : !alerts.ok ? alerts.error : null;
    // A refresh cut by the link going down keeps the link's own reason.
    if (failed && this.link.state === 'connected') this.error = `refresh failed: ${failed.message}`;
    // Deltas sent while it was away are lost: the charts re-query a window, the kept copies are fetched again.
    for (const k of this.kept.keys()) {
      this.sink.push('series.reset', { run: k.run, tag: k.tag, reason: 'bulk' });
      this.wantFill(k.run, k.tag, true);
    }
    this.sink.stateChanged();
    void this.fill();
  }

  private setRuns(runs: readonly RunInfo[]): void {
    this.runList = runs.slice(0, MAX_RUNS).map((r) => renameRun(this.id, r));
    // Past its run budget it is cut, and says so (the endpoint's tooltip) while it lists too many.
    this.cut =
      runs.length > MAX_RUNS ? `it lists ${runs.length} runs: only the first ${MAX_RUNS} are followed` : null;
    this.kept.retainRuns(new Set(this.runList.map((r) => r.run)));
    this.fillFrom(this.runList);
    this.sink.runsChanged();
    void this.fill();
  }

  /** Queues the series of these runs the copy has room for, the most recently active runs first. */
  private fillFrom(runs: readonly RunInfo[]): void {
    const byActivity = [...runs].sort((a, b) => (b.lastEventAt ?? -1) - (a.lastEventAt ?? -1));
    for (const r of byActivity) {
      for (const tag of r.tags) {
        if (this.toFill.size + this.kept.size >= this.keep.series) return;
        this.wantFill(r.run, tag, false);
      }
    }
  }

  /** Queues a series for the kept copy: a new one while the copy has room, or `again` (its copy is stale). */
  private wantFill(run: string, tag: string, again: boolean): void {
    const key = keyOf(run, tag);
    if (this.toFill.has(key) || (!again && this.kept.has(run, tag))) return;
    if (this.toFill.size + this.kept.size >= this.keep.series && !(again && this.kept.has(run, tag))) return;
    this.toFill.set(key, { run, tag });
  }

  /** Fetches the queued series one at a time while connected: each a whole-view window of at most the
   * kept points per series. */
  private async fill(): Promise<void> {
    if (this.filling) return;
    this.filling = true;
    try {
      while (!this.closed && this.link.state === 'connected') {
        const next = this.toFill.entries().next().value;
        if (next === undefined) break;
        const [key, { run, tag }] = next;
        this.toFill.delete(key);
        const name = remoteName(this.id, run);
        if (name === null) continue;
        // At most 4 points per 2 pixels come back (per-pixel min/max over pixels/2 buckets).
        const pixels = Math.max(1, Math.floor(this.keep.pointsPerSeries / 2));
        const r = await this.ask('series.get', { run: name, tag, pixels }, seriesWindowShape);
        if (r.ok && !this.closed) this.kept.store(renameSeries(this.id, r.value));
        await new Promise((res) => setTimeout(res, this.fillGapMs).unref());
      }
    } finally {
      this.filling = false;
    }
  }

  private keepAlert(a: AlertInfo): void {
    if (!this.alertsById.has(a.id) && this.alertsById.size >= MAX_ALERTS) {
      const oldest = this.alertsById.keys().next().value;
      if (oldest !== undefined) this.alertsById.delete(oldest);
    }
    this.alertsById.set(a.id, a);
  }

  private onState(state: EndpointState, error: string | null): void {
    this.since = this.clock();
    if (state !== 'connected' && this.staleFrom === null) this.staleFrom = this.since;
    this.error = state === 'connected' ? null : error;
    this.sink.stateChanged();
    // Runs stay listed (greyed by the renderer from the endpoint state); the list is re-sent so tray and
    // renderer see the same thing.
    this.sink.runsChanged();
  }

  /** Pushes are untrusted: each is checked against its shape; anything else is counted and dropped. */
  private heard(): void {
    this.lastHeard = this.clock();
  }

  private onPush(event: string, payload: unknown): void {
    this.heard();
    switch (event) {
      case 'runs.changed': {
        const p = runListShape.safeParse(payload);
        if (!p.success) break;
        return this.setRuns(p.data);
      }
      case 'series.appended': {
        const p = seriesDeltaShape.safeParse(payload);
        if (!p.success) break;
        const d = renameSeries(this.id, p.data);
        if (!this.kept.append(d)) {
          this.wantFill(d.run, d.tag, true);
          void this.fill();
        }
        return this.sink.push('series.appended', d);
      }
      case 'series.reset': {
        const p = seriesResetShape.safeParse(payload);
        if (!p.success) break;
        const reset = renameSeries(this.id, p.data);
        if (this.kept.has(reset.run, reset.tag)) {
          this.wantFill(reset.run, reset.tag, true);
          void this.fill();
        }
        return this.sink.push('series.reset', reset);
      }
      case 'alerts.changed': {
        const p = alertChangeShape.safeParse(payload);
        if (!p.success) break;
        const c = renameAlertChange(this.id, p.data);
        this.keepAlert(c.alert);
        this.sink.push('alerts.changed', c);
        return this.sink.alertChanged(c);
      }
      case 'app.notice': {
        const p = appNoticeShape.safeParse(payload);
        if (!p.success) break;
        return this.sink.push('app.notice', {
          level: p.data.level,
          message: `${this.id}: ${p.data.message}`,
        });
      }
      case 'system.snapshot': {
        // Only its GPUs' utilisation is kept (a job's idle-GPU rule); its panel is about its own window, not ours.
        const p = systemGpuShape.safeParse(payload);
        if (!p.success) break;
        const pct = (p.data.gpus ?? []).flatMap((g) =>
          g.utilizationGpuPct === null ? [] : [g.utilizationGpuPct],
        );
        if (p.data.gpusStale !== true) this.gpus = { pct, at: this.clock() };
        return;
      }
      default:
        // Its load progress and focus requests are about its own window, not ours.
        return;
    }
    this.dropped++;
  }
}
