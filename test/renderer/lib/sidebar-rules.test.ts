// The runs sidebar's pure rules: the run filter, read-error badges and lists, the remembered width's bounds.

import { describe, expect, test } from 'vitest';
import type { SourceInfo } from '../../../src/shared/domain';
import { readErrorBadge, readErrorsOf } from '../../../src/renderer/src/lib/read-errors';
import { filterRuns } from '../../../src/renderer/src/lib/run-filter';
import {
  clampSidebarWidth,
  SIDEBAR_DEFAULT,
  SIDEBAR_MAX,
  SIDEBAR_MIN,
} from '../../../src/renderer/src/lib/sidebar-width';

const source = (file: string, records: number, errors: SourceInfo['errors']): SourceInfo => ({
  file,
  format: 'wandb',
  records,
  errors,
  dead: false,
});

describe('run filter', () => {
  const runs = [{ run: 'tfevents/PPO_1' }, { run: 'tfevents/A2C_1' }, { run: 'wandb/offline-run-iotz2fip' }];
  test('every word must appear, any case, any order', () => {
    expect(filterRuns(runs, 'ppo')).toEqual([{ run: 'tfevents/PPO_1' }]);
    expect(filterRuns(runs, '1 TFEVENTS')).toHaveLength(2);
    expect(filterRuns(runs, 'iotz dqn')).toEqual([]);
  });
  test('an empty or blank filter keeps every run', () => {
    expect(filterRuns(runs, '   ')).toEqual(runs);
  });
});

describe('read errors', () => {
  const run = {
    sources: [
      source('ok.wandb', 10, []),
      source('run-iotz2fip.wandb', 20, [{ offset: 15799, kind: 'truncated', message: 'chunk past EOF' }]),
      source('bad-crc.wandb', 7, [
        { offset: 900, kind: 'bad-data-crc', message: 'b' },
        { offset: 100, kind: 'bad-data-crc', message: 'a' },
      ]),
    ],
  };
  test('flattened per file in offset order, with the records kept', () => {
    expect(readErrorsOf(run).map((e) => [e.file, e.offset, e.kind, e.records])).toEqual([
      ['run-iotz2fip.wandb', 15799, 'truncated', 20],
      ['bad-crc.wandb', 100, 'bad-data-crc', 7],
      ['bad-crc.wandb', 900, 'bad-data-crc', 7],
    ]);
  });
  test('the badge counts errors and files; none for a clean run', () => {
    expect(readErrorBadge(run)).toBe('3 read errors in 2 files');
    expect(readErrorBadge({ sources: [run.sources[1]!] })).toBe('1 read error');
    expect(readErrorBadge({ sources: [run.sources[0]!] })).toBeNull();
  });
});

describe('sidebar width', () => {
  test('clamped to its bounds and to half the window; nonsense gives the default', () => {
    expect(clampSidebarWidth(10, 1600)).toBe(SIDEBAR_MIN);
    expect(clampSidebarWidth(5000, 4000)).toBe(SIDEBAR_MAX);
    expect(clampSidebarWidth(600, 1000)).toBe(500);
    expect(clampSidebarWidth(300.4, 1600)).toBe(300);
    expect(clampSidebarWidth(NaN, 1600)).toBe(SIDEBAR_DEFAULT);
  });
});
