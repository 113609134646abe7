// WebSocket wire codec benchmark: encode/decode of a series.appended delta of 5K and 256K points.
// Run: npx tsx bench/wire-codec.bench.ts

import { decodeWire, encodeWire } from '../src/shared/wire-codec';

function delta(points: number): object {
  const steps = new Float64Array(points);
  const wallTimes = new Float64Array(points);
  const values = new Float64Array(points);
  for (let i = 0; i < points; i++) {
    steps[i] = i;
    wallTimes[i] = 1_700_000_000 + i * 0.25;
    values[i] = Math.sin(i / 50) + (i % 97 === 0 ? Number.NaN : 0);
  }
  return {
    event: 'series.appended',
    payload: { run: 'run-1', tag: 'train/loss', from: 0, steps, wallTimes, values },
  };
}

/** Mean milliseconds per call over enough runs to last ~0.5 s (at least 3), after a warm-up. */
function time(fn: () => unknown): number {
  for (let k = 0; k < 2; k++) fn();
  let runs = 0;
  const t = performance.now();
  while (runs < 3 || performance.now() - t < 500) {
    fn();
    runs++;
  }
  return (performance.now() - t) / runs;
}

console.log('wire codec: series.appended delta (steps, wallTimes, values as Float64Array)');
for (const points of [5_000, 262_144]) {
  const message = delta(points);
  const text = encodeWire(message);
  const enc = time(() => encodeWire(message));
  const dec = time(() => decodeWire(text));
  console.log(
    `${points.toLocaleString().padStart(8)} points  ${(text.length / 1024).toFixed(0).padStart(6)} KiB  ` +
      `encode ${enc.toFixed(3).padStart(8)} ms  decode ${dec.toFixed(3).padStart(8)} ms`,
  );
}
