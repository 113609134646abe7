// A regular expression the user typed (the run filter's `/…/`, the tag filter), compiled with the bounds that keep it
// from freezing the page: a pattern length cap and no nested quantifiers.

/** A pattern longer than this is refused (typed by hand, never needed). */
const MAX_PATTERN = 500;
/** A quantified group holding a quantifier: `(a+)+`, `(\w*x)*`, `(a|b+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

/**
 * `source` as a RegExp with `flags` ('g' and 'y' dropped: test() would keep a lastIndex between names), or why it
 * cannot be one. Refusing nested quantifiers (`(a+)+`, the classic exponential case) is a bound, not a proof:
 * JavaScript regexes have no time limit, so callers also test short texts.
 */
export function compileUserRegex(source: string, flags: string): { re: RegExp | null; error: string | null } {
  if (source.length > MAX_PATTERN)
    return { re: null, error: `pattern longer than ${MAX_PATTERN} characters` };
  if (NESTED_QUANTIFIER.test(source))
    return { re: null, error: 'a repeated group holding a repeat, as in (a+)+, can take exponential time' };
  try {
    return { re: new RegExp(source, flags.replace(/[gy]/g, '')), error: null };
  } catch (e) {
    return { re: null, error: e instanceof Error ? e.message : String(e) };
  }
}
