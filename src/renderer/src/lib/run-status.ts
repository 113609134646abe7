// A run's status for the sidebar dot: worst alert first, then crashed, stalled, dead sources, finished, live, idle.

import type { RunInfo } from '../../../shared/domain';

export type RunStatus =
  | 'critical'
  | 'warning'
  | 'crashed'
  | 'stalled'
  | 'dead'
  | 'finished'
  | 'live'
  | 'idle'
  | 'loading';

/** A run whose newest point or file write is this recent counts as live. */
export const LIVE_WINDOW_MS = 60_000;

export function runStatus(r: RunInfo, now: number): RunStatus {
  if (r.worstAlert) return r.worstAlert;
  if (r.ended === 'crashed') return 'crashed';
  if (r.stalled) return 'stalled';
  if (r.sources.length > 0 && r.sources.every((s) => s.dead)) return 'dead';
  if (r.ended === 'finished' || (r.progress?.fraction != null && r.progress.fraction >= 1)) return 'finished';
  if (!r.loaded) return 'loading';
  const last = Math.max(r.lastEventAt ?? 0, r.fileWrittenAt ?? 0);
  return last > 0 && now - last < LIVE_WINDOW_MS ? 'live' : 'idle';
}

export const STATUS_LABELS: Record<RunStatus, string> = {
  critical: 'critical alert',
  warning: 'warning',
  crashed: 'crashed',
  stalled: 'stalled',
  dead: 'sources gone',
  finished: 'finished',
  live: 'live',
  idle: 'idle',
  loading: 'loading',
};
