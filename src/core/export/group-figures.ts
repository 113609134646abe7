// Seed group outputs of an export: runs grouped by config (groupBySeed), per group and shared tag its mean and band (figures, and a
// tidy CSV per group), and the groups compared.

import { groupOf } from '../../shared/catalog';
import { xAxisFor } from '../../shared/charts/axis';
import { resolveBand } from '../../shared/charts/band';
import type { Figure } from '../../shared/charts/figure';
import {
  BAND_POINTS,
  bandCaption,
  drawnGroups,
  groupColorIndex,
  type ChartGroup,
  type DrawnGroup,
} from '../../shared/charts/group-bands';
import type { Pt } from '../../shared/charts/series-model';
import type { BandKind } from '../../shared/compare/group-stats';
import { groupBySeed, groupTitle, type SeedGroup } from '../../shared/compare/seed-groups';
import { FIGURE_NAME_SIZE, safeFileName, UniqueNames } from '../../shared/file-names';
import { formatNumber } from '../../shared/format';
import { figureLines } from './figure-series';
import { GROUP_TABLE, groupTableCsv } from './group-tables';
import {
  DEFAULT_MAX_TAG_FIGURES,
  figureItems,
  logYFor,
  type FigurePlan,
  type FigureRun,
  type FigureSetOptions,
  type PlannedFigure,
} from './figure-set';

export interface GroupFigureOptions extends FigureSetOptions {
  /** What the band around each group's mean shows. */
  band: BandKind;
  /** Draw the interquartile mean as a dashed line too. */
  iqm: boolean;
}

/** A CSV file of the export: its path under the export folder and its text. */
export interface PlannedTable {
  name: string;
  rows: () => Iterable<string>;
}

/** A group's folder under `groups/`: its name with the list's ', ' and spaces as `_` (`lr=3e-4_clip=0.2`), made
 * safe for every file system. */
export const groupFolder = (label: string): string =>
  safeFileName(label.replace(/,\s*/g, '_').replace(/\s+/g, '_'), FIGURE_NAME_SIZE);

/** The folder under `groups/` that holds the comparisons of the groups (a group named so gets `comparison-2`). */
export const GROUP_COMPARISON = 'comparison';

interface KeptRun {
  run: string;
  label: string;
  config: Record<string, unknown> | null;
  /** Per tag, the points the group's band is computed from (the smoothed line with smoothing on). */
  lines: Map<string, Pt[]>;
}

/** A group as one figure draws it: its runs that log the tag, its colour, and how many runs it has in all. */
interface TagGroup extends ChartGroup {
  total: number;
}

/**
 * Collects each run's lines of its first tags as it is read (downsampled, the current session: a run's full
 * series is not held), then plans `groups/GROUP/TAG` for every tag two or more of a group's runs log and
 * `groups/comparison/TAG` for every tag two or more groups have.
 */
export class GroupFigures {
  private readonly runs: KeptRun[] = [];

  constructor(private readonly o: GroupFigureOptions) {}

  /** Keeps `run`'s lines of its first tags (figure order, at most the per-tag figure cap). */
  add(run: FigureRun, config: Record<string, unknown> | null): void {
    const label = run.label ?? run.run;
    const tags = figureItems([...run.series.keys()].filter((t) => points(run.series.get(t)!) > 0))
      .filter((i) => i.members.length === 1)
      .map((i) => i.name)
      .slice(0, this.cap());
    const lines = new Map<string, Pt[]>();
    for (const tag of tags) {
      const l = figureLines(label, run.series.get(tag)!, {
        xAxis: xAxisFor(groupOf(tag), 'step'),
        smoothing: this.o.smoothing,
        pixels: this.o.pixels,
        logY: logYFor(this.o, tag),
        currentOnly: true,
      });
      lines.set(tag, this.o.smoothing > 0 ? l.smoothed : l.raw);
    }
    this.runs.push({ run: run.run, label, config, lines });
  }

  private cap(): number {
    return this.o.maxTagFigures ?? DEFAULT_MAX_TAG_FIGURES;
  }

  /** The seed groups of the runs added, in the order groupBySeed finds them. */
  groups(): SeedGroup[] {
    return groupBySeed(this.runs.map((r) => ({ run: r.run, config: r.config })));
  }

  /** The figures (`groups/GROUP/TAG`, `groups/comparison/TAG`) and each group's table (`groups/GROUP/steps.csv`,
   * the numbers its figures draw). */
  plan(): FigurePlan & { tables: PlannedTable[] } {
    const figures: PlannedFigure[] = [];
    const tables: PlannedTable[] = [];
    const notices: string[] = [];
    const groups = this.groups();
    const grouped = new Set(groups.flatMap((g) => g.runs));
    const alone = this.runs.filter((r) => !grouped.has(r.run)).map((r) => r.label);
    if (groups.length === 0) {
      notices.push(
        `no seed groups: no two of the ${this.runs.length} runs differ only in their seed (groups/ not written)`,
      );
      return { figures, notices, tables };
    }
    if (alone.length > 0)
      notices.push(
        `groups/ leaves out ${alone.length} run${alone.length === 1 ? '' : 's'} in no seed group (no other run differs from it only in its seed): ${alone.join(', ')}`,
      );
    const byRun = new Map(this.runs.map((r) => [r.run, r]));
    const folders = new UniqueNames([GROUP_COMPARISON]);
    // Per tag, each group's runs that log it (a group keeps one colour in every figure).
    const perTag = new Map<string, TagGroup[]>();
    groups.forEach((g, i) => {
      const members = g.runs.map((r) => byRun.get(r)!);
      const tags = figureItems([...new Set(members.flatMap((m) => [...m.lines.keys()]))]).map((t) => t.name);
      const dir = folders.take(groupFolder(g.label));
      const names = new UniqueNames();
      const tabled: { tag: string; group: TagGroup }[] = [];
      for (const tag of tags) {
        const withTag = members.filter((m) => m.lines.has(tag)).map((m) => m.run);
        if (withTag.length < 2) continue;
        // The group's look as the window gives it (its member first in the folder's order), else its place.
        const colorIndex = groupColorIndex(g.runs, (r) => this.o.looks?.get(r)) ?? i;
        const tg: TagGroup = {
          label: g.label,
          runs: withTag,
          seeds: g.seeds,
          colorIndex,
          total: g.runs.length,
        };
        const list = perTag.get(tag);
        if (list) list.push(tg);
        else perTag.set(tag, [tg]);
        figures.push({
          name: `groups/${dir}/${names.take(safeFileName(tag, FIGURE_NAME_SIZE))}`,
          build: () => this.figure(`Seed group ${groupTitle(g)}: ${tag}`, tag, [tg]),
        });
        tabled.push({ tag, group: tg });
      }
      if (tabled.length > 0)
        tables.push({
          name: `groups/${dir}/${GROUP_TABLE}`,
          rows: () =>
            groupTableCsv(tabled.map((t) => ({ tag: t.tag, group: this.drawn(t.tag, [t.group])[0]! }))),
        });
    });
    if (groups.length >= 2) {
      const names = new UniqueNames();
      for (const [tag, list] of perTag) {
        if (list.length < 2) continue;
        figures.push({
          name: `groups/${GROUP_COMPARISON}/${names.take(safeFileName(tag, FIGURE_NAME_SIZE))}`,
          build: () => this.figure(`Seed groups compared: ${tag}`, tag, list),
        });
      }
    }
    return { figures, notices, tables };
  }

  /** Each group's mean and band of `tag` from its runs' kept lines, as its figure draws them. */
  private drawn(tag: string, groups: readonly TagGroup[]): DrawnGroup[] {
    const byRun = new Map(this.runs.map((r) => [r.run, r]));
    return drawnGroups(groups, (run) => byRun.get(run)?.lines.get(tag), this.o.band, BAND_POINTS);
  }

  /** One panel: each group's mean and band of `tag`, the band's meaning and each group's runs in the subtitle. */
  private figure(title: string, tag: string, groups: readonly TagGroup[]): Figure {
    const xAxis = xAxisFor(groupOf(tag), 'step');
    const logY = logYFor(this.o, tag);
    const drawn = this.drawn(tag, groups);
    const runsOf = groups.map(
      (g) =>
        `${g.label}: ${g.runs.length} runs` +
        (g.runs.length < g.total ? ` (${g.total - g.runs.length} of its ${g.total} log no ${tag})` : ''),
    );
    // trim_mean(·, 0.25) cuts nothing from fewer than 4 values: the dashed line lies on the mean there.
    const iqmNote =
      this.o.iqm && groups.some((g) => g.runs.length < 4) ? ['IQM = mean where fewer than 4 runs'] : [];
    const smoothed = this.o.smoothing > 0 ? [`of runs smoothed (EMA ${formatNumber(this.o.smoothing)})`] : [];
    return {
      title,
      subtitle: [bandCaption(drawn, this.o.band, this.o.iqm, xAxis), ...iqmNote, ...smoothed, ...runsOf].join(
        ' · ',
      ),
      panels: [
        {
          title: tag,
          yTitle: resolveBand(tag, {})?.label ?? '',
          // The groups are computed from the (smoothed) lines: the spec itself draws no run and smooths nothing.
          spec: { view: { xAxis, logY, smoothing: 0 }, series: [], band: null },
          groups: { drawn, iqm: this.o.iqm },
        },
      ],
    };
  }
}

const points = (parts: readonly { length: number }[]): number => parts.reduce((n, s) => n + s.length, 0);
