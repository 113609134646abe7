// Alert list keys: an alert id cleared, raised again and cleared again must still key two distinct rows.

import { describe, expect, test } from 'vitest';
import type { AlertInfo } from '../../../src/shared/domain';
import { keyedAlerts } from '../../../src/renderer/src/lib/alert-keys';

const cleared = (raisedAt: number, clearedAt: number): AlertInfo => ({
  tags: [],
  wallTime: null,
  statistic: null,
  clearedWallTime: null,
  id: 'demo/kl_spike/approx_kl',
  rule: 'kl_spike',
  severity: 'warning',
  run: 'demo',
  tag: 'approx_kl',
  step: raisedAt,
  value: 1,
  message: 'KL spike',
  advice: null,
  raisedAt,
  acknowledged: false,
  snoozedUntil: null,
  active: false,
  clearedAt,
  clearedStep: clearedAt,
});

describe('cleared alert keys', () => {
  test('the same id raised twice gets two different keys (the demo ends this way)', () => {
    const keys = keyedAlerts([cleared(1000, 2000), cleared(3000, 4000)]).map((k) => k.key);
    expect(new Set(keys).size).toBe(2);
    // The ids alone, as the panel keyed them, collide:
    expect(new Set([cleared(1000, 2000), cleared(3000, 4000)].map((a) => a.id)).size).toBe(1);
  });

  test('even identical copies get unique keys, and the order and alerts are kept', () => {
    const list = [cleared(1000, 2000), cleared(1000, 2000), cleared(1000, 2500)];
    const keyed = keyedAlerts(list);
    expect(new Set(keyed.map((k) => k.key)).size).toBe(3);
    expect(keyed.map((k) => k.alert)).toEqual(list);
  });

  test('keys are stable for the same list', () => {
    const list = [cleared(1000, 2000), cleared(3000, 4000)];
    expect(keyedAlerts(list).map((k) => k.key)).toEqual(keyedAlerts([...list]).map((k) => k.key));
  });
});
