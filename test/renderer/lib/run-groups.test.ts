// The run list's host groups and their link notes (pure).

import { describe, expect, test } from 'vitest';
import { groupByHost, linkNote } from '../../../src/renderer/src/lib/run-groups';
import type { EndpointInfo, RunInfo } from '../../../src/shared/domain';

const run = (name: string, host?: string): RunInfo =>
  ({ run: host ? `${host}//${name}` : name, ...(host ? { host } : {}) }) as RunInfo;

describe('host groups', () => {
  test('consecutive runs of a host form one group, local first, each run keeping its flat index', () => {
    const groups = groupByHost([run('a'), run('b'), run('x', 'h:1'), run('y', 'h:2'), run('z', 'h:2')]);
    expect(groups.map((g) => [g.host, g.runs.map((r) => r.index)])).toEqual([
      [null, [0, 1]],
      ['h:1', [2]],
      ['h:2', [3, 4]],
    ]);
  });

  test('a connected endpoint needs no note; others say what happened and since when', () => {
    const e = (state: EndpointInfo['state']): EndpointInfo => ({
      id: 'h:1',
      url: 'http://h:1/',
      state,
      since: 10_000,
      error: null,
      runs: 1,
      dropped: 0,
      sessionOnly: false,
    });
    expect(linkNote(e('connected'), 70_000)).toBe(null);
    expect(linkNote(e('disconnected'), 70_000)).toBe('disconnected 1 min ago');
    expect(linkNote(e('auth-failed'), 15_000)).toBe('token refused 5 s ago');
    expect(linkNote(e('connecting'), 15_000)).toBe('connecting…');
  });
});
