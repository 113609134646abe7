// Whether text typed into a search box is a `/pattern/flags` regex (read without the regex engine, which the page loads later).

/** `/pattern/flags` typed into a search box: its pattern and flags; null for any other text. */
export function slashPattern(text: string): { source: string; flags: string } | null {
  const m = /^\s*\/(.*)\/([a-z]*)\s*$/s.exec(text);
  return m ? { source: m[1]!, flags: m[2]! } : null;
}
