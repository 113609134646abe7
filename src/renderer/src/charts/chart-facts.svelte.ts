// What a chart's caption and data-* attributes say of the lines it holds: points, restarts and sessions drawn, the legend, missing tags.

import { missingNote, type ChartLine } from '../../../shared/charts/composed';
import { legendEntries, type LegendEntry } from '../../../shared/charts/legend';
import { summarize, type RunSeries } from '../../../shared/charts/series-model';
import { sessionsDrawn } from '../../../shared/session-text';

export class ChartFacts {
  points = $state(0);
  nonPositive = $state(0);
  /** Restart marks drawn (data-restart-markers). */
  restarts = $state(0);
  /** Which sessions are drawn, when a run restarted: `sessions 1–2 (1 faded)`. */
  sessionNote = $state('');
  /** The newest step drawn (data-last-step). */
  lastStep = $state<number | null>(null);
  /** The overlay legend: only runs with points in this chart (a seed group's runs as one entry). */
  legend = $state<LegendEntry[]>([]);
  /** A composed chart: which of its tags some runs do not log ('' when all do, or not composed). */
  missingText = $state('');

  /** Takes in the series as rebuilt this frame, the earlier sessions drawn, and the seed groups' legend entries. */
  update(o: {
    all: readonly RunSeries[];
    earlierDrawn: boolean;
    groupEntries: readonly LegendEntry[];
    grouped: ReadonlySet<string>;
    /** A composed chart's lines and those not found, and whether it draws several runs; null when not composed. */
    composed: { lines: readonly ChartLine[]; missing: ReadonlySet<string>; multiRun: boolean } | null;
  }): void {
    const { all } = o;
    const summary = summarize(all);
    this.points = summary.points;
    this.nonPositive = summary.nonPositive;
    this.restarts = summary.restarts;
    const sessions = Math.max(0, ...all.map((s) => s.sessions.length));
    const note = sessionsDrawn(sessions, o.earlierDrawn ? 'all' : 'current');
    if (note !== this.sessionNote) this.sessionNote = note;
    this.lastStep = summary.lastStep;
    if (o.composed !== null) {
      const missing = missingNote(o.composed.lines, o.composed.missing, o.composed.multiRun);
      if (missing !== this.missingText) this.missingText = missing;
    }
    // Seed groups: one legend entry per group (its runs' own lines are not drawn).
    const entries = [...o.groupEntries, ...legendEntries(all).filter((e) => !o.grouped.has(e.run))];
    if (entries.map((e) => e.run).join('\u0000') !== this.legend.map((e) => e.run).join('\u0000'))
      this.legend = entries;
  }
}
