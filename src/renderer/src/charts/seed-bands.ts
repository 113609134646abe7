// Seed groups on one chart: which drawn runs form groups and their readout rows (the bands are drawn by shared/charts/group-bands.ts).

import { groupName, type ChartGroup, type DrawnGroup } from '../../../shared/charts/group-bands';
import { runColor } from '../../../shared/charts/chart-theme';
import { groupAt } from '../../../shared/compare/group-stats';
import { groupMembers, type SeedGroup } from '../../../shared/compare/seed-groups';
import type { LegendEntry } from '../../../shared/charts/legend';
import { formatNumber } from '../../../shared/format';
import { READOUT_ROWS, type Readout, type ReadoutRow } from './readout';

// The drawing itself is shared with exported figures (shared/charts/group-bands.ts).
export {
  BAND_POINTS,
  IQM_DASH,
  bandCaption,
  bandFillPlugin,
  bandFills,
  coverageDrops,
  coverageNote,
  drawnGroups,
  finiteRuns,
  groupDatasets,
  groupName,
  type BandFillState,
  type ChartGroup,
  type DrawnGroup,
} from '../../../shared/charts/group-bands';
export { groupMembers } from '../../../shared/compare/seed-groups';

/** The seed groups among a chart's runs (two or more of them drawn here), ordered and coloured by their first run. */
export function chartGroups(runs: readonly string[], groups: readonly SeedGroup[]): ChartGroup[] {
  const at = new Map(runs.map((r, i) => [r, i]));
  const out: ChartGroup[] = [];
  for (const g of groups) {
    const members = g.runs.filter((r) => at.has(r)).sort((a, b) => at.get(a)! - at.get(b)!);
    if (members.length >= 2)
      out.push({ label: g.label, runs: members, seeds: g.seeds, colorIndex: at.get(members[0]!)! });
  }
  return out.sort((a, b) => a.colorIndex - b.colorIndex);
}

/** The legend's entry per group: its name in its colour, its members on hover. */
export const groupLegend = (groups: readonly ChartGroup[]): LegendEntry[] =>
  groups.map((g) => ({
    run: groupName(g),
    colour: runColor(g.colorIndex),
    dash: [],
    title: groupMembers(g),
  }));

/** The readout's row per group at `at` (the step read): the mean with the band's edges, "1.23 [1.01, 1.45]" (and the
 * IQM when drawn), from the values its runs logged there; "(interpolated)" when some run logged no point at `at`. */
export function groupRows(
  groups: readonly DrawnGroup[],
  at: number,
  o: { iqm: boolean; smoothing: boolean },
): ReadoutRow[] {
  const out: ReadoutRow[] = [];
  for (const g of groups) {
    const v = groupAt(g.series, at, { band: g.band.band });
    if (v.n === 0) continue;
    const iqm = o.iqm ? ` IQM ${formatNumber(v.iqm)}` : '';
    out.push({
      run: groupName(g),
      colour: runColor(g.colorIndex),
      dash: [],
      raw: `${formatNumber(v.mean)} [${formatNumber(v.lower)}, ${formatNumber(v.upper)}]${iqm}${v.logged ? '' : ' (interpolated)'}`,
      // With smoothing on every row has a smoothed cell: the group's values are already from the smoothed lines.
      smooth: o.smoothing ? '' : null,
      step: null,
    });
  }
  return out;
}

/** The readout with the groups' rows first (at the step it read) and their runs' own rows left out (at most
 * `maxRows` rows). */
export function withGroupRows(
  r: Readout | null,
  groups: readonly DrawnGroup[],
  o: { iqm: boolean; smoothing: boolean },
  maxRows = READOUT_ROWS,
): Readout | null {
  if (r === null || groups.length === 0) return r;
  const grouped = new Set(groups.flatMap((g) => g.runs));
  const rows = [...groupRows(groups, r.at, o), ...r.rows.filter((row) => !grouped.has(row.run))];
  const shown = rows.slice(0, maxRows);
  return { ...r, rows: shown, more: r.more + rows.length - shown.length };
}
