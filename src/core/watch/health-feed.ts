// Connects the health engine to a watch session: points in, contract alert lines out; thresholds per run.

import type { RunInfo, SeriesDelta } from '../../shared/domain';
import { resolveThresholds, type AlertTransition, type HealthEngine } from '../health';
import type { AlertFeed } from './watch-session';
import type { AlertLine } from './watch-lines';

export function alertLine(tr: AlertTransition, t: number): AlertLine {
  const a = tr.alert;
  const cleared = tr.kind === 'cleared';
  return {
    t,
    type: 'alert',
    run: a.run,
    rule: a.rule,
    severity: a.severity,
    // The contract knows raised/cleared only: an escalation to critical is a new raise at that severity.
    state: cleared ? 'cleared' : 'raised',
    message: a.message,
    step: cleared ? tr.step : a.step,
    value: cleared ? tr.value : a.value,
  };
}

export class HealthFeed implements AlertFeed {
  private readonly configured = new Set<string>();

  constructor(
    private readonly engine: HealthEngine,
    /** The run's own config (thresholds); known before any of its points arrive. */
    private readonly configOf: (run: string) => Record<string, unknown> | null,
    private readonly now: () => number = Date.now,
  ) {}

  feed(d: SeriesDelta): AlertLine[] {
    if (!this.configured.has(d.run)) {
      this.configured.add(d.run);
      this.engine.setThresholds(d.run, resolveThresholds(null, this.configOf(d.run)).values);
    }
    const t = this.now();
    return this.engine.feedBatch(d.run, d.tag, d.steps, d.wallTimes, d.values).map((tr) => alertLine(tr, t));
  }

  tick(now: number): AlertLine[] {
    return this.engine.tick(now).map((tr) => alertLine(tr, now));
  }

  /** Finished runs (progress at 100 %) are not "stalled" when they go quiet. */
  onRuns(runs: RunInfo[]): void {
    for (const r of runs) if (r.progress?.fraction === 1) this.engine.setFinished(r.run);
  }
}
