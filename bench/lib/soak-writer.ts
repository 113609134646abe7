// Child process of the soak benches: simulated trainers writing TAGS scalars per step at HZ into one event file per run, flushed per step.
// Usage: tsx bench/lib/soak-writer.ts RUN_DIR TAGS HZ SECONDS [RUNS HISTORY] — prints "ready", waits for "start" on
// stdin, then one "s STEP T" line per step. RUNS > 1: DIR/run_000 … each a run, each with HISTORY steps written before "ready"
// (one Event per step holding every tag).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { tagNames, valueAt } from './log-folder';

const [dir, tagsArg, hzArg, secondsArg, runsArg, historyArg] = process.argv.slice(2);
const tags = tagNames(Number(tagsArg));
const periodMs = 1000 / Number(hzArg);
const seconds = Number(secondsArg);
const runs = Number(runsArg ?? 1);
const history = Number(historyArg ?? 0);

/** Wall-clock milliseconds with sub-ms resolution, comparable across processes. */
const now = (): number => performance.timeOrigin + performance.now();

const writers = Array.from({ length: runs }, (_, r) => {
  const runDir = runs === 1 ? dir! : join(dir!, `run_${String(r).padStart(3, '0')}`);
  mkdirSync(runDir, { recursive: true });
  return new EventFileWriter(runDir, { fileName: `events.out.tfevents.1700000000.soak.${r}.0` });
});

/** One Event per tag, as PyTorch's add_scalar writes, into every run's file (not yet flushed). */
const writeStep = (step: number, wall: number): void => {
  for (let r = 0; r < writers.length; r++)
    for (let k = 0; k < tags.length; k++)
      writers[r]!.scalars(step, [{ tag: tags[k]!, value: valueAt(r, k, step) }], 'simple', wall);
};

// The history: one Event per step holding every tag (the per-tag layout's 50× more encode calls took minutes on a busy machine).
const historyWall = now() / 1000 - history;
for (let step = 0; step < history; step++)
  for (let r = 0; r < writers.length; r++)
    writers[r]!.scalars(
      step,
      tags.map((tag, k) => ({ tag, value: valueAt(r, k, step) })),
      'simple',
      historyWall + step,
    );
for (const w of writers) w.flush();
process.stdout.write('ready\n');

createInterface({ input: process.stdin }).once('line', () => {
  const t0 = performance.now();
  let step = history;
  const tick = (): void => {
    writeStep(step, now() / 1000);
    for (const w of writers) w.flush();
    process.stdout.write(`s ${step} ${now().toFixed(3)}\n`);
    step++;
    if (performance.now() - t0 >= seconds * 1000) {
      for (const w of writers) w.close();
      process.stdout.write('end\n', () => process.exit(0));
      return;
    }
    // Scheduled against the start so the rate does not drift with timer lateness.
    setTimeout(tick, Math.max(0, t0 + (step - history) * periodMs - performance.now()));
  };
  tick();
});
