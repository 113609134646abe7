// The render check's view of one drawn chart: plain data read from the page, judged by invariants.ts.

/** A drawn box in the canvas's CSS pixels. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** One tick label as chart.js draws it. */
export interface TickLabel {
  axis: 'x' | 'y';
  text: string;
  box: Box;
}

/** One point of a dataset: its value (null when not finite), its pixel row and the radius of its mark. */
export interface PointState {
  /** The x drawn at (step, seconds since the start, or wall time), null when not finite. */
  x: number | null;
  y: number | null;
  py: number;
  radius: number;
}

export interface SeriesState {
  label: string;
  points: PointState[];
}

/** Outlier trimming, when the page has it on: the trimmed value range and how many points it marks as clipped. */
export interface TrimState {
  low: number;
  high: number;
  markedClipped: number;
}

export interface ChartState {
  run: string;
  tag: string;
  /** The canvas's size in CSS pixels (chart.width / chart.height). */
  width: number;
  height: number;
  logY: boolean;
  /** The x axis drawn (`data-xaxis`): step, relative or wall. */
  xAxis: string;
  /** The chart said its series logged no wall times and fell back to step (`data-untimed`). */
  untimed: boolean;
  yMin: number;
  yMax: number;
  series: SeriesState[];
  ticks: TickLabel[];
  /** null: no outlier trimming on this page (today's renderer has none). */
  trim: TrimState | null;
}
