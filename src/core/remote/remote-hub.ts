// The remote endpoints of one app: add/remove/list, remembered in settings, their runs merged and requests routed.

import type { PushEvent } from '../../shared/channels';
import type { PushPayloads } from '../../shared/contract';
import type {
  AlertChange,
  AlertInfo,
  EndpointInfo,
  RunDetails,
  RunInfo,
  SeriesWindow,
} from '../../shared/domain';
import { ApiError } from '../../shared/result';
import { GPU_FRESH_MS, meanGpuUtilisation, type NodeFacts } from '../../shared/node-facts';
import { splitRunKey } from '../../shared/run-key';
import { parseEndpointUrl } from './endpoint-url';
import { RemoteEndpoint, type EndpointSink, type LinkTuning } from './remote-endpoint';
import { askItems, type ItemChannel } from './remote-items';
import type { RequestArgs, RequestResults } from '../../shared/contract';

/** The settings key under which the endpoints' URLs (tokens included) are kept. */
export const REMOTES_SETTING_KEY = 'remoteEndpoints';
/** Endpoints one app may follow at once. */
export const MAX_ENDPOINTS = 64;

export interface RemoteHubOptions {
  clock: () => number;
  /** A push for the renderer (series, alerts, notices of an endpoint), already under our keys. */
  push<E extends PushEvent>(event: E, payload: PushPayloads[E]): void;
  /** Some endpoint's runs changed: the app re-sends its merged run list. */
  runsChanged(): void;
  /** An endpoint's alert changed: for the app's notification limiter. */
  alertChanged(change: AlertChange): void;
  /** The endpoints saved for next time changed (URLs with tokens). */
  save(urls: string[]): void;
  tuning?: LinkTuning;
}

/** The saved URLs from whatever the store held: strings only, at most MAX_ENDPOINTS. */
export function parseSavedRemotes(stored: unknown): string[] {
  return Array.isArray(stored)
    ? stored.filter((u): u is string => typeof u === 'string').slice(0, MAX_ENDPOINTS)
    : [];
}

export class RemoteHub {
  private readonly endpoints = new Map<string, RemoteEndpoint>();
  /** Run-list changes of endpoints, coalesced: a remote that pushes run lists as fast as it can costs the
   * local clients one merged list per `runsEveryMs`, never one per push. */
  private runsTimer: NodeJS.Timeout | null = null;
  private runsAgain = false;

  constructor(private readonly opts: RemoteHubOptions) {}

  /** Follows an endpoint (a bad URL is a bad-request error). The same host:port again replaces the old one. */
  add(url: string, o: { sessionOnly: boolean }): EndpointInfo {
    const parsed = parseEndpointUrl(url);
    const old = this.endpoints.get(parsed.id);
    if (!old && this.endpoints.size >= MAX_ENDPOINTS)
      throw new ApiError('bad-request', `at most ${MAX_ENDPOINTS} endpoints`);
    old?.close();
    const self: { ep: RemoteEndpoint | null } = { ep: null };
    const ep = new RemoteEndpoint(
      parsed,
      o.sessionOnly,
      this.sinkFor(self),
      this.opts.clock,
      this.opts.tuning,
    );
    self.ep = ep;
    this.endpoints.set(parsed.id, ep);
    if (!o.sessionOnly || old?.sessionOnly === false) this.persist();
    this.changed();
    return ep.info();
  }

  remove(id: string): void {
    const ep = this.endpoints.get(id);
    if (!ep) throw new ApiError('not-found', `no endpoint ${id}`);
    ep.close();
    this.endpoints.delete(id);
    if (!ep.sessionOnly) this.persist();
    this.changed();
    this.opts.runsChanged();
  }

  list(): EndpointInfo[] {
    return [...this.endpoints.values()].map((e) => e.info());
  }

  /** An endpoint as a job's node: whether it is connected with a current run list (else since when it is not: a
   * link back up counts once the run list asked on reconnect has come), and its GPUs' mean utilisation when fresh. */
  nodeFacts(id: string): NodeFacts {
    const ep = this.endpoints.get(id);
    const stale = ep?.staleSince() ?? null;
    const connected = ep?.info().state === 'connected' && stale === null;
    return {
      connected,
      ...(connected ? {} : { awaySince: stale }),
      gpuUtilPct: meanGpuUtilisation(this.endpoints.get(id)?.gpuUtilisation(GPU_FRESH_MS) ?? []),
    };
  }

  /** Series kept from an endpoint for while it is away (0 for an unknown one). */
  keptSeries(id: string): number {
    return this.endpoints.get(id)?.keptSeries() ?? 0;
  }

  runs(): RunInfo[] {
    return [...this.endpoints.values()].flatMap((e) => e.runs());
  }

  alerts(run?: string): AlertInfo[] {
    if (run !== undefined) return this.ownerOf(run)?.alerts(run) ?? [];
    return [...this.endpoints.values()].flatMap((e) => e.alerts());
  }

  activeAlerts(): AlertInfo[] {
    return this.alerts().filter((a) => a.active);
  }

  /** Whether a run key (or alert id) names an endpoint's run: then requests about it go there. */
  owns(key: string): boolean {
    return this.ownerOf(key) !== null;
  }

  series(
    run: string,
    tag: string,
    q: { pixels: number; xMin?: number; xMax?: number; axis?: 'step' | 'wall' },
  ): Promise<SeriesWindow> {
    return this.owner(run).series(run, tag, q);
  }

  details(run: string): Promise<RunDetails> {
    return this.owner(run).details(run);
  }

  /** A remote run's texts, samples or histograms, asked of its endpoint (`remote-items.ts`). */
  items<C extends ItemChannel>(channel: C, args: RequestArgs[C]): Promise<RequestResults[C]> {
    return askItems(this.owner(args.run), channel, args);
  }

  ack(id: string): Promise<AlertInfo> {
    return this.owner(id).ack(id);
  }

  snooze(id: string, minutes: number): Promise<AlertInfo> {
    return this.owner(id).snooze(id, minutes);
  }

  dispose(): void {
    if (this.runsTimer) clearTimeout(this.runsTimer);
    this.runsTimer = null;
    for (const e of this.endpoints.values()) e.close();
    this.endpoints.clear();
  }

  private ownerOf(key: string): RemoteEndpoint | null {
    const { host } = splitRunKey(key);
    return host === null ? null : (this.endpoints.get(host) ?? null);
  }

  private owner(key: string): RemoteEndpoint {
    const ep = this.ownerOf(key);
    if (!ep) throw new ApiError('not-found', `no endpoint for ${key}`);
    return ep;
  }

  private sinkFor(self: { ep: RemoteEndpoint | null }): EndpointSink {
    // Events of an endpoint that was replaced or removed (late answers) are ignored.
    const live = (): boolean => self.ep !== null && this.endpoints.get(self.ep.id) === self.ep;
    return {
      runsChanged: () => live() && this.runsSoon(),
      push: (event, payload) => live() && this.opts.push(event, payload),
      alertChanged: (c) => live() && this.opts.alertChanged(c),
      stateChanged: () => live() && this.changed(),
    };
  }

  /** At once when none went out within `runsEveryMs`, else once at its end. */
  private runsSoon(): void {
    if (this.runsTimer) {
      this.runsAgain = true;
      return;
    }
    this.opts.runsChanged();
    this.runsTimer = setTimeout(() => {
      this.runsTimer = null;
      if (!this.runsAgain) return;
      this.runsAgain = false;
      this.runsSoon();
    }, this.opts.tuning?.runsEveryMs ?? 1000);
    this.runsTimer.unref();
  }

  private changed(): void {
    this.opts.push('endpoints.changed', this.list());
  }

  private persist(): void {
    this.opts.save([...this.endpoints.values()].filter((e) => !e.sessionOnly).map((e) => e.url.full));
  }
}
