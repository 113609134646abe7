// A composed chart's lines (each tag × run, named by both), each line's look, and the note on tags some runs do not
// log: one rule for the window's chart and its exported figure (export.figure with `tags`).

import { tagDash } from './chart-theme';

/** Tags a composed chart holds at most (the compose dialog, the stored folder view and export.figure's bound). */
export const MAX_COMPOSED_TAGS = 24;

/**
 * One line of a chart: a run's tag. A tag's chart has one per run, keyed by the run's name; a composed chart one per
 * tag × run, keyed by its legend label. The key is the line's RunSeries name (what the legend and readout show).
 */
export interface ChartLine {
  key: string;
  run: string;
  tag: string;
}

/** The label of a composed line: the tag, and the run when several are charted. */
export const composedLabel = (tag: string, run: string, multiRun: boolean): string =>
  multiRun ? `${tag} · ${run}` : tag;

/** Pure: one line per tag × run, tag-major (a tag's runs together in the legend); labels made unique. */
export function composedLines(tags: readonly string[], runs: readonly string[]): ChartLine[] {
  const out: ChartLine[] = [];
  const used = new Set<string>();
  for (const tag of tags)
    for (const run of runs) {
      let key = composedLabel(tag, run, runs.length > 1);
      // `a · b` + `c` and `a` + `b · c` read the same: the second gets a number (never in practice).
      for (let n = 2; used.has(key); n++) key = `${composedLabel(tag, run, runs.length > 1)} (${n})`;
      used.add(key);
      out.push({ key, run, tag });
    }
  return out;
}

/** A line's look: its run's palette index (colour, and a dash from the fourth run on), or on a composed chart its
 * tag's dash instead. */
export interface LineLook {
  colorIndex: number;
  dash?: number[];
}

/**
 * Pure: each line's look by key. Colour: the run's stable palette index (`colorIndex`: chart-theme's
 * `runStyleIndexes`, the folder's sorted run names), else its position among `runs`; with `tags` (a composed chart)
 * the k-th tag's dash (`tagDash`), without them the run's own.
 */
export function lineLooks(
  lines: readonly ChartLine[],
  runs: readonly string[],
  tags: readonly string[] | null,
  colorIndex: (run: string) => number | undefined,
): Map<string, LineLook> {
  const runAt = new Map(runs.map((r, i) => [r, i]));
  const tagAt = new Map((tags ?? []).map((t, k) => [t, k]));
  return new Map(
    lines.map((l) => [
      l.key,
      {
        colorIndex: colorIndex(l.run) ?? runAt.get(l.run) ?? 0,
        ...(tags === null ? {} : { dash: tagDash(tagAt.get(l.tag) ?? 0) }),
      },
    ]),
  );
}

/** Runs named per missing tag at most; the rest are counted. */
const NAMED_RUNS = 3;

/**
 * Pure: what the caption says of the lines that do not exist (series.get answered not-found), per tag:
 * "not logged, skipped: eval/mean_reward (A2C_1, DQN_1)", past three runs "(A, B, C +2 more)"; without several runs
 * just the tags. '' when every line exists.
 */
export function missingNote(
  lines: readonly ChartLine[],
  missing: ReadonlySet<string>,
  multiRun: boolean,
): string {
  const byTag = new Map<string, string[]>();
  for (const l of lines)
    if (missing.has(l.key)) {
      const runs = byTag.get(l.tag);
      if (runs) runs.push(l.run);
      else byTag.set(l.tag, [l.run]);
    }
  if (byTag.size === 0) return '';
  const named = (runs: string[]): string =>
    runs.length <= NAMED_RUNS
      ? runs.join(', ')
      : `${runs.slice(0, NAMED_RUNS).join(', ')} +${runs.length - NAMED_RUNS} more`;
  const parts = [...byTag].map(([tag, runs]) => (multiRun ? `${tag} (${named(runs)})` : tag));
  return `not logged, skipped: ${parts.join('; ')}`;
}
