// Sessions from step runs: a session is a maximal run of non-decreasing steps in write order (the live view's
// restart rule), found per file so a whole-run reader (inspect) need not hold a run's points at once.

import type { SessionInfo } from '../../shared/domain';
import { isSampleMeanTag } from '../../shared/samples';
import type { ScalarSeries } from './scalar-series';

/** A stretch of one file's series whose steps never decrease. */
export interface StepRun {
  startStep: number;
  endStep: number;
  startWall: number;
  endWall: number;
  points: number;
}

/** The non-decreasing stretches of a series, in order (none for an empty one). */
export function stepRuns(s: ScalarSeries): StepRun[] {
  const out: StepRun[] = [];
  appendStepRuns(s, out, 0);
  return out;
}

/** Extends `runs` (the stretches of `s`'s first `from` points) with its points from `from` on: a series that grew is
 * not walked again. */
export function appendStepRuns(s: ScalarSeries, runs: StepRun[], from: number): void {
  const steps = s.steps();
  const n = steps.length;
  let i = from;
  while (i < n) {
    // The stretch that goes on at `i`: the last one where the step does not go back, else a new one.
    const last = runs[runs.length - 1];
    const goesOn = last !== undefined && i > 0 && steps[i]! >= last.endStep;
    let j = i + 1;
    while (j < n && steps[j]! >= steps[j - 1]!) j++;
    if (goesOn) {
      last.endStep = steps[j - 1]!;
      last.endWall = s.wallTime(j - 1);
      last.points += j - i;
    } else
      runs.push({
        startStep: steps[i]!,
        endStep: steps[j - 1]!,
        startWall: s.wallTime(i),
        endWall: s.wallTime(j - 1),
        points: j - i,
      });
    i = j;
  }
}

/** The sessions of files read one after another (their step runs in file order): a file's first stretch continues
 * the session before it unless its first step is below that session's last. */
export function joinSessions(files: readonly (readonly StepRun[])[]): SessionInfo[] {
  const out: SessionInfo[] = [];
  const time = (t: number): number | null => (Number.isFinite(t) ? t : null);
  for (const runs of files)
    for (const r of runs) {
      const last = out[out.length - 1];
      if (last && r.startStep >= last.endStep) {
        last.endStep = r.endStep;
        last.endWall = time(r.endWall);
        last.points += r.points;
      } else
        out.push({
          index: out.length + 1,
          startStep: r.startStep,
          endStep: r.endStep,
          startWall: time(r.startWall),
          endWall: time(r.endWall),
          points: r.points,
        });
    }
  return out;
}

/** Of several tags' sessions, the run's: the tag with the most sessions, then the most points. */
export function runSessions(perTag: Iterable<readonly SessionInfo[]>): SessionInfo[] {
  let best: readonly SessionInfo[] = [];
  const points = (s: readonly SessionInfo[]): number => s.reduce((n, x) => n + x.points, 0);
  for (const s of perTag)
    if (s.length > best.length || (s.length === best.length && points(s) > points(best))) best = s;
  return [...best];
}

/**
 * Whether a tag's sessions may speak for the run's (its restarts, its sessions): every series the trainer logged,
 * not those rlwatch derives from sample rows (`samples/…/mean/…`). Rows of a completions log come in whatever order
 * its writers append them (ranks interleaving steps), and a step written after a later one is not a restart.
 */
export function speaksForSessions(tag: string): boolean {
  return !isSampleMeanTag(tag);
}
