// The sidebar's run filter: every word typed must appear in the run's name (any case, any order), or `/regex/flags`.

/**
 * Names are tested on their first MAX_NAME_TESTED characters only: run names are short, and a regex's backtracking
 * cost grows with the text it runs on. Together with refusing nested quantifiers (`(a+)+`, the classic exponential
 * case) this keeps a typed pattern from freezing the page; it is a bound, not a proof (JavaScript regexes have no
 * time limit).
 */
export const MAX_NAME_TESTED = 200;
/** A pattern longer than this is refused (typed by hand, never needed). */
const MAX_PATTERN = 500;
/** A quantified group holding a quantifier: `(a+)+`, `(\w*x)*`, `(a|b+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

export interface RunQuery {
  /** The query is a regular expression (`/…/`). */
  regex: boolean;
  /** Why the regex cannot be used (shown inline); null when it can, or for words. */
  error: string | null;
  /** Whether a run name matches (nothing matches an invalid regex). */
  test(name: string): boolean;
}

/** Pure: `/pattern/flags` is a regex (case-insensitive unless it has flags of its own); anything else is words. */
export function parseRunQuery(text: string): RunQuery {
  const m = /^\s*\/(.*)\/([a-z]*)\s*$/s.exec(text);
  if (m) {
    const [, source, flags] = m as unknown as [string, string, string];
    const refuse = (error: string): RunQuery => ({ regex: true, error, test: () => false });
    if (source.length > MAX_PATTERN) return refuse(`pattern longer than ${MAX_PATTERN} characters`);
    if (NESTED_QUANTIFIER.test(source))
      return refuse('a repeated group holding a repeat, as in (a+)+, can take exponential time');
    let re: RegExp;
    try {
      // No 'g' or 'y': test() would then keep a lastIndex between names.
      re = new RegExp(source, (flags === '' ? 'i' : flags).replace(/[gy]/g, ''));
    } catch (e) {
      return refuse(e instanceof Error ? e.message : String(e));
    }
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
