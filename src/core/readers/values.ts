// Turns text cells and JSON values into numbers: NaN/Inf spellings, Python's bare NaN tokens.

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** A percentage as loggers print it ("60.03%", "45 %"): the number before the sign. */
const PERCENT = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*%$/;

/** Whether a cell is written as a percentage ("60.03%"): its number is in percent, not a fraction. */
export const isPercentCell = (cell: string): boolean => PERCENT.test(cell.trim());

/** A numeric cell, or undefined for empty and string cells (which are skipped, never NaN). A percentage
 * is its number ("60.03%" → 60.03). */
export function parseNumberCell(cell: string): number | undefined {
  const t = cell.trim();
  if (t === '' || t.length > 64) return undefined;
  if (DECIMAL.test(t)) return Number(t);
  const pct = PERCENT.exec(t);
  if (pct) return Number(pct[1]);
  switch (t.toLowerCase()) {
    case 'nan':
    case '+nan':
    case '-nan':
      return Number.NaN;
    case 'inf':
    case '+inf':
    case 'infinity':
    case '+infinity':
      return Infinity;
    case '-inf':
    case '-infinity':
      return -Infinity;
    default:
      return undefined;
  }
}

// Python's json.dumps writes NaN, Infinity and -Infinity as bare tokens, which JSON.parse rejects.
// They are rewritten to these marker strings (which no real writer emits) and mapped back.
const NAN_MARK = '\u0000NaN';
const INF_MARK = '\u0000Infinity';
const NEG_INF_MARK = '\u0000-Infinity';

/** A failed parse says where (UTF-8 byte offset in the text) and what, never quoting the text:
 * JSON.parse's own messages do, and a planted symlink must not leak the file it points to. */
export type JsonParse =
  | { ok: true; value: unknown }
  | { ok: false; message: string; atEnd: boolean; offset: number };

/** JSON.parse that also accepts Python's NaN/Infinity tokens; never throws. */
export function parseJsonLenient(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const first = describe(e, text);
    if (!/NaN|Infinity/.test(text)) return first;
    const rewritten = rewriteNonFinite(text);
    if (rewritten === null) return first;
    try {
      return { ok: true, value: JSON.parse(rewritten) };
    } catch (e2) {
      return describe(e2, rewritten);
    }
  }
}

/** A JSON value as a number: numbers and the non-finite markers; anything else is undefined. */
export function jsonNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.charCodeAt(0) === 0) {
    if (v === NAN_MARK) return Number.NaN;
    if (v === INF_MARK) return Infinity;
    if (v === NEG_INF_MARK) return -Infinity;
  }
  return undefined;
}

/** Replaces bare NaN/Infinity/-Infinity tokens outside strings; null when none was found. */
function rewriteNonFinite(text: string): string | null {
  let out = '';
  let last = 0;
  let found = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    let token: string | null = null;
    let mark = '';
    if (c === 78 && text.startsWith('NaN', i)) [token, mark] = ['NaN', NAN_MARK];
    else if (c === 73 && text.startsWith('Infinity', i)) [token, mark] = ['Infinity', INF_MARK];
    else if (c === 45 && text.startsWith('-Infinity', i)) [token, mark] = ['-Infinity', NEG_INF_MARK];
    if (token === null) continue;
    out += text.slice(last, i) + JSON.stringify(mark);
    i += token.length - 1;
    last = i + 1;
    found = true;
  }
  return found ? out + text.slice(last) : null;
}

function describe(e: unknown, text: string): JsonParse {
  const at = errorIndex(e instanceof Error ? e.message : String(e), text);
  const atEnd = at >= text.trimEnd().length;
  const offset = Buffer.byteLength(text.slice(0, at));
  const message = atEnd ? `JSON ends early at byte ${offset}` : `invalid JSON at byte ${offset}`;
  return { ok: false, message, atEnd, offset };
}

/** V8 quotes 10 characters either side of an unexpected token (`..."abc"...`) instead of a position. */
const CONTEXT_CHARS = 10;
const UNEXPECTED_TOKEN = /^Unexpected token .*?, (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/;
/** Above this, a syntax error V8 gives no position for is not searched for (reported at 0). */
const MAX_SEARCHED_CHARS = 1 << 20;

/** Where JSON.parse's error `raw` says a text of `length` failed (its end, or a stated position); null
 * when the message gives neither. */
function statedIndex(raw: string, length: number): number | null {
  if (/end of JSON input/i.test(raw)) return length;
  const pos = /position (\d+)/.exec(raw);
  return pos ? Math.min(Number(pos[1]), length) : null;
}

/** Index in `text` (UTF-16) where JSON.parse's error `raw` happened. */
function errorIndex(raw: string, text: string): number {
  const stated = statedIndex(raw, text.length);
  if (stated !== null) return stated;
  const token = UNEXPECTED_TOKEN.exec(raw);
  if (token?.[1] !== undefined) {
    const start = text.indexOf(token[2]!);
    if (start >= 0) return start + CONTEXT_CHARS;
  } else if (token?.[3] !== undefined) return token[2]!.length - CONTEXT_CHARS;
  return text.length <= MAX_SEARCHED_CHARS ? longestValidPrefix(text) : 0;
}

/** Length of the longest prefix of `text` that JSON could continue (binary search: prefixes of a
 * valid prefix are valid). */
function longestValidPrefix(text: string): number {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (isValidPrefix(text.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function isValidPrefix(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (e) {
    // Failing only at its end: more text could make it valid.
    return statedIndex(e instanceof Error ? e.message : String(e), prefix.length) === prefix.length;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** UTF-8 text of bytes; invalid sequences become U+FFFD rather than failing. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
