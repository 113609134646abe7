// Fuzzes the trainer_state and training_progress readers, 100k inputs each.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enc, fuzz } from './fuzz-harness';
import { fixture } from './helpers';

describe('JSON document fuzzing', () => {
  it('trainer_state: data or typed errors on 100k inputs', async () => {
    const real = readFileSync(fixture('progress/Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json'));
    const seeds = [
      Uint8Array.from(real.subarray(0, 700)),
      enc('{"global_step": 12, "max_steps": 24, "log_history": [{"step": 10, "kl": 0.002}]}'),
    ];
    expect(await fuzz('trainer_state', seeds, 10_000, 9)).toBe(100_000);
  });

  it('training_progress: data or typed errors on 100k inputs', async () => {
    const seeds = [
      enc(
        '{"completed_chunks": 3, "total_chunks": 12, "latest_checkpoint": "c.pt", "started_at": "2025-01-01T00:00:00Z", "elapsed": 60, "history": [{"session": 1, "requests_done": 30}]}',
      ),
      enc('{"global_step": 5, "max_steps": 0, "sessions": [1, {"t": 1e400}]}'),
    ];
    expect(await fuzz('training_progress', seeds, 10_000, 9)).toBe(100_000);
  });
});
