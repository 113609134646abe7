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
  maxText: number = MAX_TEXT_TESTED,
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
    re: { test: (text) => re.test(text.length > maxText ? text.slice(0, maxText) : text) },
    error: null,
  };
}

/** `s` as a pattern matching exactly it (with or without the u flag). */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Escapes that stand for one literal character (a punctuation mark escaped). */
const LITERAL_ESCAPE = /[^0-9A-Za-z]/;

/**
 * The longest run of literal characters every match of `source` (a pattern compileUserRegex took) must contain, or
 * null when none is sure (an alternation at the top, no plain characters). Read conservatively: groups, classes,
 * anchors, `.` and escapes other than an escaped punctuation mark end a run; a quantifier takes its character out of
 * the run (`ab*c`: `a`, `c`). A search tests a text for it (`indexOf`, or case-folded under i) before running the
 * regex: most texts are passed over at native speed, and the linear engine runs only where a match is possible.
 */
export function requiredLiteral(source: string): string | null {
  const runs: string[] = [];
  let run = '';
  const end = (): void => {
    if (run !== '') runs.push(run);
    run = '';
  };
  for (let i = 0; i < source.length; ) {
    const c = source[i]!;
    if (c === '|') return null;
    if (c === '(' || c === '[') {
      end();
      // Skip the group or class whole (escapes and classes inside it too); an alternation inside is its own.
      let depth = 0;
      let inClass = false;
      for (; i < source.length; i++) {
        const d = source[i]!;
        if (d === '\\') i++;
        else if (inClass) inClass = d !== ']';
        else if (d === '[') inClass = true;
        else if (d === '(') depth++;
        else if (d === ')' && --depth === 0) break;
        if (c === '[' && !inClass) break;
      }
      i++;
      continue;
    }
    const q = /^(?:[*+?]|\{\d+(?:,\d*)?\})/.exec(source.slice(i, i + 24));
    if (q) {
      // A quantified character is not sure to be there (`*`, `?`, `{0,…}`), or is, once (`+`, `{n≥1…}`): the run ends.
      const atLeastOnce = q[0] === '+' || /^\{[1-9]/.test(q[0]);
      if (!atLeastOnce) run = run.slice(0, -1);
      end();
      i += q[0].length;
      if (source[i] === '?') i++; // lazy
      continue;
    }
    if (c === '\\') {
      const e = source[i + 1];
      if (e !== undefined && LITERAL_ESCAPE.test(e)) run += e;
      else end();
      i += 2;
      continue;
    }
    if (c === '.' || c === '^' || c === '$' || c === ')') {
      end();
      i++;
      continue;
    }
    // One code point (an astral character is two units: a quantifier after it takes both).
    const cp = source.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const next = source.slice(i + ch.length, i + ch.length + 24);
    if (ch.length === 2 && /^(?:[*+?]|\{\d+(?:,\d*)?\})/.test(next)) {
      end();
      i += ch.length;
      continue;
    }
    run += ch;
    i += ch.length;
  }
  end();
  let best: string | null = null;
  for (const r of runs) if (best === null || r.length > best.length) best = r;
  return best;
}

/** Why RE2 refused a pattern JavaScript takes, in a filter's words. */
function refusal(e: RE2JSException): string {
  if (!(e instanceof RE2JSSyntaxException)) return `not supported in filters: ${e.message}`;
  const at = e.getPattern() ?? '';
  if (/^\(\?<?[=!]/.test(at)) return 'lookahead and lookbehind (?=…) are not supported in filters';
  return `not supported in filters: ${e.getDescription()} \`${at}\``;
}
