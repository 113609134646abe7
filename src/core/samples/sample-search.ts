// The samples search: a case-insensitive substring, or `/regex/flags` matched on re2js (linear time), over a table's text cells; an index per table (its text lower-cased, joined) answers a substring, and a regex's required literal, at native speed.

import { ApiError } from '../../shared/result';
import { SAMPLE_CELL_CHARS, type SampleTable } from '../../shared/samples';
import { slashPattern } from '../../shared/slash-pattern';
import { compileUserRegex, requiredLiteral, type UserPattern } from '../../shared/user-regex';

/** Which rows of a table match a search (1: it does), in the table's row order. */
export type SampleMatcher = (table: SampleTable) => Uint8Array;

/** A table's text cells lower-cased and joined by NUL (no search text holds one), and where each row starts in it. */
interface SearchIndex {
  rows: number;
  text: string;
  /** Row k's text starts at starts[k]; starts[rows] is the text's length. */
  starts: Int32Array;
}

/** Indexes by table, built when the table is first searched, extended when it has grown (a live step). */
const indexes = new WeakMap<SampleTable, SearchIndex>();

/** A row's text cells joined by NUL. */
function rowText(cells: readonly unknown[]): string {
  let out = '';
  for (const c of cells) if (typeof c === 'string') out += c + '\u0000';
  return out;
}

/**
 * Lower-cased as a case-insensitive search compares: `toLowerCase`, and the long s `ſ` as `s` (RE2's i flag folds it
 * with s and S; toLowerCase keeps it), so an ASCII literal found nowhere here is in no text under either rule.
 */
function fold(s: string): string {
  return s.toLowerCase().replace(/ſ/g, 's');
}

/** The table's index, its new rows added (a row's folded text may be longer than the row's: offsets are the folded ones). */
function searchIndex(table: SampleTable): SearchIndex {
  const seen = indexes.get(table);
  const n = table.rows.length;
  if (seen && seen.rows === n) return seen;
  const from = seen?.rows ?? 0;
  const parts: string[] = seen ? [seen.text] : [];
  const starts = new Int32Array(n + 1);
  if (seen) starts.set(seen.starts.subarray(0, from + 1));
  let at = seen?.text.length ?? 0;
  for (let k = from; k < n; k++) {
    const t = fold(rowText(table.rows[k]!.cells));
    parts.push(t);
    at += t.length;
    starts[k + 1] = at;
  }
  const index = { rows: n, text: parts.join(''), starts };
  indexes.set(table, index);
  return index;
}

/** Rows whose folded text holds `needle` (folded, without NUL), by the table's index. */
function rowsHolding(table: SampleTable, needle: string): Uint8Array {
  const { text, starts, rows } = searchIndex(table);
  const hit = new Uint8Array(rows);
  let row = 0;
  for (let p = text.indexOf(needle); p >= 0; ) {
    while (starts[row + 1]! <= p) row++;
    hit[row] = 1;
    p = text.indexOf(needle, starts[row + 1]!);
  }
  return hit;
}

/** Rows with a text cell `test` takes, among `only` (all when null). */
function rowsWhere(table: SampleTable, test: (text: string) => boolean, only: Uint8Array | null): Uint8Array {
  const hit = new Uint8Array(table.rows.length);
  table.rows.forEach((r, k) => {
    if (only !== null && only[k] === 0) return;
    if (r.cells.some((c) => typeof c === 'string' && test(c))) hit[k] = 1;
  });
  return hit;
}

/**
 * The matcher of what was typed in the search box: `/pattern/flags` a regular expression (case-insensitive unless it
 * has flags of its own, as the run filter reads it; refused as a bad request with the filter's message), anything
 * else a case-insensitive substring (`toLowerCase`). A substring is looked up in the table's index; a regex runs on
 * re2js (~10 MB/s) only in the rows holding its required literal (`requiredLiteral`), found in the index when the
 * regex ignores case (an ASCII literal only), by `includes` when it does not.
 */
export function sampleMatcher(search: string): SampleMatcher {
  const slash = slashPattern(search);
  if (slash === null) {
    const needle = fold(search.trim());
    if (needle.includes('\u0000')) return (t) => rowsWhere(t, (text) => fold(text).includes(needle), null);
    return (t) => rowsHolding(t, needle);
  }
  const flags = slash.flags === '' ? 'i' : slash.flags;
  const { re, error } = compileUserRegex(slash.source, flags, SAMPLE_CELL_CHARS);
  if (re === null) throw new ApiError('bad-request', `search ${search.trim()}: ${error}`);
  const pattern: UserPattern = re;
  const literal = requiredLiteral(slash.source);
  const caseless = flags.includes('i');
  // Under i, only an ASCII literal is found by folding (other letters fold in ways toLowerCase does not: ς, ϐ…).
  if (literal === null || (caseless && !/^\p{ASCII}+$/u.test(literal)))
    return (t) => rowsWhere(t, (text) => pattern.test(text), null);
  if (caseless) {
    const needle = literal.toLowerCase();
    // In those rows, only the cells holding it go through re2js.
    return (t) =>
      rowsWhere(t, (text) => fold(text).includes(needle) && pattern.test(text), rowsHolding(t, needle));
  }
  return (t) => rowsWhere(t, (text) => text.includes(literal) && pattern.test(text), null);
}
