// Builds runs.details: the run's config, progress with its raw fields, epoch summary, self-logged system tags and thresholds.

import { groupOf, runScope } from '../../shared/catalog';
import type { RunDetails } from '../../shared/domain';
import { thresholdTable, type ResolvedThresholds } from '../health';
import type { ProgressInfo } from '../readers/types';
import { epochSummary, type EpochSource } from './epoch-summary';

type Field = number | string | boolean | null;

/** Progress fields as the contract carries them: scalars only (nested history arrays are summarised). */
export function progressFields(fields: Record<string, unknown>): Record<string, Field> {
  const out: Record<string, Field> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') out[k] = v;
    else if (typeof v === 'number') out[k] = Number.isFinite(v) ? v : null;
    else if (Array.isArray(v)) out[k] = `${v.length} entries`;
  }
  return out;
}

export function buildRunDetails(
  run: string,
  tags: readonly string[],
  config: Record<string, unknown> | null,
  progress: ProgressInfo | null,
  source: Omit<EpochSource, 'tags'>,
  thresholds: ResolvedThresholds,
): RunDetails {
  return {
    run,
    config,
    progress: progress
      ? {
          fraction: progress.fraction,
          etaSeconds: progress.etaSeconds,
          fields: progressFields(progress.fields),
        }
      : null,
    epochSummary: epochSummary({ ...source, tags }),
    systemTags: tags.filter((t) => groupOf(t) === 'System'),
    thresholds: thresholdTable(thresholds),
    scope: runScope(tags, config),
  };
}
