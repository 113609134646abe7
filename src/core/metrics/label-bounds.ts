// Bounds on what one scrape exposes: label values made safe and cut to a length (kept distinct), runs and tags cut to a count.

import { createHash } from 'node:crypto';
import { escapeControls } from '../../shared/control-chars';
import type { RunInfo } from '../../shared/domain';

/** Longest label value for names (run, tag, rule, GPU model); longer ones are cut and tagged with a hash. */
export const MAX_NAME_LABEL_CHARS = 256;
/** Longest label value for text (an alert's message and advice). */
export const MAX_TEXT_LABEL_CHARS = 1024;

/**
 * The one form of a label value taken from outside (run, tag and GPU names, alert text, the host name), for
 * prom-client's families and the directly written ones alike. The exposition format escapes only `\`, `"` and
 * newline, so a value may carry ESC, BEL or a bidi override raw to whoever `curl`s the page into a terminal:
 * those are written as the terminal shows them (`\e`, `\x07`, `\u202e`: `shared/control-chars`), and Prometheus
 * reads them back as that visible text. A newline stays: the format writes it as `\n` and it reads back as itself.
 * A value that changed, or is longer than `max` characters, ends in `#` and 8 hex digits of its SHA-1 (a cut one
 * in `…#…`): two names that differ only there stay two series. A value that is neither passes unchanged.
 */
export function boundLabel(value: string, max = MAX_NAME_LABEL_CHARS): string {
  const safe = value.includes('\n')
    ? value.split('\n').map(escapeControls).join('\n')
    : escapeControls(value);
  if (safe === value && value.length <= max) return value;
  const hash = createHash('sha1').update(value).digest('hex').slice(0, 8);
  if (safe.length + 9 <= max) return `${safe}#${hash}`;
  return `${cutAt(safe, Math.max(0, max - 10))}…#${hash}`;
}

/** `s` cut to at most `n` UTF-16 units, never between the two halves of a surrogate pair. */
function cutAt(s: string, n: number): string {
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
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
