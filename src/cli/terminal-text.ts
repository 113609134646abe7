// Text from files (run, tag and file names, messages) made safe for a terminal: no control characters.

import { escapeControls } from '../shared/control-chars';

/**
 * Escapes every character that could move the cursor, clear the screen, start an escape sequence,
 * fake a new output line or reorder text: `\n`, `\e`, `\x07`, `\u202e`… are printed as those
 * backslash forms (the one visible form, `shared/control-chars`). Printable text, other languages and
 * emoji pass unchanged.
 */
export function terminalSafe(text: string): string {
  return escapeControls(text);
}
