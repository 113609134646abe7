// An earlier session's incident on a classic RL run is listed with classic advice, like the live alert was.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/core/store';
import { testAlertService } from '../../helpers/alert-service';

describe('history advice', () => {
  it('an SB3 entropy collapse from an earlier session keeps the classic advice', () => {
    const store = openStore({ path: null });
    const make = () =>
      testAlertService({
        store: () => store,
        runs: () => ['A2C_1'],
      });
    const first = make();
    const n = 20;
    first.feed({
      run: 'A2C_1',
      tag: 'train/entropy_loss',
      from: 0,
      steps: Float64Array.from({ length: n }, (_, i) => i),
      wallTimes: Float64Array.from({ length: n }, (_, i) => 1e9 + i),
      // A two-action policy near ln 2, then collapsed.
      values: Float64Array.from({ length: n }, (_, i) => (i < 10 ? -0.69 : -0.02)),
    });
    const live = first.list('A2C_1').find((a) => a.rule === 'entropy-collapse');
    expect(live?.advice).toMatch(/ent_coef/);
    first.closeSession();
    const earlier = make()
      .list('A2C_1')
      .find((a) => a.rule === 'entropy-collapse');
    expect(earlier?.active).toBe(false);
    expect(earlier?.advice).toBe(live?.advice);
  });
});
