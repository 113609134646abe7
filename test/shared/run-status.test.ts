// The sidebar status rule: a crashed run shows as crashed (below alerts, above stalled, dead, finished, live, idle).

import { describe, expect, test } from 'vitest';
import { runActivity, runStatus, STATUS_LABELS } from '../../src/shared/run-status';
import type { RunInfo } from '../../src/shared/domain';

const now = 10_000_000;
const base: RunInfo = {
  run: 'r',
  sources: [{ file: 'run-x.wandb', format: 'wandb', records: 1, errors: [], dead: false }],
  tags: [],
  points: 1,
  lastEventAt: now - 1000,
  fileWrittenAt: now - 1000,
  progress: null,
  loaded: true,
  restarts: 0,
  sessions: [],
  worstAlert: null,
  stalled: false,
};

describe('run status of an ended run', () => {
  test('crashed wins over stalled, dead sources and recent writes; an alert wins over crashed', () => {
    const crashed = { ...base, ended: 'crashed' as const };
    expect(runStatus(crashed, now)).toBe('crashed');
    expect(runStatus({ ...crashed, stalled: true }, now)).toBe('crashed');
    expect(runStatus({ ...crashed, sources: [{ ...base.sources[0]!, dead: true }] }, now)).toBe('crashed');
    expect(runStatus({ ...crashed, worstAlert: 'warning' }, now)).toBe('warning');
    expect(STATUS_LABELS.crashed).toBe('crashed');
  });

  test('an exit code 0 is finished; no end known keeps the freshness rule', () => {
    expect(runStatus({ ...base, ended: 'finished' }, now)).toBe('finished');
    expect(runStatus({ ...base, ended: null }, now)).toBe('live');
    expect(runStatus(base, now)).toBe('live');
  });

  test('the activity is the status without the alert overlay (what /metrics exposes beside its alert series)', () => {
    expect(runStatus({ ...base, worstAlert: 'critical' }, now)).toBe('critical');
    expect(runActivity({ ...base, worstAlert: 'critical' }, now)).toBe('live');
    expect(runActivity({ ...base, worstAlert: 'warning', ended: 'crashed' }, now)).toBe('crashed');
  });
});

describe('run status of a judged stop', () => {
  test('exited is a state of its own (below crashed, above stalled); a stop at its planned end is finished', () => {
    const exited = { ...base, stop: { state: 'exited' as const, reason: 'exited before its end' } };
    expect(runActivity(exited, now)).toBe('exited');
    expect(runActivity({ ...exited, stalled: true }, now)).toBe('exited');
    expect(runActivity({ ...exited, ended: 'crashed' }, now)).toBe('crashed');
    expect(STATUS_LABELS.exited).toBe('exited');
    expect(runActivity({ ...base, stop: { state: 'stalled', reason: '' } }, now)).toBe('stalled');
    expect(runActivity({ ...base, stop: { state: 'ended', reason: '' } }, now)).toBe('finished');
  });
});
