// Child process of the soak benches: simulated trainers writing TAGS scalars per step at HZ into one event file per run, flushed per step.
// Usage: tsx bench/lib/soak-writer.ts RUN_DIR TAGS HZ SECONDS [RUNS HISTORY] — prints "ready", waits for "start" on
// stdin, then one "s STEP T" line per step. RUNS > 1: DIR/run_000 … each a run, each with HISTORY steps written before "ready"
// (one Event per step holding every tag).

import { createInterface } from 'node:readline';
import { tagNames, valueAt } from './log-folder';
import { soakWriters, writeSoakHistory } from './soak-runs';

const [dir, tagsArg, hzArg, secondsArg, runsArg, historyArg] = process.argv.slice(2);
const tags = tagNames(Number(tagsArg));
const periodMs = 1000 / Number(hzArg);
const seconds = Number(secondsArg);
const runs = Number(runsArg ?? 1);
const history = Number(historyArg ?? 0);

/** Wall-clock milliseconds with sub-ms resolution, comparable across processes. */
const now = (): number => performance.timeOrigin + performance.now();

const writers = soakWriters(dir!, runs);

/** One Event per tag, as PyTorch's add_scalar writes, into every run's file (not yet flushed). */
const writeStep = (step: number, wall: number): void => {
  for (let r = 0; r < writers.length; r++)
    for (let k = 0; k < tags.length; k++)
      writers[r]!.scalars(step, [{ tag: tags[k]!, value: valueAt(r, k, step) }], 'simple', wall);
};

writeSoakHistory(writers, tags, history, now() / 1000);
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
