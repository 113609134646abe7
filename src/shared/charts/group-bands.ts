// Seed groups drawn on a chart (the window's and an exported figure's alike): each group's mean, band and IQM from its runs' points, the datasets, the band fill and the caption's words.

import type { ChartDataset, Plugin } from 'chart.js';
import {
  BAND_MEANING,
  endDrops,
  groupBand,
  type BandKind,
  type GroupBand,
  type StepSeries,
} from '../compare/group-stats';
import { groupTitle, type SeedGroup } from '../compare/seed-groups';
import { formatX, type XAxisMode } from './axis';
import { runColor, withAlpha } from './chart-theme';
import type { Pt } from './series-model';

/** Grid points a group's band is computed on (the drawn windows are interpolated onto them). */
export const BAND_POINTS = 200;
/** The band's fill opacity over the group's colour. */
const FILL_ALPHA = 0.2;
/** The IQM line's dash: it never reads as the mean. */
export const IQM_DASH: readonly number[] = [6, 3];

/** A seed group as one chart draws it: its runs in the chart's order, in its first run's colour. */
export interface ChartGroup {
  label: string;
  runs: string[];
  /** The seed keys (or name parts) its runs differ in (SeedGroup's). */
  seeds: SeedGroup['seeds'];
  colorIndex: number;
}

/**
 * A group's palette index wherever it is drawn (window and export alike): the stable look (`runStyleIndexes`) of its
 * member first in the folder's order, the smallest; undefined when no member has one. Groups share no run, so two
 * groups never get one colour.
 */
export function groupColorIndex(
  runs: readonly string[],
  lookOf: (run: string) => number | undefined,
): number | undefined {
  let out: number | undefined;
  for (const r of runs) {
    const i = lookOf(r);
    if (i !== undefined && (out === undefined || i < out)) out = i;
  }
  return out;
}

/** The group's legend text: what sets it apart and what it folds (groupTitle, as the table names it). */
export const groupName = (g: Pick<ChartGroup, 'label' | 'runs' | 'seeds'>): string => groupTitle(g);

/** A group with its band over the drawn points, and its runs' points the band was computed from. */
export interface DrawnGroup extends ChartGroup {
  band: GroupBand;
  series: StepSeries[];
}

/** Each group's mean, band and IQM from its runs' drawn points (x ascending; runs with no points here left out). */
export function drawnGroups(
  groups: readonly ChartGroup[],
  pointsOf: (run: string) => readonly Pt[] | undefined,
  band: BandKind,
  points = BAND_POINTS,
): DrawnGroup[] {
  return groups.map((g) => {
    const series = g.runs.flatMap((run) => {
      const pts = pointsOf(run);
      if (!pts || pts.length === 0) return [];
      const steps = new Float64Array(pts.length);
      const values = new Float64Array(pts.length);
      for (let i = 0; i < pts.length; i++) {
        steps[i] = pts[i]!.x;
        values[i] = pts[i]!.y;
      }
      return [{ steps, values }];
    });
    return { ...g, band: groupBand(series, { points, band }), series };
  });
}

const toPts = (x: Float64Array, y: Float64Array): Pt[] => Array.from(x, (xi, i) => ({ x: xi, y: y[i]! }));

/** The groups' lines: the mean (solid, wider), the IQM (dashed) when asked, and the band's edges as invisible
 * datasets so the y-axis takes the band in. */
export function groupDatasets(groups: readonly DrawnGroup[], iqm: boolean): ChartDataset<'line', Pt[]>[] {
  const out: ChartDataset<'line', Pt[]>[] = [];
  const line = { pointRadius: 0, pointHitRadius: 0, spanGaps: false, order: 0 };
  for (const g of groups) {
    const colour = runColor(g.colorIndex);
    const name = groupName(g);
    const b = g.band;
    for (const [edge, ys] of [
      ['lower', b.lower],
      ['upper', b.upper],
    ] as const)
      out.push({ label: `${name} (${edge})`, data: toPts(b.x, ys), showLine: false, ...line });
    out.push({
      label: `${name} (mean)`,
      data: toPts(b.x, b.mean),
      borderColor: colour,
      borderWidth: 2,
      ...line,
    });
    if (iqm)
      out.push({
        label: `${name} (IQM)`,
        data: toPts(b.x, b.iqm),
        borderColor: colour,
        borderWidth: 1.5,
        borderDash: [...IQM_DASH],
        ...line,
      });
  }
  return out;
}

/** What the band plugin fills: per group its colour, the band's edges on the grid and where its n drops. */
export interface BandFillState {
  fills: {
    colour: string;
    x: Float64Array;
    lower: Float64Array;
    upper: Float64Array;
    /** Per drop, the step a run ended at and how many runs go on (a dashed tick with "n=k" there). */
    drops: { k: number; after: number }[];
  }[];
  /** The n-drop labels' size (px; default DROP_FONT_PX) and a factor on the ticks' width (a figure style's). */
  fontPx?: number;
  lineScale?: number;
}

export const bandFills = (groups: readonly DrawnGroup[]): BandFillState['fills'] =>
  groups.map((g) => ({
    colour: runColor(g.colorIndex),
    x: g.band.x,
    lower: g.band.lower,
    upper: g.band.upper,
    drops: coverageDrops(g),
  }));

/** The n-drop tick's dash and its label's font (px). */
const DROP_DASH = [3, 3];
const DROP_FONT_PX = 10;

/** Runs of grid indices where both edges are finite (a band is filled per run; gaps stay open). */
export function finiteRuns(lower: ArrayLike<number>, upper: ArrayLike<number>): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const ok = i < lower.length && Number.isFinite(lower[i]!) && Number.isFinite(upper[i]!);
    if (ok && start < 0) start = i;
    else if (!ok && start >= 0) {
      out.push([start, i - 1]);
      start = -1;
    }
  }
  return out;
}

/** Fills each group's band under the lines (clipped to the plot area); its state is mutated by the panel. */
export function bandFillPlugin(state: BandFillState): Plugin<'line'> & { state: BandFillState } {
  return {
    id: 'rlwatchSeedBands',
    state,
    beforeDatasetsDraw(chart) {
      if (state.fills.length === 0) return;
      const { ctx, chartArea: a } = chart;
      const xs = chart.scales.x!;
      const ys = chart.scales.y!;
      ctx.save();
      ctx.beginPath();
      ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
      ctx.clip();
      for (const f of state.fills) {
        ctx.fillStyle = withAlpha(f.colour, FILL_ALPHA);
        for (const [from, to] of finiteRuns(f.lower, f.upper)) {
          ctx.beginPath();
          for (let i = from; i <= to; i++)
            ctx.lineTo(xs.getPixelForValue(f.x[i]!), ys.getPixelForValue(f.upper[i]!));
          for (let i = to; i >= from; i--)
            ctx.lineTo(xs.getPixelForValue(f.x[i]!), ys.getPixelForValue(f.lower[i]!));
          ctx.closePath();
          ctx.fill();
        }
      }
      // Where a group's n drops: a dashed vertical tick at the step its run ended, labelled with the n after it.
      ctx.setLineDash(DROP_DASH);
      const fontPx = state.fontPx ?? DROP_FONT_PX;
      ctx.lineWidth = state.lineScale ?? 1;
      ctx.font = `${fontPx}px sans-serif`;
      ctx.textBaseline = 'top';
      // Each group's labels on their own line, so two groups dropping at one step stay readable.
      state.fills.forEach((f, gi) => {
        for (const d of f.drops) {
          const px = xs.getPixelForValue(d.after);
          if (!(px >= a.left && px <= a.right)) continue;
          ctx.strokeStyle = f.colour;
          ctx.fillStyle = f.colour;
          ctx.beginPath();
          ctx.moveTo(px, a.top);
          ctx.lineTo(px, a.bottom);
          ctx.stroke();
          ctx.fillText(`n=${d.k}`, px + 2, a.top + 2 + gi * (fontPx + 2));
        }
      });
      ctx.restore();
    },
  };
}

/** Where fewer of the group's runs go on than before (runs of different lengths): per drop, the last point the run
 * that ended logged (a step some run logged, not a grid point) and how many runs log past it. */
export const coverageDrops = (g: Pick<DrawnGroup, 'series'>): { k: number; after: number }[] =>
  endDrops(g.series);

/** The caption's words on coverage: "n = 2 of 3 after step 600" per drop; '' when every run covers the whole grid. */
export function coverageNote(
  g: Pick<DrawnGroup, 'series' | 'band'>,
  total: number,
  xAxis: XAxisMode,
): string {
  const x = g.band.x;
  const span = x.length > 0 ? x[x.length - 1]! - x[0]! : 0;
  return coverageDrops(g)
    .map(
      (d) =>
        `n = ${d.k} of ${total} after ${xAxis === 'step' ? `step ${Math.round(d.after)}` : formatX(xAxis, d.after, span)}`,
    )
    .join(', ');
}

/** The caption's sentence: what the band is, the IQM line when drawn, and where a group's runs thin out. */
export function bandCaption(
  groups: readonly DrawnGroup[],
  band: BandKind,
  iqm: boolean,
  xAxis: XAxisMode,
): string {
  const parts = [BAND_MEANING[band]];
  if (iqm) parts.push('dashed: interquartile mean');
  for (const g of groups) {
    const note = coverageNote(g, g.runs.length, xAxis);
    if (note !== '') parts.push(`${g.label}: ${note}`);
  }
  return parts.join('; ');
}
