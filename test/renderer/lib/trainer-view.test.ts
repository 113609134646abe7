// The system panel's training process: a remote run's from its agent (never "not found" from this machine's table).

import { describe, expect, test } from 'vitest';
import { trainerView } from '../../../src/renderer/src/lib/trainer-view';
import type { RunInfo } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';

const T0 = 1_790_000_000_000;
const processes = [{ pid: 4242, evidence: 'open-files' as const, onGpu: true }];
const run = (o: Partial<RunInfo>): RunInfo =>
  ({ run: 'ppo', sources: [], tags: [], worstAlert: null, stalled: false, ...o }) as RunInfo;
const snapshot = (withPpo: boolean): SystemSnapshot =>
  ({
    t: T0,
    trainingProcesses: withPpo ? [{ run: 'ppo', processes, cpuPct: 97, rssMiB: 1024 }] : [],
    processExits: [],
  }) as unknown as SystemSnapshot;

describe('trainerView', () => {
  test("a remote run's trainer is its agent's: alive with its pids while this machine's sample has none", () => {
    const remote = run({
      run: 'n2:7070//ppo',
      host: 'n2:7070',
      trainer: { state: 'alive', processes, exitedAt: null },
    });
    expect(trainerView(remote, snapshot(false))).toEqual({
      state: 'alive',
      reportedBy: 'n2:7070',
      processes,
      cpuPct: null,
      rssMiB: null,
      exitedAt: null,
    });
    // Exited, as its agent saw it; none found by its agent is "not found" there.
    const gone = { ...remote, trainer: { state: 'exited' as const, processes, exitedAt: T0 } };
    expect(trainerView(gone, snapshot(false))).toMatchObject({
      state: 'exited',
      reportedBy: 'n2:7070',
      exitedAt: T0,
    });
    expect(trainerView({ ...remote, trainer: null }, snapshot(true))).toMatchObject({
      state: 'not-found',
      reportedBy: 'n2:7070',
    });
  });

  test("a local run's from this machine's live sample (its CPU and memory), else exited as seen, else not found", () => {
    expect(trainerView(run({}), snapshot(true))).toMatchObject({
      state: 'alive',
      reportedBy: null,
      cpuPct: 97,
    });
    const gone = run({ trainer: { state: 'exited', processes, exitedAt: T0 } });
    expect(trainerView(gone, snapshot(false))).toMatchObject({ state: 'exited', processes, exitedAt: T0 });
    expect(
      trainerView(run({ trainer: { state: 'alive', processes, exitedAt: null } }), snapshot(false)),
    ).toMatchObject({
      state: 'not-found',
    });
    expect(trainerView(null, snapshot(true))).toBe(null);
  });
});
