// The sidebar's run filter: every word typed must appear in the run's name (any case, any order).

/** Pure: the runs whose name holds every whitespace-separated word of `text`; all runs for empty text. */
export function filterRuns<T extends { run: string }>(runs: readonly T[], text: string): T[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...runs];
  return runs.filter((r) => {
    const name = r.run.toLowerCase();
    return words.every((w) => name.includes(w));
  });
}
