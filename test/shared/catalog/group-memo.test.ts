// groupOf keeps its answer per tag: the alert service asks for every delta (2,500 a second with 50 runs × 50 tags, #36).
import { describe, expect, it, vi } from 'vitest';
import type * as Samples from '../../../src/shared/samples';

const samples = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../../src/shared/samples', async (importOriginal) => {
  const actual = await importOriginal<typeof Samples>();
  return {
    ...actual,
    sampleMeanColumn: (tag: string) => {
      samples.calls++;
      return actual.sampleMeanColumn(tag);
    },
  };
});

const { groupOf } = await import('../../../src/shared/catalog');

describe('groupOf', () => {
  it('works a tag out once however often it is asked, with the same answers (#36)', () => {
    const tags = ['rollout/ep_rew_mean', 'System/Memory_Percent', 'actor/some_new_metric', 'custom/x'];
    const first = tags.map(groupOf);
    samples.calls = 0;
    for (let i = 0; i < 100; i++) expect(tags.map(groupOf)).toEqual(first);
    expect(first).toEqual(['Reward', 'System', 'Policy', 'Other']);
    // Before: every call looked the tag up again (400 here).
    expect(samples.calls).toBe(0);
  });
});
