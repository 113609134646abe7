// A run's trainer as the samples found it (RunInfo.trainer): alive with its pids, exited once seen gone, else unknown.

import { describe, expect, test } from 'vitest';
import { TrainerFacts, trainerKey } from '../../../src/core/app/trainer-facts';
import type { ProcessExit, SystemSnapshot, TrainingProcess } from '../../../src/shared/system-types';

const T0 = 1_790_000_000_000;

const snap = (trainingProcesses: TrainingProcess[], processExits: ProcessExit[] = []): SystemSnapshot => ({
  t: T0,
  cpuPct: null,
  memPct: null,
  memUsedMiB: null,
  memTotalMiB: null,
  gpus: null,
  nvidia: { state: 'pending' },
  nvidiaChanged: false,
  appleGpu: null,
  trainingProcesses,
  processExits,
});
const proc = (run: string, pids: number[], cpuPct = 90): TrainingProcess => ({
  run,
  processes: pids.map((pid) => ({ pid, evidence: 'open-files', onGpu: false })),
  cpuPct,
  rssMiB: 512,
});

describe('TrainerFacts', () => {
  test('alive with its pids, exited (kept) once every known process was seen gone, alive again when one is found', () => {
    const f = new TrainerFacts();
    expect(f.note(snap([proc('ppo', [4242])]))).toEqual(new Set(['ppo']));
    expect(f.of('ppo')).toEqual({
      state: 'alive',
      processes: [{ pid: 4242, evidence: 'open-files', onGpu: false }],
      exitedAt: null,
    });
    // Its CPU moves every sample: no change for the run list.
    expect(f.note(snap([proc('ppo', [4242], 40)]))).toEqual(new Set());
    // Killed: every known process gone.
    expect(f.note(snap([], [{ run: 'ppo', pids: [4242], at: T0 + 5000, lastSeenAt: T0 + 3000 }]))).toEqual(
      new Set(['ppo']),
    );
    expect(f.of('ppo')).toMatchObject({ state: 'exited', exitedAt: T0 + 5000 });
    expect(f.of('ppo')!.processes.map((p) => p.pid)).toEqual([4242]);
    // The next samples find none: it stays exited (a fact, not a guess).
    expect(f.note(snap([]))).toEqual(new Set());
    expect(f.of('ppo')!.state).toBe('exited');
    // Restarted: alive again, with its new pid.
    expect(f.note(snap([proc('ppo', [5151])]))).toEqual(new Set(['ppo']));
    expect(trainerKey(f.of('ppo'))).toBe('alive:5151');
  });

  test('a run no longer attributed without an exit seen is unknown again; none found is unknown (null)', () => {
    const f = new TrainerFacts();
    expect(f.of('ppo')).toBe(null);
    f.note(snap([proc('ppo', [4242])]));
    expect(f.note(snap([]))).toEqual(new Set(['ppo']));
    expect(f.of('ppo')).toBe(null);
    f.note(snap([proc('ppo', [4242])]));
    f.clear();
    expect(f.of('ppo')).toBe(null);
  });
});
