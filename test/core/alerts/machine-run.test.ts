// The machine pseudo-run: a training delta marks the GPU as wanted, and each tag is classified once, not per delta.
import { describe, expect, it, vi } from 'vitest';

const catalog = vi.hoisted(() => ({ groupCalls: 0 }));
vi.mock('../../../src/shared/catalog', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/shared/catalog')>();
  return {
    ...actual,
    groupOf: (tag: string) => {
      catalog.groupCalls++;
      return actual.groupOf(tag);
    },
  };
});

const { MachineRun, MACHINE_RUN } = await import('../../../src/core/alerts/machine-run');
import type { HealthEngine } from '../../../src/core/health';
import type { SeriesDelta } from '../../../src/shared/domain';

const delta = (tag: string, step: number): SeriesDelta =>
  ({
    run: 'r',
    tag,
    steps: new Float64Array([step]),
    wallTimes: new Float64Array([1_700_000_000 + step]),
    values: new Float64Array([0.5]),
  }) as unknown as SeriesDelta;

describe('MachineRun.noteDelta', () => {
  it('marks training for a training tag at its last wall time, not for a system tag; each tag classified once however many deltas (#36)', () => {
    const noted: [string, number][] = [];
    const engine = { noteTraining: (run: string, wall: number) => noted.push([run, wall]) };
    const m = new MachineRun(engine as unknown as HealthEngine, () => {});
    catalog.groupCalls = 0;
    for (let step = 0; step < 100; step++) {
      m.noteDelta(delta('rollout/ep_rew_mean', step));
      m.noteDelta(delta('System/Memory_Percent', step));
    }
    expect(noted).toHaveLength(100);
    expect(noted[99]).toEqual([MACHINE_RUN, 1_700_000_099]);
    // Before: groupOf ran for every delta (200 here; 2,500 a second with 50 runs × 50 tags).
    expect(catalog.groupCalls).toBeLessThanOrEqual(2);
  });
});
