// Text from files (run, tag and file names, messages) made safe for a terminal: no control characters.

/** C0 controls, DEL, C1 controls, and the bidi overrides/isolates that reorder what a terminal shows. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * Escapes every character that could move the cursor, clear the screen, start an escape sequence,
 * fake a new output line or reorder text: `\n`, `\e`, `\x07`, `\u202e`… are printed as those
 * backslash forms. Printable text, other languages and emoji pass unchanged.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
