// HF Trainer output folders for tests: trainer_state.json snapshots written where a trainer writes them.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A trainer_state.json as HF Trainer saves it at `step` of 10: one log entry per step from 1. */
export function trainerState(step: number): string {
  const log_history = Array.from({ length: step }, (_, i) => ({
    step: i + 1,
    loss: 1 / (i + 1),
    kl: 0.01 * i,
  }));
  return JSON.stringify({ global_step: step, max_steps: 10, log_history });
}

/** Writes `text` at `rel` under `root`, making the folders between. */
export function writeAt(root: string, rel: string, text: string): void {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}
