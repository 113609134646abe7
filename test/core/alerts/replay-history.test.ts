// Alert history is per incident: serving the same finished run again reproduces its alerts, never adds copies.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { openStore, type Store } from '../../../src/core/store';
import type { RunInfo } from '../../../src/shared/domain';
import { tempDirs } from '../../helpers/temp-dirs';
import { testAlertService } from '../../helpers/alert-service';

const tmp = tempDirs();

/** One "serve" of a finished run: a KL spike that clears, a NaN that clears, then the run's end. */
function serveOnce(store: Store): AlertService {
  const clock = { now: 1_700_000_000_000 };
  const service = testAlertService({
    store: () => store,
    runs: () => ['ppo'],
    clock: () => clock.now,
  });
  const n = 60;
  const kl = Array.from({ length: n }, (_, i) => (i >= 20 && i < 23 ? 0.5 : 0.005));
  const loss = Array.from({ length: n }, (_, i) => (i === 40 ? Number.NaN : 1));
  for (const [tag, values] of [
    ['train/approx_kl', kl],
    ['train/loss', loss],
  ] as const) {
    clock.now += 1000;
    service.feed({
      run: 'ppo',
      tag,
      from: 0,
      steps: Float64Array.from({ length: n }, (_, i) => i * 512),
      wallTimes: Float64Array.from({ length: n }, (_, i) => 1e9 + i),
      values: Float64Array.from(values),
    });
  }
  service.onRuns([
    { run: 'ppo', progress: { fraction: 1, etaSeconds: 0 }, ended: null } as unknown as RunInfo,
  ]);
  return service;
}

describe('alert history across serves of one finished run', () => {
  for (const kind of ['sqlite', 'memory'] as const) {
    it(`${kind}: three serves list each incident once, with the same ids, and store each transition once`, () => {
      const store = openStore({ path: kind === 'sqlite' ? join(tmp('rlwatch-history-'), 'a.db') : null });
      const first = serveOnce(store).list();
      expect(first.map((a) => a.rule).sort()).toEqual(['kl-above-target', 'non-finite']);
      const rows = store.alertHistory({ run: '/runs/ppo' }).length;
      let again = first;
      for (let i = 0; i < 2; i++) again = serveOnce(store).list();
      // "recently cleared (3)" for one spike was the bug: each id is listed once, the same ids every time.
      expect(again.map((a) => a.id).sort()).toEqual(first.map((a) => a.id).sort());
      expect(new Set(again.map((a) => a.id)).size).toBe(again.length);
      expect(store.alertHistory({ run: '/runs/ppo' })).toHaveLength(rows);
    });
  }
});
