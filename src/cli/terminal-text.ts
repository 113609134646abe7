// Text for a terminal: names and messages from files without control characters, and aligned text tables.

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

/** Rows as aligned columns: the first left-aligned, the others right-aligned, two spaces apart. */
export function textTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    )
    .join('\n');
}
