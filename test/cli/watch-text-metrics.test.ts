// watch's compact lines choose a run's key metrics once per set of tags, not at every line (#36).
import { describe, expect, it, vi } from 'vitest';
import type * as RunsTable from '../../src/shared/compare/runs-table';

const table = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../src/shared/compare/runs-table', async (importOriginal) => {
  const actual = await importOriginal<typeof RunsTable>();
  return {
    ...actual,
    keyMetricTags: (tags: readonly string[]) => {
      table.calls++;
      return actual.keyMetricTags(tags);
    },
  };
});

const { CompactWatch } = await import('../../src/cli/watch-text');

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('CompactWatch key metrics', () => {
  it('a run whose tags stay the same is classified once over many lines; a new tag shows at its next line (#36)', () => {
    const w = new CompactWatch({ colour: false });
    const lines: string[] = [];
    for (let s = 0; s < 20; s++) {
      w.push({ t: T0, type: 'scalars', run: 'ppo', tag: 'train/reward', points: [[s, 1, s]] });
      w.push({ t: T0, type: 'scalars', run: 'ppo', tag: 'custom/x', points: [[s, 1, 7]] });
      if (s === 10)
        w.push({ t: T0, type: 'scalars', run: 'ppo', tag: 'losses/approx_kl', points: [[s, 1, 0.25]] });
      lines.push(w.flush(T0));
    }
    expect(lines[9]).toContain('step 9');
    expect(lines[9]).toContain('reward 9');
    expect(lines[9]).not.toContain('KL');
    expect(lines[19]).toContain('reward 19');
    expect(lines[19]).toContain('KL 0.25');
    // Before: every line classified the run's tags again (20 here).
    expect(table.calls).toBe(2);
  });
});
