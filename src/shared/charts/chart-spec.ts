// What a chart shows, as data: each run's lines (with what was read beyond them) and the view, band and markers.

import type { XAxisMode } from './axis';
import type { BandRange } from './band';
import type { Marker } from './markers';
import type { Pt, ViewOptions } from './series-model';

/** Where a value that is not drawn sits on the x-axis: NaN, +Inf or −Inf. */
export interface NonFiniteMark {
  x: number;
  kind: 'nan' | 'inf' | '-inf';
}

/** What a series read holds beyond its drawn points: how many there were, which were not finite, and where. */
export interface SeriesFacts {
  /** Points read for this line (before per-pixel downsampling). */
  points: number;
  /** Points the line keeps (after downsampling). */
  drawn: number;
  nan: number;
  posInf: number;
  negInf: number;
  /** Values ≤ 0 a log y-axis cannot draw. */
  nonPositive: number;
  /** Non-finite values' x positions, at most one per pixel column and kind (marked on the axis). */
  marks: NonFiniteMark[];
}

/** One run's lines as drawn: raw points, and the smoothed ones (used when smoothing is on). */
export interface SeriesLines {
  run: string;
  raw: Pt[];
  smoothed: Pt[];
  /** Palette index (default: the line's position): an earlier session takes its run's colour. */
  colorIndex?: number;
  /** The line's dash instead of its palette index's (a composed chart dashes by tag, colours by run). */
  dash?: readonly number[];
  /** An earlier session of a restarted run: drawn faded and dashed, under the current lines. */
  faded?: boolean;
  /** What was read beyond the points drawn (a figure's lines carry it: counts, non-finite positions). */
  facts?: SeriesFacts;
}

/** Everything a chart shows, as data. */
export interface ChartSpec {
  view: ViewOptions;
  /** The x-axis asked for when the chart draws by step instead (its series log no wall times: drawnXAxis). */
  askedXAxis?: XAxisMode;
  /** In drawing order: run i gets palette colour i. */
  series: readonly SeriesLines[];
  band: BandRange | null;
  markers?: readonly Marker[];
}
