// Every active alert as a gauge at 1 (0 once it clears, while its run is open), its threshold, value and advice.

import { Gauge, type Registry } from 'prom-client';
import type { AlertInfo } from '../../shared/domain';
import { MACHINE_RUN } from '../alerts/machine-run';
import type { DroppedSeries } from './dropped';
import { boundLabel, MAX_TEXT_LABEL_CHARS } from './label-bounds';
import type { MetricsSource } from './metrics-source';
import { thresholdsOfRule } from '../health';

type AlertLabels = { run: string; rule: string; severity: string; tag: string };

export class AlertMetrics {
  private readonly alert: Gauge<keyof AlertLabels>;
  private readonly threshold: Gauge<'run' | 'rule' | 'tag' | 'threshold'>;
  private readonly value: Gauge<'run' | 'rule' | 'tag'>;
  private readonly info: Gauge<'run' | 'rule' | 'tag' | 'severity' | 'message' | 'advice'>;
  /** Alert series exposed so far (oldest first): one that is no longer active reads 0 while its run is open. */
  private readonly seen = new Map<string, AlertLabels & { rawRun: string }>();

  constructor(registry: Registry) {
    this.alert = new Gauge({
      name: 'rlwatch_alert',
      help: 'An rlwatch health alert: 1 while active, 0 after it cleared (while its run is still watched).',
      labelNames: ['run', 'rule', 'severity', 'tag'],
      registers: [registry],
    });
    this.threshold = new Gauge({
      name: 'rlwatch_alert_threshold',
      help: "The threshold an active alert's rule judges against, as resolved for its run (settings > run config > default).",
      labelNames: ['run', 'rule', 'tag', 'threshold'],
      registers: [registry],
    });
    this.value = new Gauge({
      name: 'rlwatch_alert_value',
      help: 'The value that tripped an active alert (what its message quotes).',
      labelNames: ['run', 'rule', 'tag'],
      registers: [registry],
    });
    this.info = new Gauge({
      name: 'rlwatch_alert_info',
      help: "An active alert's message and advice as labels (always 1), for alert annotations.",
      labelNames: ['run', 'rule', 'tag', 'severity', 'message', 'advice'],
      registers: [registry],
    });
  }

  refresh(
    source: MetricsSource,
    openRuns: ReadonlySet<string>,
    maxSeries: number,
    dropped: DroppedSeries,
  ): void {
    for (const g of [this.alert, this.threshold, this.value, this.info] as Gauge<string>[]) g.reset();
    const active = source.activeAlerts();
    const exposed = active.slice(0, maxSeries);
    for (const a of active.slice(maxSeries)) dropped.add('alerts', describeAlert(a), 1);
    const now = new Set<string>();
    for (const a of exposed) {
      const labels = alertLabels(a);
      const key = keyOf(labels);
      now.add(key);
      this.seen.delete(key);
      this.seen.set(key, { ...labels, rawRun: a.run });
      this.alert.set(labels, 1);
      this.exposeDetails(a, labels, source);
    }
    for (const [key, s] of this.seen) {
      if (now.has(key)) continue;
      // A run that left the folder (or a folder that closed) takes its cleared alerts along.
      if (s.rawRun !== MACHINE_RUN && !openRuns.has(s.rawRun)) this.seen.delete(key);
    }
    // Oldest cleared series go first once over the bound; active ones always stay.
    for (const [key] of this.seen) {
      if (this.seen.size <= maxSeries) break;
      if (!now.has(key)) this.seen.delete(key);
    }
    for (const [key, s] of this.seen) {
      if (now.has(key)) continue;
      this.alert.set({ run: s.run, rule: s.rule, severity: s.severity, tag: s.tag }, 0);
    }
  }

  private exposeDetails(a: AlertInfo, labels: AlertLabels, source: MetricsSource): void {
    const at = { run: labels.run, rule: labels.rule, tag: labels.tag };
    this.value.set(at, a.value);
    this.info.set(
      {
        ...at,
        severity: labels.severity,
        message: boundLabel(a.message, MAX_TEXT_LABEL_CHARS),
        advice: boundLabel(a.advice ?? '', MAX_TEXT_LABEL_CHARS),
      },
      1,
    );
    const names = thresholdsOfRule(a.rule);
    if (names.length === 0) return;
    const values = source.thresholdValues(a.run);
    for (const threshold of names) {
      const v = values[threshold];
      if (v !== undefined) this.threshold.set({ ...at, threshold }, v);
    }
  }
}

function alertLabels(a: AlertInfo): AlertLabels {
  return {
    run: boundLabel(a.run),
    rule: boundLabel(a.rule),
    severity: a.severity,
    tag: boundLabel(a.tag ?? ''),
  };
}

/** An alert as the log names one it left out. */
function describeAlert(a: AlertInfo): string {
  return `${a.run}: ${a.rule}${a.tag === null ? '' : ` (${a.tag})`} ${a.severity}`;
}

function keyOf(l: AlertLabels): string {
  return JSON.stringify([l.run, l.rule, l.severity, l.tag]);
}
