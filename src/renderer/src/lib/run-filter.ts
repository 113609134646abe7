// The sidebar's run filter: every word typed must appear in the run's name (any case, any order), or `/regex/flags`.

import { slashPattern } from '../../../shared/slash-pattern';
import { userRegexNow } from './user-regex-loader';

/**
 * Names are tested on their first MAX_NAME_TESTED characters only: run names are short, and a pattern's cost grows
 * with the text it runs on (linearly: compileUserRegex's matcher never backtracks).
 */
export const MAX_NAME_TESTED = 200;

export interface RunQuery {
  /** The query is a regular expression (`/…/`). */
  regex: boolean;
  /** Why the regex cannot be used (shown inline); null when it can, or for words. */
  error: string | null;
  /** The regex engine is still loading: every name matches until the caller asks again (`loadUserRegex`). */
  pending?: true;
  /** Whether a run name matches (nothing matches an invalid regex). */
  test(name: string): boolean;
}

/** Pure: `/pattern/flags` is a regex (case-insensitive unless it has flags of its own); anything else is words. */
export function parseRunQuery(text: string): RunQuery {
  const slash = slashPattern(text);
  if (slash) {
    const compile = userRegexNow();
    if (compile === null) return { regex: true, error: null, pending: true, test: () => true };
    const { re, error } = compile(slash.source, slash.flags === '' ? 'i' : slash.flags);
    if (re === null) return { regex: true, error, test: () => false };
    return { regex: true, error: null, test: (name) => re.test(name.slice(0, MAX_NAME_TESTED)) };
  }
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return {
    regex: false,
    error: null,
    test: (name) => {
      const lower = name.toLowerCase();
      return words.every((w) => lower.includes(w));
    },
  };
}

/** Pure: the runs whose name matches `text` (words or `/regex/`); all runs for empty text. */
export function filterRuns<T extends { run: string }>(runs: readonly T[], text: string): T[] {
  if (text.trim() === '') return [...runs];
  const q = parseRunQuery(text);
  return runs.filter((r) => q.test(r.run));
}
