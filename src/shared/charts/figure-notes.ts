// What a figure states about its panels: every transform (smoothing, log y, clipped outliers, downsampling) and every value not drawn.

import { formatNumber } from '../format';
import { untimedNote } from './axis';
import type { ChartSpec, SeriesFacts, SeriesLines } from './chart-spec';
import { fitY } from './y-range';

/** Facts of `values` at `xs`: counts, and mark positions thinned to `pixels` columns over the x range. */
export function seriesFacts(
  xs: ArrayLike<number>,
  values: ArrayLike<number>,
  o: { logY: boolean; pixels: number; drawn: number },
): SeriesFacts {
  const facts: SeriesFacts = {
    points: values.length,
    drawn: o.drawn,
    nan: 0,
    posInf: 0,
    negInf: 0,
    nonPositive: 0,
    marks: [],
  };
  const n = values.length;
  if (n === 0) return facts;
  const x0 = xs[0]!;
  const span = xs[n - 1]! - x0;
  const columns = Math.max(1, Math.round(o.pixels));
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) {
      if (o.logY && v <= 0) facts.nonPositive++;
      continue;
    }
    const kind = Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
    if (kind === 'nan') facts.nan++;
    else if (kind === 'inf') facts.posInf++;
    else facts.negInf++;
    const column = span > 0 ? Math.floor(((xs[i]! - x0) / span) * columns) : 0;
    const key = `${kind}:${column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    facts.marks.push({ x: xs[i]!, kind });
  }
  return facts;
}

/** "20 NaN, 1 +Inf": the non-finite values of a series; '' when none. */
export function nonFiniteText(f: Pick<SeriesFacts, 'nan' | 'posInf' | 'negInf'>): string {
  return [
    f.nan > 0 ? `${f.nan} NaN` : null,
    f.posInf > 0 ? `${f.posInf} +Inf` : null,
    f.negInf > 0 ? `${f.negInf} −Inf` : null,
  ]
    .filter((s): s is string => s !== null)
    .join(', ');
}

/** Facts summed over the series that carry them (null when none does). */
function totals(series: readonly SeriesLines[]): SeriesFacts | null {
  let out: SeriesFacts | null = null;
  for (const s of series) {
    const f = s.facts;
    if (!f) continue;
    out ??= { points: 0, drawn: 0, nan: 0, posInf: 0, negInf: 0, nonPositive: 0, marks: [] };
    out.points += f.points;
    out.drawn += f.drawn;
    out.nan += f.nan;
    out.posInf += f.posInf;
    out.negInf += f.negInf;
    out.nonPositive += f.nonPositive;
  }
  return out;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The words in a blank plot, or null when something is drawn: "no finite values (20 NaN)", "no values above 0
 * for log y (12 ≤ 0)", "no points". A panel never comes out empty without saying why.
 */
export function emptyMessage(series: readonly SeriesLines[], logY: boolean): string | null {
  const drawable = series.some((s) => s.raw.some((p) => Number.isFinite(p.y) && (!logY || p.y > 0)));
  if (drawable) return null;
  const t = totals(series);
  if (!t || t.points === 0) return 'no points';
  const bad = nonFiniteText(t);
  const finite = t.points - t.nan - t.posInf - t.negInf;
  if (finite === 0) return `no finite values (${bad})`;
  if (logY && t.nonPositive > 0)
    return `no values above 0 for log y (${t.nonPositive} ≤ 0${bad ? `, ${bad}` : ''})`;
  return bad ? `no drawable values (${bad})` : null;
}

/**
 * Every transform between the values read and the lines drawn, and every value left out, as short notes:
 * "smoothed (EMA 0.9, raw faint)", "log y: 3 values ≤ 0 not drawn", "y clipped to 0.17 – 0.19 (outliers
 * ignored), 12 points past the edge marked", "20 NaN not drawn (marked on the x-axis)", "min/max per pixel
 * of 120,000 points", "2 alerts marked". One wording for the window's figures and the exported ones.
 */
export function panelNotes(spec: ChartSpec): string[] {
  const notes: string[] = [];
  const { view } = spec;
  const t = totals(spec.series);
  const axis = spec.askedXAxis === undefined ? null : untimedNote(spec.askedXAxis, true);
  if (axis !== null) notes.push(axis);
  if (view.smoothing > 0) notes.push(`smoothed (EMA ${formatNumber(view.smoothing)}, raw faint)`);
  if (view.logY)
    notes.push(t && t.nonPositive > 0 ? `log y: ${plural(t.nonPositive, 'value')} ≤ 0 not drawn` : 'log y');
  const fit = fitY(spec.series, view.logY, view.ignoreOutliers ?? false);
  if (fit.min !== undefined && fit.max !== undefined) {
    let outside = 0;
    for (const s of spec.series) for (const p of s.raw) if (p.y < fit.min || p.y > fit.max) outside++;
    notes.push(
      `y clipped to ${formatNumber(fit.min)} – ${formatNumber(fit.max)} (outliers ignored: 5th–95th percentile + 10 %), ` +
        `${plural(outside, 'point')} past the edge marked`,
    );
  }
  if (t) {
    const bad = nonFiniteText(t);
    const finite = t.points - t.nan - t.posInf - t.negInf;
    if (bad && finite > 0) notes.push(`${bad} not drawn (marked on the x-axis)`);
    if (t.points > t.drawn && t.drawn > 0)
      notes.push(`min/max per pixel of ${t.points.toLocaleString('en-US')} points`);
  }
  const alerts = (spec.markers ?? []).filter((m) => m.kind === 'alert').length;
  const restarts = (spec.markers ?? []).filter((m) => m.kind === 'restart').length;
  if (alerts > 0) notes.push(`${plural(alerts, 'alert')} marked`);
  if (restarts > 0) notes.push(`${plural(restarts, 'restart')} marked`);
  const earlier = spec.series.filter((s) => s.faded).length;
  if (earlier > 0)
    notes.push(`${plural(earlier, 'earlier session')} dashed and faded (every point it wrote)`);
  return notes;
}
