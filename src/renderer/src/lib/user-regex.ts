// A regular expression the user typed (the run filter's `/…/`, the tag filter), matched by re2js (RE2's linear-time
// engine) with a pattern length cap: no pattern, however written, can make matching backtrack and freeze the page.
//
// JavaScript syntax goes through RE2JS.translateRegExp (named groups `(?<n>…)`, `\uXXXX`, `\cX`, `[]`, `[^]`), and
// `\d`, `\w`, `\b`, classes, `{n,m}` (n, m ≤ 1 000) mean the same in both. Where RE2 reads otherwise it differs: `.`
// without s stops only at `\n` (JS: also `\r`, U+2028/9), nor do `^`/`$` with m see other line ends; `\s` is ASCII
// `[\t\n\f\r ]` (JS: also `\v` and Unicode spaces); without u, one-character items (`.`, `[^…]`, `\D`, `\W`) take a
// whole astral character such as an emoji (JS: half of one; with u both agree); with i, letters fold as JS's u flag
// folds them (ß ~ ẞ, k ~ K Kelvin); `[[:alpha:]]` is a POSIX class. Refused with a message: lookaround,
// back-references, and without u the escapes `\a \A \z \Q \E \p \P \x{ \u{` (JS reads them as letters, RE2 as a bell,
// text anchors, quoting, Unicode classes, code points).

import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/** A pattern longer than this is refused (typed by hand, never needed). */
const MAX_PATTERN = 500;
/** Texts are tested on their first this-many characters (names and tags are shorter; this bounds each test). */
export const MAX_TEXT_TESTED = 1_000;

/** What a user pattern is used for: does it match a name. */
export interface UserPattern {
  test(text: string): boolean;
}

/** JavaScript's flags as RE2JS flags (`u` needs none, RE2 reads code points; `d` only adds match indices). */
const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0,
  d: 0,
};
/** In a pattern whose escaped backslashes are dropped: a back-reference (`\8`, `\k<n>` would read as letters in RE2). */
const BACK_REFERENCE = /\\(?:[1-9]|k<)/;
/** …: an escape JavaScript reads as a letter without the u flag, and RE2 as something else. */
const LETTER_ESCAPE = /\\(?:[aAzQEpP]|[xu]\{)/;

/**
 * `source` as a matcher with `flags`, or why it cannot be one. The native RegExp only checks the syntax (building one
 * is linear; running one can backtrack exponentially, `((a+))+$` or `(a|a)*$`), so its messages stay the familiar
 * ones; matching runs on re2js, linear in the text.
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
  let bits = 0;
  for (const flag of own) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined) return { re: null, error: `flag "${flag}" is not supported in filters` };
    bits |= bit;
  }
  const escapes = source.replace(/\\\\/g, '');
  if (BACK_REFERENCE.test(escapes))
    return { re: null, error: 'back-references (\\1, \\k<name>) are not supported in filters' };
  const letter = own.includes('u') ? null : LETTER_ESCAPE.exec(escapes);
  if (letter) return { re: null, error: `"${letter[0]}" is not supported in filters without the u flag` };
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source), bits);
  } catch (e) {
    if (e instanceof RE2JSException) return { re: null, error: refusal(e) };
    throw e;
  }
  return {
    re: { test: (text) => re.test(text.length > MAX_TEXT_TESTED ? text.slice(0, MAX_TEXT_TESTED) : text) },
    error: null,
  };
}

/** Why RE2 refused a pattern JavaScript takes, in a filter's words. */
function refusal(e: RE2JSException): string {
  if (!(e instanceof RE2JSSyntaxException)) return `not supported in filters: ${e.message}`;
  const at = e.getPattern() ?? '';
  if (/^\(\?<?[=!]/.test(at)) return 'lookahead and lookbehind (?=…) are not supported in filters';
  return `not supported in filters: ${e.getDescription()} \`${at}\``;
}
