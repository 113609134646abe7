// Seed groups on one chart: which drawn runs form groups and their readout rows (the bands are drawn by shared/charts/group-bands.ts).

import { groupName, type ChartGroup, type DrawnGroup } from '../../../shared/charts/group-bands';
import { runColor } from '../../../shared/charts/chart-theme';
import type { SeedGroup } from '../../../shared/compare/seed-groups';
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

/** The seed groups among a chart's runs (two or more of them drawn here), ordered and coloured by their first run. */
export function chartGroups(runs: readonly string[], groups: readonly SeedGroup[]): ChartGroup[] {
  const at = new Map(runs.map((r, i) => [r, i]));
  const out: ChartGroup[] = [];
  for (const g of groups) {
    const members = g.runs.filter((r) => at.has(r)).sort((a, b) => at.get(a)! - at.get(b)!);
    if (members.length >= 2) out.push({ label: g.label, runs: members, colorIndex: at.get(members[0]!)! });
  }
  return out.sort((a, b) => a.colorIndex - b.colorIndex);
}

/** Index of the grid point nearest `x` on an evenly spaced grid; -1 outside it. */
export function gridIndex(x: ArrayLike<number>, at: number): number {
  const n = x.length;
  if (n === 0 || !(at >= x[0]!) || !(at <= x[n - 1]!)) return -1;
  if (n === 1) return 0;
  return Math.min(n - 1, Math.max(0, Math.round(((at - x[0]!) / (x[n - 1]! - x[0]!)) * (n - 1))));
}

/** The readout's row per group at `at`: the mean with the band's edges, "1.23 [1.01, 1.45]" (and the IQM when drawn). */
export function groupRows(
  groups: readonly DrawnGroup[],
  at: number,
  o: { iqm: boolean; smoothing: boolean },
): ReadoutRow[] {
  const out: ReadoutRow[] = [];
  for (const g of groups) {
    const b = g.band;
    const i = gridIndex(b.x, at);
    if (i < 0 || b.n[i] === 0) continue;
    const iqm = o.iqm ? ` IQM ${formatNumber(b.iqm[i]!)}` : '';
    out.push({
      run: groupName(g),
      colour: runColor(g.colorIndex),
      dash: [],
      raw: `${formatNumber(b.mean[i]!)} [${formatNumber(b.lower[i]!)}, ${formatNumber(b.upper[i]!)}]${iqm}`,
      // With smoothing on every row has a smoothed cell: the group's values are already from the smoothed lines.
      smooth: o.smoothing ? '' : null,
      step: null,
    });
  }
  return out;
}

/** The readout with the groups' rows first and their runs' own rows left out (at most `maxRows` rows). */
export function withGroupRows(
  r: Readout | null,
  groups: readonly DrawnGroup[],
  at: number,
  o: { iqm: boolean; smoothing: boolean },
  maxRows = READOUT_ROWS,
): Readout | null {
  if (r === null || groups.length === 0) return r;
  const grouped = new Set(groups.flatMap((g) => g.runs));
  const rows = [...groupRows(groups, at, o), ...r.rows.filter((row) => !grouped.has(row.run))];
  const shown = rows.slice(0, maxRows);
  return { ...r, rows: shown, more: r.more + rows.length - shown.length };
}
