// Per-folder view storage: stored JSON parsed totally (bad entries dropped), composed charts added, edited, checked.

import { describe, expect, test } from 'vitest';
import {
  composeProblem,
  folderKey,
  MAX_COMPOSED,
  MAX_COMPOSED_TAGS,
  parseFolderView,
  upsertComposed,
} from '../../../src/renderer/src/lib/folder-view';

const REWARDS = { name: 'rewards', tags: ['rollout/ep_rew_mean', 'eval/mean_reward'] };

describe('the stored folder view', () => {
  test('a stored view round-trips', () => {
    const v = { composed: [REWARDS], sweepOverlay: false };
    expect(parseFolderView(JSON.stringify(v))).toEqual(v);
  });

  test('nothing stored, bad JSON or another shape: the defaults (sweep overlay on, no charts)', () => {
    for (const raw of [null, '', '{', 'null', '[]', '"x"', '42', '{"composed": 3, "sweepOverlay": "no"}'])
      expect(parseFolderView(raw), String(raw)).toEqual({ composed: [], sweepOverlay: true });
  });

  test('bad entries are dropped, good ones kept: names unique, tags strings, deduplicated, bounded', () => {
    const raw = JSON.stringify({
      composed: [
        REWARDS,
        { name: 'rewards', tags: ['x'] },
        { name: '', tags: ['x'] },
        { name: 'no tags', tags: [] },
        { name: 'not a list', tags: 'x' },
        null,
        'chart',
        { name: 'mixed', tags: ['a', 3, null, 'a', '', 'b', { t: 1 }] },
        { name: 'many', tags: Array.from({ length: 40 }, (_, i) => `t${i}`) },
      ],
      sweepOverlay: true,
    });
    const v = parseFolderView(raw);
    expect(v.composed.map((c) => c.name)).toEqual(['rewards', 'mixed', 'many']);
    expect(v.composed[0]).toEqual(REWARDS);
    expect(v.composed[1]!.tags).toEqual(['a', 'b']);
    expect(v.composed[2]!.tags).toHaveLength(MAX_COMPOSED_TAGS);
    const lots = { composed: Array.from({ length: 80 }, (_, i) => ({ name: `c${i}`, tags: ['a'] })) };
    expect(parseFolderView(JSON.stringify(lots)).composed).toHaveLength(MAX_COMPOSED);
  });

  test('each folder has its own key', () => {
    expect(folderKey('/data/runs')).not.toBe(folderKey('/data/runs2'));
  });
});

describe('composing', () => {
  test('a new chart is appended; an edit replaces it in place, renamed or not', () => {
    const other = { name: 'losses', tags: ['train/loss'] };
    const list = upsertComposed([REWARDS], other);
    expect(list.map((c) => c.name)).toEqual(['rewards', 'losses']);
    const renamed = upsertComposed(list, { name: 'reward curves', tags: ['rollout/ep_rew_mean'] }, 'rewards');
    expect(renamed.map((c) => c.name)).toEqual(['reward curves', 'losses']);
    expect(upsertComposed(list, { ...other, tags: ['a', 'b'] }, 'losses')[1]!.tags).toEqual(['a', 'b']);
  });

  test('what stops a save is said: no name, no tag, a taken name, too many', () => {
    expect(composeProblem([], ' ', ['a'], null)).toMatch(/Name/);
    expect(composeProblem([], 'x', [], null)).toMatch(/at least one tag/);
    expect(composeProblem([REWARDS], 'rewards', ['a'], null)).toMatch(/exists/);
    expect(composeProblem([REWARDS], 'rewards', ['a'], 'rewards')).toBeNull();
    const tags = Array.from({ length: MAX_COMPOSED_TAGS + 1 }, (_, i) => `t${i}`);
    expect(composeProblem([], 'x', tags, null)).toMatch(/at most/);
    expect(composeProblem([], 'x', ['a'], null)).toBeNull();
  });
});
