// The app's alerts name what changed with an incident: live deltas one tag at a time, and from an earlier session.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/core/store';
import { testAlertService } from '../../helpers/alert-service';

const N = 80;
const ONSET = 30;
const col = (f: (i: number) => number) => Float64Array.from({ length: 1 }, () => f(0));

describe('co-movers in the alert service', () => {
  it('a learning rate delta that comes after the KL delta of its step updates the alert; the next session keeps it', () => {
    const store = openStore({ path: null });
    const make = () =>
      testAlertService({
        store: () => store,
        runs: () => ['PPO_1'],
      });
    const live = make();
    const updated: string[] = [];
    live.onBatch((b) => {
      for (const c of b.changes) if (c.kind === 'updated' && c.alert.changed) updated.push(c.alert.id);
    });
    const delta = (tag: string, i: number, v: number) =>
      live.feed({
        run: 'PPO_1',
        tag,
        from: i,
        steps: col(() => i),
        wallTimes: col(() => 1e9 + i),
        values: col(() => v),
      });
    for (let i = 0; i < N; i++) {
      // The KL blows up with the learning rate, then settles (the incident clears in this session).
      const blowUp = i >= ONSET && i < ONSET + 10;
      delta('train/approx_kl', i, blowUp ? 0.4 : 0.01 + 0.001 * Math.sin(i));
      delta('train/learning_rate', i, i >= ONSET ? 0.03 : 0.0003);
    }
    const kl = live.list('PPO_1').find((a) => a.rule === 'kl-above-target')!;
    expect(kl.active).toBe(false);
    expect(kl.changed?.[0]).toMatchObject({ tag: 'train/learning_rate', step: ONSET });
    expect(kl.message).toContain(`train/learning_rate ×100 at step ${ONSET}`);
    expect(updated).toContain(kl.id);
    live.closeSession();
    const earlier = make()
      .list('PPO_1')
      .find((a) => a.rule === 'kl-above-target');
    expect(earlier?.active).toBe(false);
    expect(earlier?.changed?.[0]?.tag).toBe('train/learning_rate');
  });
});
