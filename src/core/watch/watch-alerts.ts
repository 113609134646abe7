// `rlwatch watch`'s alerts: the app's AlertService (same engine wiring, thresholds, machine pseudo-run) as alert lines.

import type { RunInfo, SeriesDelta, Settings } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { AlertService } from '../alerts/alert-service';
import { openStore } from '../store';
import { alertLine, type AlertFeedLine } from './watch-lines';
import type { AlertFeed } from './watch-session';

export interface WatchAlertsOptions {
  /** The watched folder (alert ids and history are per run under it). */
  root: string;
  /** A run's own config (thresholds), known before any of its points arrive. */
  configOf: (run: string) => Record<string, unknown> | null;
  /** The runs of the folder. */
  runs: () => readonly string[];
  /** ms: the newest write time of a run's files (tells a run opened long after it stopped: history). */
  writtenAt?: (run: string) => number | null;
  /** The user's saved settings (the app's thresholds and stalled-after minutes). */
  settings: Settings;
  clock?: () => number;
}

/** The answer to an input that brought no line. */
const NO_LINES: readonly AlertFeedLine[] = Object.freeze([]);

/** Rules whose alert is the run's stop itself. */
const STOP_RULES = new Set(['trainer-exited', 'stalled-run']);

/** Each call hands the service one input and answers the alert lines its transitions became. */
export class WatchAlerts implements AlertFeed {
  private pending: AlertFeedLine[] = [];

  constructor(
    readonly service: AlertService,
    private readonly clock: () => number,
  ) {
    service.onBatch((b) => {
      const t = this.clock();
      for (const tr of b.transitions) this.pending.push(alertLine(tr, t));
      for (const s of b.statuses ?? []) this.pending.push({ t, type: 'run', run: s.run, state: s.status });
    });
  }

  feed(d: SeriesDelta): readonly AlertFeedLine[] {
    this.service.feed(d);
    return this.drain();
  }

  reading(run: string): readonly AlertFeedLine[] {
    this.service.reading(run);
    return this.drain();
  }

  read(run: string): readonly AlertFeedLine[] {
    this.service.read(run);
    return this.drain();
  }

  onRuns(runs: RunInfo[]): readonly AlertFeedLine[] {
    this.service.onRuns(runs);
    return this.drain();
  }

  onSnapshot(s: SystemSnapshot): readonly AlertFeedLine[] {
    this.service.onSnapshot(s);
    return this.drain();
  }

  tick(now: number): readonly AlertFeedLine[] {
    this.service.tick(now);
    return this.drain();
  }

  /** One line per event: a run whose stop alert (trainer-exited, stalled-run) is raised in this same call gets
   * the alert line, which says it exited or stalled, and no second `run` line saying so. */
  private drain(): readonly AlertFeedLine[] {
    // Most inputs (2,500 deltas a second with 50 runs × 50 tags) bring no line: no array, no set (#36).
    if (this.pending.length === 0) return NO_LINES;
    const out = this.pending;
    this.pending = [];
    const alerted = new Set(
      out.flatMap((l) =>
        l.type === 'alert' && l.state === 'raised' && STOP_RULES.has(l.rule) ? [l.run] : [],
      ),
    );
    return alerted.size === 0
      ? out
      : out.filter((l) => !(l.type === 'run' && l.state !== 'live' && alerted.has(l.run)));
  }
}

/** The alert pipeline of `watch`: history, acks and snoozes stay in memory (watch never writes the app's database). */
export function createWatchAlerts(o: WatchAlertsOptions): WatchAlerts {
  const clock = o.clock ?? Date.now;
  const store = openStore({ path: null });
  const service = new AlertService({
    store: () => store,
    root: () => o.root,
    runs: o.runs,
    configOf: o.configOf,
    ...(o.writtenAt ? { writtenAt: o.writtenAt } : {}),
    settings: () => o.settings,
    clock,
  });
  return new WatchAlerts(service, clock);
}
