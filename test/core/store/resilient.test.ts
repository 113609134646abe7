// ResilientStore: a query that throws after opening (IOERR, FULL, CORRUPT) degrades to memory once, keeping what it can.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openStore, ResilientStore, type StoreDegradation } from '../../../src/core/store';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-resilient-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqliteError = (code: string): Error => Object.assign(new Error(`${code} from the test`), { code });

describe('ResilientStore', () => {
  test('SQLITE_FULL on an insert: memory takes over with settings and recent runs, one degradation', () => {
    const inner = openStore({ path: join(dir, 'full.db') });
    inner.setSetting('settings', { theme: 'dark' });
    inner.touchRun('/runs/a', 100);
    inner.saveRunView('/runs/a', { pinnedCharts: ['kl'] }, 100);
    const store = new ResilientStore(inner);
    const seen: StoreDegradation[] = [];
    store.onDegraded((d) => seen.push(d));
    inner.appendSystemSamples = () => {
      throw sqliteError('SQLITE_FULL');
    };
    expect(() => store.appendSystemSamples([{ t: 1, snapshot: { cpuPct: 1 } }])).not.toThrow();
    expect(seen).toEqual([
      { code: 'SQLITE_FULL', operation: 'appendSystemSamples', reason: expect.stringMatching(/SQLITE_FULL/) },
    ]);
    expect(store.status).toMatchObject({
      persistent: false,
      kind: 'failed-after-open',
      path: join(dir, 'full.db'),
    });
    expect(store.getSetting('settings')).toEqual({ theme: 'dark' });
    expect(store.recentRuns()).toEqual([
      { path: '/runs/a', lastOpened: 100, view: { pinnedCharts: ['kl'] } },
    ]);
    // The retried call went to memory; later calls too, with no second degradation.
    expect(store.systemSampleCount()).toBe(1);
    expect(
      store.recordAlert({
        run: 'r',
        rule: 'x',
        tag: null,
        severity: 'warning',
        state: 'raised',
        step: 1,
        value: 1,
        message: 'm',
        at: 1,
      }),
    ).toBeGreaterThan(0);
    expect(seen).toHaveLength(1);
    store.close();
  });

  test('a store that is fine stays the SQLite one', () => {
    const store = new ResilientStore(openStore({ path: join(dir, 'fine.db') }));
    store.setSetting('k', 1);
    expect(store.getSetting('k')).toBe(1);
    expect(store.status.persistent).toBe(true);
    expect(store.degradation).toBe(null);
    store.close();
  });
});
