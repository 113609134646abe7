// The RunInfo projection of a run's state: what runs.changed and listRuns() tell the UI and the CLI.

import type { RunInfo } from '../../shared/domain';
import type { LiveView } from '../series/live-view';
import { speaksForSessions } from '../series/sessions';
import { errorsOf, recordsOf, sourceProgress, type RunState } from './run-state';

/** What the memory cap thinned of a run: points kept and read in its thinned series; null when none was. */
export function thinnedOf(state: RunState): { kept: number; read: number } | null {
  let kept = 0;
  let read = 0;
  for (const e of state.entries)
    for (const [, s] of e.set.entries())
      if (s.dropped > 0) {
        kept += s.length;
        read += s.length + s.dropped;
      }
  return read > 0 ? { kept, read } : null;
}

export function runInfo(state: RunState): RunInfo {
  const thinned = thinnedOf(state);
  let points = 0;
  let restarts = 0;
  // The run's sessions are those of the tag that restarted most (one preemption shows in every tag), of the tags
  // that may speak for them.
  let most: LiveView | null = null;
  for (const [tag, v] of state.views) {
    points += v.length;
    if (!speaksForSessions(tag)) continue;
    restarts = Math.max(restarts, v.restarts.length);
    if (
      !most ||
      v.sessionCount > most.sessionCount ||
      (v.sessionCount === most.sessionCount && v.length > most.length)
    )
      most = v;
  }
  let lastWall = -Infinity;
  let progress: RunInfo['progress'] = null;
  for (const e of state.entries) {
    // The newest logged time; a point without one (a source that logs none) counts at the write time of
    // its bytes, so freshness moves for every format (the point itself keeps no time).
    for (const [, series] of e.set.entries()) {
      if (series.length === 0) continue;
      let w = series.wallTime(series.length - 1);
      if (w !== w && e.mtimeMs !== null) w = e.mtimeMs / 1000;
      if (w > lastWall) lastWall = w;
    }
    const p = sourceProgress(e);
    if (p) progress = { fraction: p.fraction, etaSeconds: p.etaSeconds };
  }
  return {
    run: state.run,
    sources: state.entries.map((e) => ({
      file: e.name,
      format: e.format,
      records: recordsOf(e),
      errors: [
        ...errorsOf(e).map((x) => ({ offset: x.offset, kind: x.kind, message: x.message })),
        ...(state.cutTail && state.cutTail.path === e.path
          ? [
              {
                offset: state.cutTail.offset,
                kind: 'truncated' as const,
                message:
                  'the log ends mid-record and stopped growing (the run died while writing); the records before it are kept',
              },
            ]
          : []),
      ],
      dead: e.state === 'dead',
      ...(e.state === 'dead' && e.rewritten ? { rewritten: true } : {}),
    })),
    tags: [...state.views.keys()].sort(),
    points,
    lastEventAt: Number.isFinite(lastWall) ? Math.round(lastWall * 1000) : null,
    fileWrittenAt: state.fileWrittenAt,
    progress,
    loaded: state.loaded,
    restarts,
    sessions: most?.sessions() ?? [],
    worstAlert: null,
    stalled: false,
    ended: state.ended,
    ...(thinned ? { thinned } : {}),
  };
}
