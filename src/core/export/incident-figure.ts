// An incident's figure: the alert's tag and the related metrics of its rule family around the step, the alert marked.

import { classifyTag, type Role } from '../../shared/catalog';
import { resolveBand } from '../../shared/charts/band';
import type { Figure, FigurePanel } from '../../shared/charts/figure';
import { buildMarkers } from '../../shared/charts/markers';
import { coMoverText } from '../../shared/co-mover-text';
import type { AlertInfo } from '../../shared/domain';
import { formatNumber } from '../../shared/format';
import { ruleTitle, type RuleId } from '../health';
import { figureLines } from './figure-series';
import type { IncidentWindow } from './incident-window';
import type { RunSeries } from './tables';

/**
 * The metrics that tell an incident's story, per rule: what the trainer can act on next to the alert's own
 * tag (KL with entropy and reward, as seed 004's troubleshooting table reads them; combined rules their inputs).
 */
export const RELATED_ROLES: Readonly<Record<RuleId, readonly Role[]>> = {
  'non-finite': ['loss', 'reward', 'grad_norm'],
  'kl-above-target': ['kl', 'entropy', 'reward'],
  'entropy-collapse': ['entropy', 'kl', 'reward'],
  'clip-fraction-out-of-band': ['clip_fraction', 'kl', 'policy_loss'],
  'grad-norm-spike': ['grad_norm', 'loss', 'learning_rate'],
  'reward-plateau': ['reward', 'kl', 'entropy'],
  'reward-variance-high': ['reward_variance', 'reward', 'reward_std'],
  'response-truncation-rising': ['response_truncation', 'response_length', 'reward'],
  'importance-ratio-off': ['importance_ratio', 'kl', 'clip_fraction'],
  'generation-throughput-low': ['generation_throughput', 'gpu_util'],
  'gpu-util-low': ['gpu_util', 'gpu_memory_pct', 'generation_throughput'],
  'memory-high': ['memory_pct', 'gpu_memory_pct'],
  'gpu-memory-high': ['gpu_memory_pct', 'memory_pct', 'gpu_util'],
  'stalled-run': ['reward', 'loss'],
  'trainer-exited': ['reward', 'loss'],
  'learning-stagnation': ['reward', 'kl', 'learning_rate'],
  'entropy-collapse-low-temperature': ['entropy', 'sampling_temperature', 'reward'],
  'kl-high-reward-falling': ['kl', 'reward', 'entropy'],
  'clip-near-zero-slow-learning': ['clip_fraction', 'reward', 'learning_rate'],
  'value-loss-divergence': ['value_loss', 'explained_variance', 'reward'],
  'q-value-explosion': ['value_estimate', 'value_loss', 'reward'],
  'explained-variance-collapse': ['explained_variance', 'value_loss', 'reward'],
  'response-length-collapse': ['response_length', 'reward', 'entropy'],
  'response-length-explosion': ['response_length', 'response_truncation', 'reward'],
  'reward-hacking': ['reward', 'kl_penalty', 'response_length'],
};

/** At most this many panels: the alert's tag and three related ones. */
export const MAX_PANELS = 4;

/**
 * The charts of an incident: the alert's tag first, then the tags that moved sharply when it began (its co-movers,
 * strongest first), then for each related role the run's tag of that role with the most points in the window (a
 * run logs reward per step and per epoch: the per-step one tells more).
 */
export function incidentTags(
  alert: Pick<AlertInfo, 'rule' | 'tag' | 'changed'>,
  series: RunSeries,
): string[] {
  const out: string[] = [];
  if (alert.tag !== null && series.has(alert.tag)) out.push(alert.tag);
  for (const m of alert.changed ?? [])
    if (out.length < MAX_PANELS && series.has(m.tag) && !out.includes(m.tag)) out.push(m.tag);
  const ownRole = alert.tag === null ? null : (classifyTag(alert.tag)?.role ?? null);
  const roles = RELATED_ROLES[alert.rule as RuleId] ?? [];
  const points = (tag: string): number => (series.get(tag) ?? []).reduce((n, s) => n + s.length, 0);
  for (const role of roles) {
    if (role === ownRole || out.length >= MAX_PANELS) continue;
    let best: string | null = null;
    for (const tag of series.keys())
      if (
        classifyTag(tag)?.role === role &&
        !out.includes(tag) &&
        (best === null || points(tag) > points(best))
      )
        best = tag;
    if (best !== null) out.push(best);
  }
  return out;
}

export interface IncidentFigureInput {
  alert: AlertInfo;
  /** The window's series (incident-window.ts). */
  series: RunSeries;
  tags: readonly string[];
  window: Pick<IncidentWindow, 'min' | 'max'>;
  /** The thresholds in force (the band is drawn with them). */
  thresholds: Record<string, number>;
  /** Plot width in pixels a panel gets (lines are downsampled to it). */
  pixels: number;
}

/** The figure, or null when the run logs none of the incident's tags in the window. */
export function incidentFigure(o: IncidentFigureInput): Figure | null {
  const { alert } = o;
  const panels: FigurePanel[] = [];
  for (const tag of o.tags) {
    const parts = o.series.get(tag);
    if (!parts) continue;
    const band = resolveBand(tag, o.thresholds);
    const moved = alert.changed?.find((m) => m.tag === tag);
    panels.push({
      // A co-mover's panel says how it moved (`train/learning_rate ×100 at step 61440`).
      title: moved ? coMoverText(moved) : tag,
      yTitle: band?.label ?? '',
      spec: {
        view: { xAxis: 'step', logY: false, smoothing: 0 },
        series: [
          figureLines(alert.run, parts, { xAxis: 'step', smoothing: 0, pixels: o.pixels, steps: o.window }),
        ],
        band: band && { min: band.min, max: band.max, target: band.target },
        // The alert's step on every panel: what the related metrics did at that moment.
        markers: buildMarkers([], [alert], 'step', null),
      },
    });
  }
  if (panels.length === 0) return null;
  const title = ruleTitle(alert.rule);
  return {
    title: `${title} — ${alert.run}, step ${alert.step}`,
    subtitle: `${alert.severity}: ${alert.tag ?? alert.rule} = ${formatNumber(alert.value)} · steps ${o.window.min} to ${o.window.max}`,
    panels,
  };
}
