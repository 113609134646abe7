// A run's points and sessions as the runs table counts them in every view (window, `inspect --table`, export): over the files that exist now.

import type { SessionInfo } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import type { ScalarSeries } from './scalar-series';
import { appendStepRuns, joinSessions, runSessions, speaksForSessions, type StepRun } from './sessions';
import { shownWriters, wallSpan } from './writers';

/** One file's series of a tag, as the facts need it: its name and format (the shown writers), span, points, stretches. */
export interface FactSource {
  name: string;
  format: SourceFormatName;
  /** Wall time (s) of its first and last point; NaN where it has none. */
  start: number;
  end: number;
  points: number;
  runs: readonly StepRun[];
}

export interface RunFacts {
  /** Every point of the run's shown series (per tag the best format's files, each writer), every session: the lines
   * `export --csv` writes to its metrics_long.csv. */
  points: number;
  /** Its sessions as the dashboard counts them (the tag that restarted most speaks for the run). */
  sessions: SessionInfo[];
}

/** The facts of a run from its tags' sources, each tag's in file order. */
export function runFacts(tags: Iterable<readonly [string, readonly FactSource[]]>): RunFacts {
  let points = 0;
  const perWriter: SessionInfo[][] = [];
  for (const [tag, list] of tags)
    for (const w of shownWriters(list.map((s) => ({ ...s, ref: s })))) {
      for (const s of w.sources) points += s.ref.points;
      if (speaksForSessions(tag)) perWriter.push(joinSessions(w.sources.map((s) => s.ref.runs)));
    }
  return { points, sessions: runSessions(perWriter) };
}

/** Each live series' stretches so far: a table asked again walks only the points that came since. */
const stretches = new WeakMap<ScalarSeries, { length: number; dropped: number; runs: StepRun[] }>();

/** A held series of one file as a fact source (its stretches kept per series, extended as it grows). */
export function factSource(name: string, format: SourceFormatName, s: ScalarSeries): FactSource {
  let kept = stretches.get(s);
  // A series thinned since (memory cap) has other indices: its stretches start over.
  if (!kept || kept.length > s.length || kept.dropped !== s.dropped)
    stretches.set(s, (kept = { length: 0, dropped: s.dropped, runs: [] }));
  if (kept.length < s.length) {
    appendStepRuns(s, kept.runs, kept.length);
    kept.length = s.length;
  }
  return { name, format, ...wallSpan(s), points: s.length, runs: kept.runs };
}
