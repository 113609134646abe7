// The characters no output may carry raw (controls, bidi overrides) and their one visible escaped form.

/**
 * C0 controls, DEL, C1 controls, and the bidi embeddings/overrides/isolates that reorder what is shown
 * (the "Trojan Source" set). Every output kind makes these harmless: terminal text, Prometheus label
 * values and Markdown show them escaped (`escapeControls`), file names replace them.
 */
// eslint-disable-next-line no-control-regex
export const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE_CHAR.source, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/** One unsafe character's visible form: `\n`, `\r`, `\t`, `\e`, else `\xHH` (≤ U+00FF) or `\uHHHH`. */
function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every unsafe character written as its backslash form, so nothing can move a cursor, start an
 * escape sequence, fake a new line or reorder text. Printable text of any script and emoji pass unchanged.
 */
export function escapeControls(text: string): string {
  return UNSAFE_CHAR.test(text) ? text.replace(UNSAFE_ALL, visible) : text;
}
