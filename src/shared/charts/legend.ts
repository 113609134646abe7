// Which runs an overlay chart's legend lists: only those with points in this chart, in their drawing colour.

import { runColor } from './chart-theme';
import type { Pt } from './series-model';

export interface LegendEntry {
  run: string;
  colour: string;
}

/**
 * The runs drawn on a chart: those with at least one drawable (finite) point, in drawing order. Run i keeps
 * palette colour i whether or not the runs before it are empty, so the swatch matches its line.
 */
export function legendEntries(series: readonly { run: string; raw: readonly Pt[] }[]): LegendEntry[] {
  const out: LegendEntry[] = [];
  series.forEach((s, i) => {
    if (s.raw.some((p) => Number.isFinite(p.y))) out.push({ run: s.run, colour: runColor(i) });
  });
  return out;
}
