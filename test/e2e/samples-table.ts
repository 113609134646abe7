// The Samples view's table as e2e tests read it: one column's cell texts, found by its header.

import type { Locator } from 'playwright-core';

/** The trimmed texts of the column headed `name` (sort arrows ignored) in a samples pane's table, top to bottom: of a
 * text column its text, not the buttons under it. */
export function samplesColumn(pane: Locator, name: string): Promise<string[]> {
  return pane.locator('.samples-table').evaluate((t, col) => {
    const table = t as HTMLTableElement;
    const at = Array.from(table.tHead!.rows[0]!.cells).findIndex(
      (c) => c.textContent!.trim().replace(/[▲▼]/, '') === col,
    );
    // A text cell's own text (not its "show all" or "across steps" buttons).
    return Array.from(table.tBodies[0]!.rows).map((r) => {
      const cell = r.cells[at]!;
      return (cell.querySelector('.cell-text') ?? cell).textContent!.trim();
    });
  }, name);
}
