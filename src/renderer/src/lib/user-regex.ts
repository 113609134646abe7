// A regular expression the user typed (the run filter's `/…/`, the tag filter), compiled to a linear-time matcher with
// a pattern length cap: no pattern, however written, can make matching backtrack and freeze the page.

import { compileLinearRegex, UnsupportedPattern, type LinearRegex } from '../../../shared/linear-regex';

/** A pattern longer than this is refused (typed by hand, never needed). */
const MAX_PATTERN = 500;
/** Texts are tested on their first this-many characters (names and tags are shorter; this bounds each test). */
export const MAX_TEXT_TESTED = 1_000;

/** What a user pattern is used for: does it match a name. */
export type UserPattern = Pick<LinearRegex, 'test'>;

/**
 * `source` as a matcher with `flags`, or why it cannot be one. The native RegExp only checks the syntax (building one
 * is linear; running one can backtrack exponentially, `((a+))+$` or `(a|a)*$`); matching runs on compileLinearRegex,
 * linear in the text, which refuses back-references and lookaround.
 */
export function compileUserRegex(
  source: string,
  flags: string,
): { re: UserPattern | null; error: string | null } {
  if (source.length > MAX_PATTERN)
    return { re: null, error: `pattern longer than ${MAX_PATTERN} characters` };
  const own = flags.replace(/[gy]/g, '');
  try {
    new RegExp(source, own);
  } catch (e) {
    return { re: null, error: e instanceof Error ? e.message : String(e) };
  }
  try {
    const re = compileLinearRegex(source, own);
    return {
      re: { test: (text) => re.test(text.length > MAX_TEXT_TESTED ? text.slice(0, MAX_TEXT_TESTED) : text) },
      error: null,
    };
  } catch (e) {
    if (e instanceof UnsupportedPattern) return { re: null, error: e.message };
    throw e;
  }
}
