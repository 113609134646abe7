// One chart's seed-group bands over time: which groups it draws, when their bands are recomputed (throttled on live appends), and the lines left to draw beside them.

import type { XAxisMode } from '../../../shared/charts/axis';
import type { SeriesLines } from '../../../shared/charts/chart-spec';
import type { BandKind } from '../../../shared/compare/group-stats';
import type { Pt, RunSeries } from '../../../shared/charts/series-model';
import {
  bandCaption,
  bandFills,
  drawnGroups,
  groupDatasets,
  type ChartGroup,
  type DrawnGroup,
} from './seed-bands';

/** Live appends recompute the seed groups' bands at most this often (a 95 % CI costs ~15 ms a group). */
export const BAND_REFRESH_MS = 500;

/** The chart the bands are drawn on (a ChartInstance). */
export interface BandsPlot {
  setGroups(
    lines: ReturnType<typeof groupDatasets>,
    fills: ReturnType<typeof bandFills>,
    fit: { raw: Pt[] }[],
  ): void;
}

export class ChartBands {
  /** The seed groups drawn, and their bands as last computed (each frame that draws, from the drawn windows). */
  groups: ChartGroup[] = [];
  drawn: DrawnGroup[] = [];
  look: { band: BandKind; iqm: boolean } = { band: 'minmax', iqm: false };
  /** The bands need computing now (new windows or settings), else when BAND_REFRESH_MS has passed since `at`. */
  stale = true;
  private at = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly plot: BandsPlot,
    /** Ask for a redraw (when the refresh interval has passed). */
    private readonly schedule: () => void,
  ) {}

  /** The groups or their look changed; answers true when the groups are gone and their bands were taken off. */
  set(groups: ChartGroup[], look: { band: BandKind; iqm: boolean }): boolean {
    this.groups = groups;
    this.look = look;
    this.stale = true;
    if (groups.length > 0 || this.drawn.length === 0) return false;
    this.drawn = [];
    this.plot.setGroups([], [], []);
    return true;
  }

  /** The runs drawn as a group (their own lines are not drawn). */
  grouped(): Set<string> {
    return new Set(this.groups.flatMap((g) => g.runs));
  }

  /** In a frame that draws: the bands from the drawn windows (smoothed when smoothing is on), when stale or the
   * refresh interval has passed (else a redraw is asked for then); answers the new caption, or null when unchanged. */
  refresh(all: readonly RunSeries[], view: { xAxis: XAxisMode; smoothing: number }): string | null {
    if (this.groups.length === 0) return null;
    if (!this.stale && performance.now() - this.at < BAND_REFRESH_MS) {
      // Live points since the last bands: they are taken in once the refresh interval has passed.
      this.timer ??= setTimeout(
        () => {
          this.timer = null;
          this.schedule();
        },
        BAND_REFRESH_MS - (performance.now() - this.at),
      );
      return null;
    }
    this.stale = false;
    this.at = performance.now();
    // Each group's band on the band grid.
    const drawnPts = new Map(all.map((s) => [s.run, view.smoothing > 0 ? s.smoothed : s.raw]));
    this.drawn = drawnGroups(this.groups, (r) => drawnPts.get(r), this.look.band);
    const sets = groupDatasets(this.drawn, this.look.iqm);
    this.plot.setGroups(
      sets,
      bandFills(this.drawn),
      sets.filter((d) => d.showLine === false).map((d) => ({ raw: d.data })),
    );
    return bandCaption(this.drawn, this.look.band, this.look.iqm, view.xAxis);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The lines a chart draws beside its bands: each run's current line (a seed group's runs not), then its earlier
 * sessions faded, in their run's colour, under the current lines. */
export function drawnLines(
  all: readonly RunSeries[],
  earlier: readonly { session: number; series: RunSeries }[],
  grouped: ReadonlySet<string>,
): SeriesLines[] {
  const colorOf = (run: string): number => {
    const k = all.findIndex((s) => s.run === run);
    return all[k]?.colorIndex ?? k;
  };
  const lines: SeriesLines[] =
    grouped.size === 0
      ? [...all]
      : all.flatMap((s, i) =>
          grouped.has(s.run)
            ? []
            : [{ run: s.run, raw: s.raw, smoothed: s.smoothed, colorIndex: s.colorIndex ?? i }],
        );
  for (const e of earlier)
    if (!grouped.has(e.series.run))
      lines.push({
        run: `${e.series.run} · session ${e.session}`,
        raw: e.series.raw,
        smoothed: e.series.smoothed,
        colorIndex: colorOf(e.series.run),
        faded: true,
      });
  return lines;
}
