// Display downsampling benchmark: per-pixel min/max of 10M points → 1000 px, full range and a 1% zoom.
// Run: npx tsx bench/downsample.bench.ts [--points N]

import { lowerBound, minMaxIndices, upperBound } from '../src/core/series/downsample';
import { ScalarSeries } from '../src/core/series/scalar-series';

const arg = process.argv.indexOf('--points');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 10_000_000;
const WIDTH = 1000;

const series = new ScalarSeries(N);
for (let i = 0; i < N; i++) {
  // A noisy decaying loss, one spike and one NaN, as the property test guards.
  const v = Math.fround(
    i === N >> 1 ? 1e6 : i === N >> 2 ? Number.NaN : 1 / (1 + i * 1e-5) + 0.01 * Math.sin(i * 0.37),
  );
  series.append(i, 1_700_000_000 + i * 0.05, v);
}
const xs = series.steps();
const ys = series.values();

function time(label: string, x0: number, x1: number): void {
  const start = lowerBound(xs, x0);
  const end = upperBound(xs, x1, start);
  for (let k = 0; k < 3; k++) minMaxIndices(xs, ys, start, end, x0, x1, WIDTH); // warm-up
  const runs = 10;
  const t = process.hrtime.bigint();
  let out = 0;
  for (let k = 0; k < runs; k++) out = minMaxIndices(xs, ys, start, end, x0, x1, WIDTH).length;
  const ms = Number(process.hrtime.bigint() - t) / 1e6 / runs;
  const inRange = end - start;
  const pps = inRange / (ms / 1000);
  console.log(
    `${label.padEnd(22)} minmax in-range ${inRange.toLocaleString().padStart(11)}  ` +
      `out ${String(out).padStart(5)}  ${ms.toFixed(2).padStart(7)} ms  ${(pps / 1e6).toFixed(0).padStart(5)} M points/s`,
  );
}

console.log(
  `downsample: ${N.toLocaleString()} points (${series.isDouble ? 'f64' : 'f32'} values) → ${WIDTH} px`,
);
time('full range', 0, N - 1);
const mid = N * 0.6;
time('1% zoom', mid, mid + N * 0.01);
