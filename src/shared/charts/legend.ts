// Which runs an overlay chart's legend lists: only those with points in this chart, in their drawing colour.

import { lineLook } from './chart-theme';
import type { Pt } from './series-model';

export interface LegendEntry {
  run: string;
  colour: string;
  /** The line's dash pattern ([] solid). */
  dash: number[];
  /** The hover text (a seed group's members); absent for a run, whose name says it. */
  title?: string;
}

/**
 * The runs drawn on a chart: those with at least one drawable (finite) point, in drawing order. Each keeps its
 * palette index (its `colorIndex`, else its position, whether or not the runs before it are empty) and its dash, so
 * the swatch matches its line.
 */
export function legendEntries(
  series: readonly {
    run: string;
    raw: readonly Pt[];
    faded?: boolean;
    colorIndex?: number;
    dash?: readonly number[];
  }[],
): LegendEntry[] {
  const out: LegendEntry[] = [];
  series.forEach((s, i) => {
    // An earlier session (faded) is its run's, not an entry of its own: the panel's notes say what it is.
    if (!s.faded && s.raw.some((p) => Number.isFinite(p.y))) out.push({ run: s.run, ...lineLook(s, i) });
  });
  return out;
}

/** A legend swatch's CSS background: the colour, dashed as the line is (a dashed run is not told by colour alone). */
export function swatchBackground(e: { colour: string; dash: readonly number[] }): string {
  if (e.dash.length === 0) return e.colour;
  const stops: string[] = [];
  let at = 0;
  e.dash.forEach((len, k) => {
    stops.push(`${k % 2 === 0 ? e.colour : 'transparent'} ${at}px ${at + len / 2}px`);
    at += len / 2;
  });
  return `repeating-linear-gradient(90deg, ${stops.join(', ')})`;
}
