// The soak benches' runs: one event file per run (DIR/run_000 …), and the history written into them before they go live.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { valueAt } from './log-folder';

/** One writer per run: `dir` itself when there is one run, else DIR/run_000 …, each file named as the soak writer's. */
export function soakWriters(dir: string, runs: number): EventFileWriter[] {
  return Array.from({ length: runs }, (_, r) => {
    const runDir = runs === 1 ? dir : join(dir, `run_${String(r).padStart(3, '0')}`);
    mkdirSync(runDir, { recursive: true });
    return new EventFileWriter(runDir, { fileName: `events.out.tfevents.1700000000.soak.${r}.0` });
  });
}

/** `history` steps in every run, one Event per step holding every tag (the per-tag layout's 50× more encode calls
 * took minutes on a busy machine), the last one a second before `endWall` (s); flushed. */
export function writeSoakHistory(
  writers: EventFileWriter[],
  tags: string[],
  history: number,
  endWall: number,
): void {
  const historyWall = endWall - history;
  for (let step = 0; step < history; step++)
    for (let r = 0; r < writers.length; r++)
      writers[r]!.scalars(
        step,
        tags.map((tag, k) => ({ tag, value: valueAt(r, k, step) })),
        'simple',
        historyWall + step,
      );
  for (const w of writers) w.flush();
}
