// Figures comparing runs: each tag the runs share overlaid (comparisons/TAG) and the runs' main rewards on one chart.

import { groupOf } from '../../shared/catalog';
import { xAxisFor } from '../../shared/charts/axis';
import { resolveBand } from '../../shared/charts/band';
import { FIGURE_NAME_SIZE, safeFileName, UniqueNames } from '../../shared/file-names';
import { figureLines, withEarlier, type FigureLines } from './figure-series';
import {
  figureItems,
  labelOf,
  logYFor,
  mainReward,
  points,
  type FigurePlan,
  type FigureRun,
  type FigureSetOptions,
  type PlannedFigure,
} from './figure-set';

/** Runs overlaid on the comparison at most: one per palette colour (past that, colours repeat and it is unreadable). */
export const MAX_COMPARED_RUNS = 8;
/** Tags compared across runs at most (each run keeps its lines of these until the end of the export). */
export const MAX_COMPARED_TAGS = 24;
/** Distinct tags held for comparison at most, across the runs (runs that each log other tags cannot grow it). */
const MAX_HELD_TAGS = 4 * MAX_COMPARED_TAGS;

/**
 * Comparisons of the tags runs share: each run's lines of its first MAX_COMPARED_TAGS tags (in figure order)
 * are kept as it is read (downsampled: a run's full series is not held), up to MAX_COMPARED_RUNS runs per tag (the
 * first that log it, so runs without a tag never take its places), then every tag two or more runs have gets
 * `comparisons/TAG`, the runs overlaid in palette order.
 */
export class TagComparisons {
  private readonly lines = new Map<string, FigureLines[]>();
  private readonly runs: string[] = [];
  private readonly leftOut = new Set<string>();
  /** Tags met once MAX_HELD_TAGS others were held (the first runs' own tags can fill the room). */
  private readonly unheld = new Set<string>();
  /** Runs past MAX_COMPARED_RUNS that log the tag, by tag. */
  private readonly crowded = new Map<string, number>();
  /** Each run's look by its label (the lines know their label). */
  private readonly looks = new Map<string, number | undefined>();

  constructor(private readonly o: FigureSetOptions) {}

  /** Keeps `run`'s lines of its first tags, for each tag while fewer than MAX_COMPARED_RUNS runs have it. */
  add(run: FigureRun): void {
    this.runs.push(labelOf(run));
    this.looks.set(labelOf(run), this.o.looks?.get(run.run));
    const tags = figureItems([...run.series.keys()].filter((t) => points(run.series.get(t)!) > 0))
      .filter((i) => i.members.length === 1)
      .map((i) => i.name);
    for (const t of tags.slice(MAX_COMPARED_TAGS)) this.leftOut.add(t);
    for (const tag of tags.slice(0, MAX_COMPARED_TAGS)) {
      const list = this.lines.get(tag);
      if (list && list.length >= MAX_COMPARED_RUNS) {
        this.crowded.set(tag, (this.crowded.get(tag) ?? 0) + 1);
        continue;
      }
      if (!list && this.lines.size >= MAX_HELD_TAGS) {
        this.unheld.add(tag);
        continue;
      }
      const xAxis = xAxisFor(groupOf(tag), 'step');
      const lines = figureLines(labelOf(run), run.series.get(tag)!, {
        xAxis,
        smoothing: this.o.smoothing,
        pixels: this.o.pixels,
        logY: logYFor(this.o, tag),
      });
      if (list) list.push(lines);
      else this.lines.set(tag, [lines]);
    }
  }

  plan(): FigurePlan {
    const notices: string[] = [];
    const figures: PlannedFigure[] = [];
    if (this.runs.length < 2) return { figures, notices };
    const names = new UniqueNames();
    const shared = [...this.lines].filter(([, l]) => l.length >= 2);
    for (const [tag, lines] of shared) {
      const xAxis = xAxisFor(groupOf(tag), 'step');
      const logY = logYFor(this.o, tag);
      figures.push({
        name: `comparisons/${names.take(safeFileName(tag, FIGURE_NAME_SIZE))}`,
        build: () => ({
          title: `Comparison: ${tag}`,
          subtitle: `${lines.length} runs: ${lines.map((l) => l.run).join(' · ')}`,
          panels: [
            {
              title: tag,
              yTitle: resolveBand(tag, {})?.label ?? '',
              spec: {
                view: { xAxis, logY, smoothing: this.o.smoothing },
                series: withEarlier(lines, (l) => this.looks.get(l.run)),
                band: null,
              },
            },
          ],
        }),
      });
    }
    if (shared.length === 0) notices.push(`no comparisons: the ${this.runs.length} runs share no tag`);
    if (this.unheld.size > 0)
      notices.push(
        `comparisons hold ${MAX_HELD_TAGS} tags at most, the first met; ${this.unheld.size} more not compared (choose with --tags REGEX or --runs REGEX)`,
      );
    if (this.crowded.size > 0) {
      const most = Math.max(...this.crowded.values());
      notices.push(
        `comparisons/ overlay the first ${MAX_COMPARED_RUNS} runs that log each tag; ${this.crowded.size} tag(s) had more (up to ${most} left out; choose with --runs REGEX)`,
      );
    }
    const missed = [...this.leftOut].filter((t) => !this.lines.has(t) || this.lines.get(t)!.length < 2);
    if (missed.length > 0)
      notices.push(
        `comparisons cover each run's first ${MAX_COMPARED_TAGS} tags by catalog group; ${missed.length} more not compared (choose with --tags REGEX)`,
      );
    return { figures, notices };
  }
}

/** The runs' main rewards overlaid on one chart (each run in its look, else run i in palette colour i); null with
 * fewer than two. */
export function planComparison(runs: readonly FigureRun[], o: FigureSetOptions): PlannedFigure | null {
  const chosen = runs
    .map((r) => ({ run: r, tag: mainReward(r.series) }))
    .filter((c): c is { run: FigureRun; tag: string } => c.tag !== null);
  if (chosen.length < 2) return null;
  const logY = chosen.every((c) => logYFor(o, c.tag));
  return {
    name: 'comparison',
    build: () => ({
      title: 'Comparison: reward of each run',
      subtitle: chosen.map((c) => `${labelOf(c.run)} (${c.tag})`).join(' · '),
      panels: [
        {
          title: 'reward',
          yTitle: 'Reward',
          spec: {
            view: { xAxis: 'step', logY, smoothing: o.smoothing },
            series: withEarlier(
              chosen.map((c) =>
                figureLines(labelOf(c.run), c.run.series.get(c.tag) ?? [], {
                  xAxis: 'step',
                  smoothing: o.smoothing,
                  pixels: o.pixels,
                  logY,
                }),
              ),
              (_, i) => o.looks?.get(chosen[i]!.run.run),
            ),
            band: null,
          },
        },
      ],
    }),
  };
}
