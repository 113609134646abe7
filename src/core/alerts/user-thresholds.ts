// The user's saved settings as health-engine threshold overrides (the app and `watch` apply the same ones).

import type { Settings } from '../../shared/domain';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../health';

/** The user's threshold overrides as the health engine names them; unknown names are ignored. */
export function userThresholds(s: Settings): Partial<Thresholds> {
  const out: Partial<Thresholds> = {};
  for (const [k, v] of Object.entries(s.thresholds)) {
    if (k in DEFAULT_THRESHOLDS && Number.isFinite(v)) out[k as keyof Thresholds] = v;
  }
  // "Stalled after N minutes" is the floor of the stalled-run rule (the gap factor still applies).
  if (out.stall_floor_s === undefined) out.stall_floor_s = s.stalledAfterMinutes * 60;
  return out;
}
