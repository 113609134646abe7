// The alert service takes a run up once it is read: a list of 10k runs found on opening sets none of them up (#36).
import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../../src/shared/domain';
import { testAlertService } from '../../helpers/alert-service';

const T0 = 1_700_000_000_000;

const info = (run: string, loaded: boolean): RunInfo => ({
  run,
  sources: [],
  tags: [],
  points: 0,
  lastEventAt: null,
  fileWrittenAt: T0,
  progress: null,
  loaded,
  restarts: 0,
  sessions: [],
  worstAlert: null,
  stalled: false,
  ended: null,
});

describe('runs not read yet', () => {
  it('a list of runs found but not read asks nothing about them; each is taken up once the list says it is read', () => {
    const asked: string[] = [];
    const names = Array.from({ length: 1000 }, (_, i) => `run_${String(i).padStart(4, '0')}`);
    const service = testAlertService({
      runs: () => names,
      configOf: (run) => {
        asked.push(run);
        return run === 'run_0000' ? { target_kl: 0.5 } : null;
      },
      clock: () => T0,
    });
    service.onRuns(names.map((n) => info(n, false)));
    expect(asked).toEqual([]);
    service.onRuns(names.map((n, i) => info(n, i === 0)));
    expect(new Set(asked)).toEqual(new Set(['run_0000']));
    expect(service.thresholdsOf('run_0000').values.target_kl).toBe(0.5);
  });
});
