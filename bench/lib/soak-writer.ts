// Child process of the soak bench: a simulated trainer writing TAGS scalars per step at HZ into one event file, flushed per step.
// Usage: tsx bench/lib/soak-writer.ts RUN_DIR TAGS HZ SECONDS — prints "ready", waits for "start" on stdin, then one "s STEP T" line per flush.

import { createInterface } from 'node:readline';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { tagNames, valueAt } from './log-folder';

const [dir, tagsArg, hzArg, secondsArg] = process.argv.slice(2);
const tags = tagNames(Number(tagsArg));
const periodMs = 1000 / Number(hzArg);
const seconds = Number(secondsArg);

/** Wall-clock milliseconds with sub-ms resolution, comparable across processes. */
const now = (): number => performance.timeOrigin + performance.now();

const writer = new EventFileWriter(dir!, { fileName: 'events.out.tfevents.1700000000.soak.0.0' });
writer.flush();
process.stdout.write('ready\n');

createInterface({ input: process.stdin }).once('line', () => {
  const t0 = performance.now();
  let step = 0;
  const tick = (): void => {
    const wall = now() / 1000;
    // One Event per tag, as PyTorch's add_scalar writes, then one flush for the step.
    for (let k = 0; k < tags.length; k++)
      writer.scalars(step, [{ tag: tags[k]!, value: valueAt(0, k, step) }], 'simple', wall);
    writer.flush();
    process.stdout.write(`s ${step} ${now().toFixed(3)}\n`);
    step++;
    if (performance.now() - t0 >= seconds * 1000) {
      writer.close();
      process.stdout.write('end\n', () => process.exit(0));
      return;
    }
    // Scheduled against the start so the rate does not drift with timer lateness.
    setTimeout(tick, Math.max(0, t0 + step * periodMs - performance.now()));
  };
  tick();
});
