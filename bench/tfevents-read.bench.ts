// Event-file reader benchmark: cold full reads (CRCs off/on) and incremental tail reads of generated files.
// Run: npx tsx bench/tfevents-read.bench.ts [--steps N]

import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  encodeScalarEvent,
  EventFileReader,
  EventFileWriter,
  frameRecord,
  readEventFile,
} from '../src/core/tfevents';
import type { ScalarEncoding } from '../src/core/tfevents';

const argSteps = process.argv.indexOf('--steps');
const STEPS = argSteps > 0 ? Number(process.argv[argSteps + 1]) : 100_000;
const TAGS = 20;
const DATA = fileURLToPath(new URL('.data', import.meta.url));
const WALL = 1_700_000_000;

const tags = Array.from(
  { length: TAGS },
  (_, k) => `${k % 2 ? 'eval' : 'train'}/metric_${String(k).padStart(2, '0')}`,
);
const pointsAt = (s: number) =>
  tags.map((tag, k) => ({
    tag,
    value: 1 / (1 + s * 1e-3 * (k + 1)) + 0.01 * (((s * 7919 + k * 104729) % 1000) / 1000),
  }));

/** One event per step holding all tags, as PyTorch's add_scalars-free loops and our demo write. */
function generate(encoding: ScalarEncoding): string {
  const name = `events.out.tfevents.bench.${encoding}.${STEPS}x${TAGS}`;
  const path = join(DATA, name);
  if (existsSync(path) && existsSync(`${path}.done`)) return path;
  mkdirSync(DATA, { recursive: true });
  rmSync(path, { force: true });
  const t0 = performance.now();
  const w = new EventFileWriter(DATA, { fileName: name, wallTime: WALL });
  for (let s = 0; s < STEPS; s++) w.scalars(s, pointsAt(s), encoding, WALL + 0.1 * s);
  w.close();
  writeFileSync(`${path}.done`, '');
  console.log(
    `generated ${name} (${mb(statSync(path).size)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return path;
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function fullRead(label: string, path: string, checkDataCrc: boolean, runs = 7): void {
  const bytes = statSync(path).size;
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = readEventFile(path, { checkDataCrc });
    times.push(performance.now() - t0);
    points = r.series.pointCount();
    if (r.errors.length > 0 || points !== STEPS * TAGS)
      throw new Error(`bad read: ${JSON.stringify(r.errors)} ${points}`);
  }
  const best = Math.min(...times);
  const med = median(times);
  console.log(
    `${label.padEnd(34)} ${mb(bytes).padStart(6)} MB  median ${med.toFixed(0).padStart(5)} ms  ` +
      `${(bytes / 1e6 / (med / 1000)).toFixed(0).padStart(5)} MB/s (best ${(bytes / 1e6 / (best / 1000)).toFixed(0)})  ` +
      `${(points / 1e6 / (med / 1000)).toFixed(1).padStart(5)} M scalars/s`,
  );
}

/** Appends N events to a file already read to its end and times readMore: the cost must follow N, not the file size. */
function tailReads(label: string, base: string | null): void {
  const path = join(DATA, `tail-${label}`);
  if (base) copyFileSync(base, path);
  else writeFileSync(path, new Uint8Array(0));
  const reader = new EventFileReader(path);
  reader.readMore();
  let step = STEPS;
  for (const n of [1, 10, 100, 1000, 10000]) {
    const framed = Buffer.concat(
      Array.from({ length: n }, () => frameRecord(encodeScalarEvent(WALL + step, step++, pointsAt(step)))),
    );
    const times: number[] = [];
    for (let rep = 0; rep < 5; rep++) {
      appendFileSync(path, framed);
      const t0 = performance.now();
      const res = reader.readMore();
      times.push(performance.now() - t0);
      if (res.records !== n) throw new Error(`tail read ${res.records} of ${n}`);
    }
    const t = median(times);
    console.log(
      `  tail +${String(n).padEnd(6)} events (${String(framed.length).padStart(8)} B) on ${label.padEnd(9)}: ` +
        `${(t * 1000).toFixed(0).padStart(7)} µs  ${((t * 1e6) / framed.length).toFixed(2).padStart(6)} ns/new byte`,
    );
  }
  rmSync(path, { force: true });
}

const simple = generate('simple');
const tensor = generate('tensor-float');
console.log(
  `\nfull read, ${STEPS} steps x ${TAGS} tags, one event per step (node ${process.version}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
);
// Warm-up so the figures are of optimised code, as in a long-running app.
readEventFile(simple);
readEventFile(tensor);
fullRead('simple_value, data CRCs off', simple, false);
fullRead('simple_value, data CRCs on', simple, true);
fullRead('tensor (float, plugin scalars), off', tensor, false);
fullRead('tensor (float, plugin scalars), on', tensor, true);
console.log('\nincremental tail reads (append N events, readMore), median of 5:');
tailReads('empty', null);
tailReads('big-file', simple);
