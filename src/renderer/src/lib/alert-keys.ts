// Unique keys for alert lists: one alert id can be raised and cleared several times, so the id alone repeats.

import type { AlertInfo } from '../../../shared/domain';

export interface KeyedAlert {
  key: string;
  alert: AlertInfo;
}

/**
 * Each alert with a key unique in the list: id and raise time (one raise of one id), with `#n` added for
 * the rare copies that share even that (two raises in the same millisecond).
 */
export function keyedAlerts(alerts: readonly AlertInfo[]): KeyedAlert[] {
  const seen = new Map<string, number>();
  return alerts.map((alert) => {
    const base = `${alert.id}@${alert.raisedAt}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { key: n === 0 ? base : `${base}#${n}`, alert };
  });
}
