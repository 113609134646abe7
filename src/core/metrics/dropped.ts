// The counter of series a scrape left out, by reason, so a cut is visible in Prometheus itself.

import { Counter, type Registry } from 'prom-client';

export type DropReason = 'runs' | 'tags' | 'alerts';
const REASONS: readonly DropReason[] = ['runs', 'tags', 'alerts'];

export class DroppedSeries {
  private readonly counter: Counter<'reason'>;

  constructor(registry: Registry) {
    this.counter = new Counter({
      name: 'rlwatch_metrics_dropped_series_total',
      help: 'Series left out of scrapes by the cardinality bounds (runs per agent, tags per run, alert series), summed over scrapes.',
      labelNames: ['reason'],
      registers: [registry],
    });
    // Every reason exists from the first scrape, at 0, so rate() and alerts on it work at once.
    for (const reason of REASONS) this.counter.inc({ reason }, 0);
  }

  add(reason: DropReason, series: number): void {
    if (series > 0) this.counter.inc({ reason }, series);
  }
}
