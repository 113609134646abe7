// A run's status, one rule for the sidebar dot and /metrics: worst alert first, then crashed, exited, stalled, dead sources, finished, loading, live, idle.

import type { RunInfo } from './domain';

/** What a run is doing, alerts aside (what `rlwatch_run_status` exposes; alerts are series of their own). */
export const RUN_ACTIVITIES = [
  'crashed',
  'exited',
  'stalled',
  'dead',
  'finished',
  'loading',
  'live',
  'idle',
] as const;
export type RunActivity = (typeof RUN_ACTIVITIES)[number];

/** The sidebar dot: the worst active alert over the run's activity. */
export type RunStatus = 'critical' | 'warning' | RunActivity;

/** A run whose newest point or file write is this recent counts as live. */
export const LIVE_WINDOW_MS = 60_000;

/** What runActivity reads of a run: a one-shot read (`inspect --table`) gives what its files say. */
export type ActivityFacts = Pick<
  RunInfo,
  'progress' | 'loaded' | 'lastEventAt' | 'fileWrittenAt' | 'stalled'
> &
  Partial<Pick<RunInfo, 'ended' | 'stop' | 'worstAlert'>> & {
    sources: readonly Pick<RunInfo['sources'][number], 'dead'>[];
  };

export function runActivity(r: ActivityFacts, now: number): RunActivity {
  if (r.ended === 'crashed' || r.stop?.state === 'crashed') return 'crashed';
  // A stop judged on evidence (health/stop-evidence.ts): before its end, or silent with no evidence either way.
  if (r.stop?.state === 'exited') return 'exited';
  if (r.stalled || r.stop?.state === 'stalled') return 'stalled';
  if (r.sources.length > 0 && r.sources.every((s) => s.dead)) return 'dead';
  if (
    r.ended === 'finished' ||
    r.stop?.state === 'ended' ||
    (r.progress?.fraction != null && r.progress.fraction >= 1)
  )
    return 'finished';
  if (!r.loaded) return 'loading';
  const last = Math.max(r.lastEventAt ?? 0, r.fileWrittenAt ?? 0);
  return last > 0 && now - last < LIVE_WINDOW_MS ? 'live' : 'idle';
}

export function runStatus(r: RunInfo, now: number): RunStatus {
  return r.worstAlert ?? runActivity(r, now);
}

export const STATUS_LABELS: Record<RunStatus, string> = {
  critical: 'critical alert',
  warning: 'warning',
  crashed: 'crashed',
  exited: 'exited',
  stalled: 'stalled',
  dead: 'sources gone',
  finished: 'finished',
  live: 'live',
  idle: 'idle',
  loading: 'loading',
};
