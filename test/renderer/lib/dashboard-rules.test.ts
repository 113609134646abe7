// The dashboard's pure rules: which tags chart in which group, a run's status dot, the config table, formatting.

import { beforeAll, describe, expect, test } from 'vitest';
import type { RunInfo } from '../../../src/shared/domain';
import { filterConfig, flattenConfig } from '../../../src/renderer/src/lib/config';
import { formatAgo, formatDuration } from '../../../src/renderer/src/lib/format';
import { LIVE_WINDOW_MS, runStatus } from '../../../src/shared/run-status';
import { compileFilter, groupTags } from '../../../src/renderer/src/lib/tags';
import { loadUserRegex } from '../../../src/renderer/src/lib/user-regex-loader';

// The page loads the regex engine when a filter first needs it; these tests filter with it in.
beforeAll(async () => {
  await loadUserRegex();
});

describe('tag groups', () => {
  const tags = [
    'approx_kl',
    'Train/AvgReward',
    'System/GPU_Utilization',
    'my_custom_metric',
    'Train/Loss',
    'max_steps',
    'Performance/Generation_TokensPerSec',
    'entropy',
  ];

  test('groups follow the seeds order, unknown tags go to Other, progress counters are charts too', () => {
    const g = groupTags(tags, { filter: null, pinned: new Set() });
    expect(g.groups.map((x) => x.group)).toEqual([
      'Reward',
      'Loss',
      'Policy',
      'Performance',
      'Progress',
      'System',
      'Other',
    ]);
    expect(g.groups.find((x) => x.group === 'Policy')!.tags).toEqual(['approx_kl', 'entropy']);
    expect(g.groups.find((x) => x.group === 'Progress')!.tags).toEqual(['max_steps']);
    expect(g.groups.at(-1)!.tags).toEqual(['my_custom_metric']);
  });

  test('every series is a chart: the set inspect, watch and export list (a training_progress.json snapshot too)', () => {
    // The top-level fields of a training_progress.json are both progress fields and series: charts.
    const snapshot = ['total_steps', 'training_sessions', 'epoch', 'total_flos', 'rollout/ep_rew_mean'];
    const g = groupTags(snapshot, { filter: null, pinned: new Set() });
    expect(g.groups.flatMap((x) => x.tags).sort()).toEqual([...snapshot].sort());
  });

  test('pinned tags come out first and only once; the filter applies to them too', () => {
    const g = groupTags(tags, {
      filter: compileFilter('kl|loss').re,
      pinned: new Set(['Train/Loss']),
    });
    expect(g.pinned).toEqual(['Train/Loss']);
    expect(g.groups.flatMap((x) => x.tags)).toEqual(['approx_kl']);
  });

  test('an invalid regex is an error message, an empty one matches all', () => {
    expect(compileFilter('(')).toMatchObject({ re: null, error: expect.stringMatching(/./) });
    expect(compileFilter('  ')).toEqual({ re: null, error: null });
    expect(compileFilter('KL').re!.test('approx_kl')).toBe(true);
    // The run filter's bounds hold here too: a nested quantifier runs in linear time, an overlong pattern is refused.
    expect(compileFilter('(a+)+$').re!.test(`${'a'.repeat(900)}!`)).toBe(false);
    expect(compileFilter('(a)\\1')).toMatchObject({
      re: null,
      error: expect.stringMatching(/back-references/),
    });
    expect(compileFilter('x'.repeat(501))).toMatchObject({
      re: null,
      error: expect.stringMatching(/longer than 500/),
    });
  });
});

describe('run status dot', () => {
  const base: RunInfo = {
    run: 'r',
    sources: [{ file: 'a', format: 'csv', records: 1, errors: [], dead: false }],
    tags: [],
    points: 1,
    lastEventAt: null,
    fileWrittenAt: null,
    progress: null,
    loaded: true,
    restarts: 0,
    sessions: [],
    worstAlert: null,
    stalled: false,
  };
  const now = 10_000_000;

  test('worst alert beats stalled beats dead beats finished beats live/idle', () => {
    expect(runStatus({ ...base, worstAlert: 'critical', stalled: true }, now)).toBe('critical');
    expect(runStatus({ ...base, stalled: true }, now)).toBe('stalled');
    expect(runStatus({ ...base, sources: [{ ...base.sources[0]!, dead: true }] }, now)).toBe('dead');
    expect(runStatus({ ...base, progress: { fraction: 1, etaSeconds: 0 } }, now)).toBe('finished');
    expect(runStatus({ ...base, loaded: false }, now)).toBe('loading');
  });

  test('live while the newest point or file write is recent, idle after', () => {
    expect(runStatus({ ...base, lastEventAt: now - 1000 }, now)).toBe('live');
    // A buffering writer: the file moves though no new point was parsed yet.
    expect(runStatus({ ...base, lastEventAt: now - 10 * LIVE_WINDOW_MS, fileWrittenAt: now - 5 }, now)).toBe(
      'live',
    );
    expect(runStatus({ ...base, lastEventAt: now - 2 * LIVE_WINDOW_MS }, now)).toBe('idle');
  });
});

describe('config table', () => {
  test('nested keys become dotted rows; arrays and empty objects are readable; search matches keys and values', () => {
    const rows = flattenConfig({
      ppo: { target_kl: 0.02, clip: { low: 0.2 } },
      seeds: [1, 2],
      extra: {},
      tags: [{ a: 1 }],
    });
    expect(rows).toEqual([
      { key: 'ppo.target_kl', value: '0.02' },
      { key: 'ppo.clip.low', value: '0.2' },
      { key: 'seeds', value: '[1, 2]' },
      { key: 'extra', value: '{}' },
      { key: 'tags', value: '[{"a":1}]' },
    ]);
    expect(filterConfig(rows, 'KL').map((r) => r.key)).toEqual(['ppo.target_kl']);
    expect(filterConfig(rows, '0.2').map((r) => r.key)).toEqual(['ppo.clip.low']);
  });
});

describe('formatting', () => {
  test('ages and durations read naturally', () => {
    expect(formatAgo(null, 0)).toBe('never');
    expect(formatAgo(0, 12_000)).toBe('12 s ago');
    expect(formatAgo(0, 3 * 3600_000 + 5)).toBe('3 h ago');
    expect(formatDuration(4800)).toBe('1 h 20 min');
    expect(formatDuration(null)).toBe('—');
  });
});
