// The context by which charts and legends read each run's stable palette index (shared/charts/chart-theme runStyleIndexes).

/** The context key; the value answers a run's palette index, or undefined (not a run of the folder: its position). */
export const RUN_STYLE_CONTEXT = Symbol('run-style');

export type RunStyle = (run: string) => number | undefined;

/** The palette indexes of `runs` in order: the stable one where known, else the run's position. */
export function styleIndexesOf(runs: readonly string[], style: RunStyle | undefined): number[] {
  return runs.map((r, i) => style?.(r) ?? i);
}
