// Turns text cells and JSON values into numbers: NaN/Inf spellings, Python's bare NaN tokens.

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A numeric cell, or undefined for empty and string cells (which are skipped, never NaN). */
export function parseNumberCell(cell: string): number | undefined {
  const t = cell.trim();
  if (t === '' || t.length > 64) return undefined;
  if (DECIMAL.test(t)) return Number(t);
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

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string; atEnd: boolean };

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
  const message = e instanceof Error ? e.message : String(e);
  const pos = /position (\d+)/.exec(message);
  const atEnd =
    /end of JSON input/i.test(message) || (pos !== null && Number(pos[1]) >= text.trimEnd().length);
  return { ok: false, message, atEnd };
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** UTF-8 text of bytes; invalid sequences become U+FFFD rather than failing. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
