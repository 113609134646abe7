// The performance profile figure of `inspect --table --aggregate`: each group's run score distribution with its stratified bootstrap band, drawn as the group figures are.

import type { Figure } from '../../shared/charts/figure';
import type { DrawnGroup } from '../../shared/charts/group-bands';
import type { AggregateReport, ProfileLine } from '../../shared/compare/aggregate-table';
import { formatNumber } from '../../shared/format';

/** One panel: per group the fraction of its runs scoring above τ (solid) over its 95 % interval (filled). */
export function profileFigure(r: AggregateReport, lines: readonly ProfileLine[]): Figure {
  const drawn: DrawnGroup[] = lines.map((l, i) => {
    const g = r.groups.find((x) => x.label === l.label)!;
    const runs = g.tasks.flatMap((t) => t.runs);
    const col = (f: (p: ProfileLine['points'][number]) => number): Float64Array =>
      Float64Array.from(l.points, f);
    const fraction = col((p) => p.fraction.value);
    return {
      label: l.label,
      runs,
      seeds: [],
      colorIndex: i,
      series: [],
      band: {
        x: col((p) => p.tau),
        mean: fraction,
        lower: col((p) => p.fraction.lower),
        upper: col((p) => p.fraction.upper),
        iqm: fraction,
        n: Int32Array.from(l.points, () => runs.length),
        band: 'ci95',
      },
    };
  });
  const score = r.normalise
    ? `${r.metric} normalised from [${formatNumber(r.normalise.min)}, ${formatNumber(r.normalise.max)}]`
    : r.metric;
  const tasks = r.task ? `, runs resampled within each ${r.task}` : '';
  return {
    title: `Performance profile: ${r.metric}`,
    // The legend names each group with its run count.
    subtitle: `fraction of runs with score > τ · band: 95 % stratified bootstrap interval (${r.reps} resamples, seed ${r.seed}${tasks})`,
    panels: [
      {
        title: `score: each run's last logged ${score}`,
        yTitle: 'fraction of runs with score > τ',
        xTitle: `τ (${r.metric}${r.normalise ? ', normalised' : ''})`,
        spec: { view: { xAxis: 'step', logY: false, smoothing: 0 }, series: [], band: null },
        groups: { drawn, iqm: false },
      },
    ],
  };
}
