// How a session is written for a person (inspect, figures, chart markers): its number, steps, points and start.

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
