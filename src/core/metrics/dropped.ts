// What the cardinality bounds leave out: a gauge of the series cut now, a counter of drops (each cut item once), one log line per new cut.

import { Counter, Gauge, type Registry } from 'prom-client';

export type DropReason = 'runs' | 'tags' | 'alerts';
const REASONS: readonly DropReason[] = ['runs', 'tags', 'alerts'];

/** Names a log line quotes per reason; the rest are counted ("and N more"). */
const NAMES_LOGGED = 10;

/** How a reason's cut is worded in the log: the item (one, several) and what is kept (the bound a user can raise). */
const WHAT: Record<DropReason, [one: string, many: string, kept: string]> = {
  runs: ['run', 'runs', 'the most recently active are kept; --metrics-max-runs'],
  tags: ['tag', 'tags', 'the first per run by name are kept; --metrics-max-tags'],
  alerts: ['alert series', 'alert series', 'active ones first'],
};

/**
 * One scrape's cuts, item by item (a run, a run's tag, an alert series), compared with the previous scrape's:
 * `rlwatch_metrics_dropped_series{reason}` is what this scrape left out (a gauge: the same for every scraper),
 * `rlwatch_metrics_drops_total{reason}` counts items as they begin to be left out (an item cut scrape after
 * scrape counts once; one that came back and is cut again counts again), and each new cut is logged once.
 * Memory: the item names of the last scrape's cuts, which the core holds anyway (its runs and tags).
 */
export class DroppedSeries {
  private readonly gauge: Gauge<'reason'>;
  private readonly drops: Counter<'reason'>;
  private previous = new Map<DropReason, Set<string>>();
  private current = new Map<DropReason, Set<string>>();
  private series = new Map<DropReason, number>();

  constructor(
    registry: Registry,
    private readonly log: (message: string) => void,
  ) {
    this.gauge = new Gauge({
      name: 'rlwatch_metrics_dropped_series',
      help: 'Series the last scrape left out by the cardinality bounds (runs per agent, tags per run, alert series).',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.drops = new Counter({
      name: 'rlwatch_metrics_drops_total',
      help: 'Runs, tags and alert series that scrapes began to leave out (each counted once per cut, not once per scrape).',
      labelNames: ['reason'],
      registers: [registry],
    });
    // Every reason exists from the first scrape, at 0, so rate() and alerts on it work at once.
    for (const reason of REASONS) {
      this.gauge.set({ reason }, 0);
      this.drops.inc({ reason }, 0);
    }
  }

  /** Starts a scrape's account. */
  begin(): void {
    this.current = new Map(REASONS.map((r) => [r, new Set<string>()]));
    this.series = new Map(REASONS.map((r) => [r, 0]));
  }

  /** One item this scrape leaves out (`item` names it in the log; unique per reason), costing `series` series. */
  add(reason: DropReason, item: string, series: number): void {
    this.current.get(reason)!.add(item);
    this.series.set(reason, this.series.get(reason)! + series);
  }

  /** Ends the scrape: the gauge, the counter of new cuts, one log line per reason with new ones. */
  end(): void {
    for (const reason of REASONS) {
      const now = this.current.get(reason)!;
      const before = this.previous.get(reason);
      const added = [...now].filter((item) => !before?.has(item));
      this.gauge.set({ reason }, this.series.get(reason)!);
      if (added.length === 0) continue;
      this.drops.inc({ reason }, added.length);
      const named = added.slice(0, NAMES_LOGGED).join(', ');
      const more = added.length > NAMES_LOGGED ? `, and ${added.length - NAMES_LOGGED} more` : '';
      const [one, many, kept] = WHAT[reason];
      this.log(
        `/metrics leaves out ${added.length} ${added.length === 1 ? one : many} (${kept}): ${named}${more}`,
      );
    }
    this.previous = this.current;
  }
}
