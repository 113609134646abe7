// Sessions for a person (inspect, figures, chart markers: number, steps, points, start) and which session wrote a
// point of a live view.

import type { SessionInfo } from './domain';
import { formatNumber } from './format';

/** `2026-11-26 10:02:03 UTC` for seconds since the epoch; `no time` where the source holds none. */
export function utcStamp(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'no time';
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
}

/** `session 2: steps 1024–31744, 31 points, started 2026-11-26 10:02:03 UTC`. */
export function sessionText(s: SessionInfo): string {
  const started = s.startWall === null ? 'no times' : `started ${utcStamp(s.startWall)}`;
  return `session ${s.index}: steps ${formatNumber(s.startStep, 12)}–${formatNumber(s.endStep, 12)}, ${s.points} point${s.points === 1 ? '' : 's'}, ${started}`;
}

/** Which sessions a drawing holds: `sessions 1–3 (1–2 faded)`, `session 2 of 2`, or '' for a run that never restarted. */
export function sessionsDrawn(count: number, drawn: 'all' | 'current'): string {
  if (count <= 1) return '';
  if (drawn === 'current') return `session ${count} of ${count} (earlier sessions hidden)`;
  return `sessions 1–${count} (${count === 2 ? '1' : `1–${count - 1}`} dashed, faded)`;
}

/**
 * The session that wrote a point of a live view, from the view's restart marks (in order; mark j starts session
 * j + 2 at its step). The view keeps, of each session, its points below every later restart's step, so a step
 * at or past mark j's step and below every later one is session j + 2's; below all of them, session 1's.
 */
export function viewSession(restarts: readonly { step: number }[], step: number): number {
  let bound = Number.POSITIVE_INFINITY;
  for (let j = restarts.length - 1; j >= 0; j--) {
    const r = restarts[j]!.step;
    if (step >= r && step < bound) return j + 2;
    bound = Math.min(bound, r);
  }
  return 1;
}
