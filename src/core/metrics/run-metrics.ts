// Per run and tag: the last value, step and wall time; per run: freshness, status, progress, ETA, restarts.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { RunInfo } from '../../shared/domain';
import { RUN_ACTIVITIES, runActivity } from '../../shared/run-status';
import type { DroppedSeries } from './dropped';
import { boundLabel, pickRuns, pickTags } from './label-bounds';
import type { MetricsSource } from './metrics-source';
import { labelSet, TextGauge } from './text-format';

export interface RunLimits {
  maxRuns: number;
  maxTagsPerRun: number;
}

const RUN_TAG = ['run', 'tag'] as const;

export class RunMetrics {
  /** The per-tag families (up to maxRuns × maxTagsPerRun series each) are written directly (`text-format`). */
  private readonly scalar: TextGauge;
  private readonly step: TextGauge;
  private readonly wallTime: TextGauge;
  private readonly lastEvent: Gauge<'run'>;
  private readonly fileWritten: Gauge<'run'>;
  private readonly status: Gauge<'run' | 'status'>;
  private readonly progress: Gauge<'run'>;
  private readonly eta: Gauge<'run'>;
  private readonly restarts: Counter<'run'>;
  private readonly runsTotal: Gauge;

  constructor(registry: Registry) {
    const gauge = <L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> =>
      new Gauge({ name, help, labelNames, registers: [registry] });
    this.scalar = new TextGauge(
      'rlwatch_scalar',
      "Last value of a run's scalar tag, as the dashboard shows it.",
    );
    this.step = new TextGauge('rlwatch_scalar_step', "Step of the last value of a run's scalar tag.");
    this.wallTime = new TextGauge(
      'rlwatch_scalar_wall_time_seconds',
      "Wall time (seconds since epoch) the trainer logged with the last value of a run's scalar tag.",
    );
    this.lastEvent = gauge(
      'rlwatch_run_last_event_timestamp_seconds',
      "Wall time of the run's newest point (seconds since epoch); its age is time() minus this.",
      ['run'],
    );
    this.fileWritten = gauge(
      'rlwatch_run_file_written_timestamp_seconds',
      'When a file of the run was last written (newest mtime, seconds since epoch).',
      ['run'],
    );
    this.status = gauge(
      'rlwatch_run_status',
      `The run's state as the dashboard's run list shows it (alerts aside): 1 for the current one of ${RUN_ACTIVITIES.join(', ')}.`,
      ['run', 'status'],
    );
    this.progress = gauge(
      'rlwatch_run_progress_ratio',
      'Fraction of the run done (0–1), where its files say.',
      ['run'],
    );
    this.eta = gauge('rlwatch_run_eta_seconds', 'Estimated seconds until the run is done.', ['run']);
    this.restarts = new Counter({
      name: 'rlwatch_run_restarts_total',
      help: "Times a step went back in the run's files (a restart from a checkpoint), as this agent read them.",
      labelNames: ['run'],
      registers: [registry],
    });
    this.runsTotal = gauge('rlwatch_runs', 'Runs in the watched folder (exposed or not).', []);
  }

  /** The per-tag families of the last refresh in the text format, once (they come right before the per-run ones). */
  takeTagFamilies(): string {
    return [this.scalar, this.step, this.wallTime].map((g) => g.take()).join('\n\n');
  }

  /** `now`: the clock the live/idle window is judged by (the run list's rule). */
  refresh(
    all: readonly RunInfo[],
    source: MetricsSource,
    limits: RunLimits,
    dropped: DroppedSeries,
    now: number,
  ): void {
    for (const g of [this.scalar, this.step, this.wallTime]) g.reset();
    for (const g of this.perRun()) g.reset();
    // A counter is set by a reset and one inc: the run's count as its views hold it now.
    this.restarts.reset();
    this.runsTotal.set(all.length);
    const runs = pickRuns(all, limits.maxRuns);
    if (runs.dropped > 0) {
      const kept = new Set(runs.kept.map((r) => r.run));
      for (const r of all) if (!kept.has(r.run)) dropped.add('runs', r.run, r.tags.length * 3 + RUN_SERIES);
    }
    for (const r of runs.kept) this.exposeRun(r, source, limits, dropped, now);
  }

  private perRun(): Gauge<string>[] {
    return [this.lastEvent, this.fileWritten, this.status, this.progress, this.eta];
  }

  private exposeRun(
    r: RunInfo,
    source: MetricsSource,
    limits: RunLimits,
    dropped: DroppedSeries,
    now: number,
  ): void {
    const run = boundLabel(r.run);
    const points = source.lastPoints(r.run);
    const tags = pickTags(points.keys(), limits.maxTagsPerRun);
    for (const tag of tags.left) dropped.add('tags', `${r.run}: ${tag}`, 3);
    for (const tag of tags.kept) {
      const p = points.get(tag)!;
      const labels = labelSet(RUN_TAG, [run, boundLabel(tag)]);
      this.scalar.add(labels, p.lastValue);
      this.step.add(labels, p.lastStep);
      // A source without wall times has no series here (an invented time would read as a fresh value).
      if (Number.isFinite(p.lastWallTime)) this.wallTime.add(labels, p.lastWallTime);
    }
    if (r.lastEventAt !== null) this.lastEvent.set({ run }, r.lastEventAt / 1000);
    if (r.fileWrittenAt !== null) this.fileWritten.set({ run }, r.fileWrittenAt / 1000);
    const state = runActivity(r, now);
    for (const s of RUN_ACTIVITIES) this.status.set({ run, status: s }, s === state ? 1 : 0);
    if (r.progress?.fraction != null) this.progress.set({ run }, r.progress.fraction);
    if (r.progress?.etaSeconds != null) this.eta.set({ run }, r.progress.etaSeconds);
    this.restarts.inc({ run }, r.restarts);
  }
}

/** Series a run has besides its tags: freshness (2), status (one per state), progress, ETA, restarts. */
const RUN_SERIES = 2 + RUN_ACTIVITIES.length + 3;
