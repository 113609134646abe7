// Bounds on what one scrape exposes: label values cut to a length (kept distinct), runs and tags cut to a count.

import { createHash } from 'node:crypto';
import type { RunInfo } from '../../shared/domain';

/** Longest label value for names (run, tag, rule, GPU model); longer ones are cut and tagged with a hash. */
export const MAX_NAME_LABEL_CHARS = 256;
/** Longest label value for text (an alert's message and advice). */
export const MAX_TEXT_LABEL_CHARS = 1024;

/**
 * A label value of at most `max` characters. A longer one keeps its start and ends in `…#` and 8 hex digits
 * of its SHA-1, so two long names that share a start stay two series.
 */
export function boundLabel(value: string, max = MAX_NAME_LABEL_CHARS): string {
  if (value.length <= max) return value;
  const hash = createHash('sha1').update(value).digest('hex').slice(0, 8);
  return `${value.slice(0, Math.max(0, max - 10))}…#${hash}`;
}

/** The runs a scrape exposes: the most recently active first (a sweep's live runs matter most), then by name. */
export function pickRuns(runs: readonly RunInfo[], max: number): { kept: RunInfo[]; dropped: number } {
  if (runs.length <= max) return { kept: [...runs], dropped: 0 };
  const byRecent = [...runs].sort(
    (a, b) => (b.lastEventAt ?? -Infinity) - (a.lastEventAt ?? -Infinity) || (a.run < b.run ? -1 : 1),
  );
  return { kept: byRecent.slice(0, max), dropped: runs.length - max };
}

/** The tags a scrape exposes for one run: the first `max` in name order (stable from scrape to scrape), and the rest. */
export function pickTags(tags: Iterable<string>, max: number): { kept: string[]; left: string[] } {
  const all = [...tags].sort();
  return { kept: all.slice(0, max), left: all.slice(max) };
}
