// A run whose known trainer process exits before it finished: the system sample's exit raises trainer-exited.
import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { testAlertService } from '../../helpers/alert-service';

const snap = (t: number, exits: SystemSnapshot['processExits']): SystemSnapshot =>
  ({
    t,
    cpuPct: 1,
    memPct: 10,
    gpus: null,
    trainingProcesses: [],
    processExits: exits,
  }) as unknown as SystemSnapshot;

const runInfo = (run: string, fraction: number | null): RunInfo =>
  ({
    run,
    progress: fraction === null ? null : { fraction, etaSeconds: null },
    ended: null,
    loaded: true,
  }) as unknown as RunInfo;

describe('trainer exited', () => {
  it('raises once for an unfinished run, never for a finished one or one it does not know', () => {
    const clock = { now: 1_700_000_000_000 };
    const service = testAlertService({
      runs: () => ['a', 'b'],
      clock: () => clock.now,
    });
    const raised: string[] = [];
    service.onBatch((b) => {
      for (const t of b.transitions)
        if (t.kind === 'raised') raised.push(`${t.alert.run} ${t.alert.rule} ${t.alert.step}`);
    });
    for (const run of ['a', 'b'])
      service.feed({
        run,
        tag: 'train/loss',
        from: 0,
        steps: Float64Array.of(1, 2, 3),
        wallTimes: Float64Array.of(1e9, 1e9 + 1, 1e9 + 2),
        values: Float64Array.of(1, 0.9, 0.8),
      });
    service.onRuns([runInfo('a', 0.4), runInfo('b', 1)]);
    clock.now += 5_000;
    service.onSnapshot(
      snap(clock.now, [
        { run: 'a', pids: [42], at: clock.now, lastSeenAt: clock.now - 1000 },
        { run: 'b', pids: [43], at: clock.now, lastSeenAt: clock.now - 1000 },
        { run: 'elsewhere', pids: [44], at: clock.now, lastSeenAt: clock.now - 1000 },
      ]),
    );
    expect(raised).toEqual(['a trainer-exited 3']);
    expect(service.activeAlerts('a')[0]).toMatchObject({ rule: 'trainer-exited', severity: 'critical' });
  });
});
