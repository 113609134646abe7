// The Prometheus exposition of an AppCore: prom-client registries and the per-tag text, refreshed on each scrape.

import { hostname as osHostname } from 'node:os';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { AlertMetrics } from './alert-metrics';
import { DroppedSeries } from './dropped';
import { boundLabel } from './label-bounds';
import type { MetricsSource } from './metrics-source';
import { RunMetrics } from './run-metrics';
import { SystemMetrics } from './system-metrics';

export interface ExpositionOptions {
  /** Most runs exposed (the most recently active first); default 200. */
  maxRuns?: number;
  /** Most tags exposed per run (in name order); default 256. */
  maxTagsPerRun?: number;
  /** Most alert series (active first, then the most recently cleared at 0); default 1000. */
  maxAlertSeries?: number;
  /** A system sample older than this is not exposed (sampling stopped or hung); default 60 s. */
  maxSampleAgeMs?: number;
  /** The Hostname label of system series (DCGM's name); default os.hostname(). */
  hostname?: string;
  version?: string;
  clock?: () => number;
  /** Where a new cut (runs, tags, alert series left out) is reported once (names as they are: the caller escapes
   * them for its output); default: not reported. */
  log?: (message: string) => void;
}

export const METRICS_DEFAULTS = {
  maxRuns: 200,
  maxTagsPerRun: 256,
  maxAlertSeries: 1000,
  maxSampleAgeMs: 60_000,
};

export interface Scrape {
  contentType: string;
  body: string;
}

export class MetricsExposition {
  /** The families before the per-tag ones (build info, node info, dropped series) and those after them (per run,
   * alerts, system): the per-tag families are written directly between the two (run-metrics), in the order they
   * had when one registry held them all. */
  private readonly head = new Registry();
  private readonly registry = new Registry();
  private readonly nodeInfo: Gauge<'rlwatch_job' | 'node'>;
  private readonly dropped: DroppedSeries;
  private readonly runs: RunMetrics;
  private readonly alerts: AlertMetrics;
  private readonly system: SystemMetrics;
  private readonly limits: typeof METRICS_DEFAULTS;
  private readonly clock: () => number;
  /** The scrape under way: concurrent scrapes share it, so a burst of scrapers costs one refresh. */
  private inflight: Promise<Scrape> | null = null;

  constructor(
    private readonly source: MetricsSource,
    opts: ExpositionOptions = {},
  ) {
    this.limits = {
      maxRuns: opts.maxRuns ?? METRICS_DEFAULTS.maxRuns,
      maxTagsPerRun: opts.maxTagsPerRun ?? METRICS_DEFAULTS.maxTagsPerRun,
      maxAlertSeries: opts.maxAlertSeries ?? METRICS_DEFAULTS.maxAlertSeries,
      maxSampleAgeMs: opts.maxSampleAgeMs ?? METRICS_DEFAULTS.maxSampleAgeMs,
    };
    this.clock = opts.clock ?? Date.now;
    new Gauge({
      name: 'rlwatch_build_info',
      help: 'The rlwatch version serving these metrics (always 1).',
      labelNames: ['version'],
      registers: [this.head],
    }).set({ version: opts.version ?? 'unknown' }, 1);
    // `rlwatch_job`, not `job`: Prometheus gives `job` the scrape job's name (deploy/rlwatch-alerts.rules.yml
    // joins the agents of one job on this series).
    this.nodeInfo = new Gauge({
      name: 'rlwatch_node_info',
      help: 'The job and node this agent watches for (`agent --job NAME --node NAME`; always 1, absent without --job).',
      labelNames: ['rlwatch_job', 'node'],
      registers: [this.head],
    });
    this.dropped = new DroppedSeries(this.head, opts.log ?? (() => {}));
    this.runs = new RunMetrics(this.registry);
    this.alerts = new AlertMetrics(this.registry);
    this.system = new SystemMetrics(this.registry, boundLabel(opts.hostname ?? osHostname()));
    // The agent's own process_* and nodejs_* (CPU, memory, open files, event-loop lag, GC), last.
    collectDefaultMetrics({ register: this.registry });
  }

  /** One scrape: every family refreshed from the core's state now, then the text exposition format. */
  scrape(): Promise<Scrape> {
    this.inflight ??= this.scrapeNow().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async scrapeNow(): Promise<Scrape> {
    this.refresh();
    // Each registry's text ends in one newline; families are apart by an empty line.
    const body = `${await this.head.metrics()}\n${this.runs.takeTagFamilies()}\n\n${await this.registry.metrics()}`;
    return { contentType: this.registry.contentType, body };
  }

  private refresh(): void {
    const now = this.clock();
    const id = this.source.identity;
    this.nodeInfo.reset();
    if (id) this.nodeInfo.set({ rlwatch_job: boundLabel(id.job), node: boundLabel(id.node) }, 1);
    const runs = this.source.runs();
    this.dropped.begin();
    this.runs.refresh(runs, this.source, this.limits, this.dropped, now);
    const open = new Set(runs.map((r) => r.run));
    this.alerts.refresh(this.source, open, this.limits.maxAlertSeries, this.dropped);
    this.dropped.end();
    const snap = this.source.latestSystemSample();
    const fresh = snap !== null && now - snap.t <= this.limits.maxSampleAgeMs;
    this.system.refresh(fresh ? snap : null);
  }
}
