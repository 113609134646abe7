// The user's saved settings as health-engine threshold overrides (the app and `watch` apply the same ones).

import type { Settings } from '../../shared/domain';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../health';

/** The user's threshold overrides as the health engine names them; unknown names are ignored. */
export function userThresholds(s: Settings): Partial<Thresholds> {
  const out: Partial<Thresholds> = {};
  for (const [k, v] of Object.entries(s.thresholds)) {
    if (k in DEFAULT_THRESHOLDS && Number.isFinite(v)) out[k as keyof Thresholds] = v;
  }
  // "Stalled after N minutes", when the user set it, is the stalled-run alert's limit; unset, each run's rhythm is.
  if (out.stall_alert_floor_s === undefined && s.stalledAfterMinutes !== null) {
    out.stall_alert_floor_s = s.stalledAfterMinutes * 60;
    out.stall_alert_gap_factor = 0;
  }
  return out;
}
