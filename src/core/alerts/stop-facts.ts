// What a run list says about each run's stop (last write, planned end, siblings), and whether a run opened is history.

import type { RunInfo, SeriesDelta } from '../../shared/domain';
import { groupBySeed } from '../../shared/compare/seed-groups';
import {
  HISTORY_AFTER_MS,
  plannedTotal,
  type PlannedTotal,
  type RunFileFacts,
} from '../health/stop-evidence';

/** ms: a run's newest file write or logged time; null before any. */
export function lastWriteOf(r: RunInfo): number | null {
  const xs = [r.lastEventAt, r.fileWrittenAt].filter((x): x is number => x !== null);
  return xs.length > 0 ? Math.max(...xs) : null;
}

/** Configs are read again (seed groups, planned totals) once a minute while the run names stay the same… */
const CONFIG_REFRESH_MS = 60_000;
/** …and at most this often while they change (a folder of thousands of runs lists them as it discovers them). */
const REGROUP_MIN_MS = 5_000;

/**
 * Each run's stop evidence: its last write, the progress its files state, the planned end its config states, and
 * its siblings (the other runs of its seed group, by config or name; a job's nodes have none). Grouping flattens every
 * config (~0.1 ms a run): done when the run names change (at most every 5 s), else once a minute, not on every
 * run list.
 */
export class StopFacts {
  private key = '';
  private at = -Infinity;
  private planned = new Map<string, PlannedTotal | null>();
  private siblings = new Map<string, string[]>();

  constructor(private readonly configOf: (run: string) => Record<string, unknown> | null) {}

  of(runs: readonly RunInfo[], now: number): Map<string, RunFileFacts> {
    const key = runs.map((r) => `${r.run}\u0000${r.job ?? ''}`).join('\u0001');
    const age = now - this.at;
    if ((key !== this.key && age >= REGROUP_MIN_MS) || age >= CONFIG_REFRESH_MS) {
      this.key = key;
      this.at = now;
      this.group(runs);
    }
    return new Map(
      runs.map((r) => [
        r.run,
        {
          lastWriteMs: lastWriteOf(r),
          progress: r.progress?.fraction ?? null,
          planned: this.planned.get(r.run) ?? null,
          siblings: this.siblings.get(r.run) ?? [],
        },
      ]),
    );
  }

  clear(): void {
    this.key = '';
    this.at = -Infinity;
  }

  private group(runs: readonly RunInfo[]): void {
    const configs = new Map(runs.map((r) => [r.run, this.configOf(r.run)]));
    const sibs = new Map<string, Set<string>>(runs.map((r) => [r.run, new Set<string>()]));
    const link = (members: readonly string[]): void => {
      for (const a of members) for (const b of members) if (a !== b) sibs.get(a)?.add(b);
    };
    // A job's nodes are no siblings: one node stopping while the others write is what the job rules judge
    // (job-node-silent, job-node-exited when its agent saw its process end), not evidence that it exited (#38).
    const alone = runs.filter((r) => r.job === undefined);
    for (const g of groupBySeed(alone.map((r) => ({ run: r.run, config: configs.get(r.run) ?? null }))))
      link(g.runs);
    this.planned = new Map(runs.map((r) => [r.run, plannedTotal(configs.get(r.run) ?? null)]));
    this.siblings = new Map([...sibs].map(([run, set]) => [run, [...set].sort()]));
  }
}

/**
 * Whether a run on its first read is history: its newest write lies more than HISTORY_AFTER_MS before now. Its
 * files' write time says (the workspace's `writtenAt`, else the run list's); only where no file time is known do
 * its points' newest logged times (a replay rewrites old logged times into fresh files). A run with no time at
 * all is not history. `copied`: its stop tracker found the read a copy of a run that ended (fresh files holding a
 * run's worth of old logged times, `RunStopTracker.copiedHistory`): history too.
 */
export function isHistory(
  info: RunInfo | null,
  writtenAt: number | null,
  held: readonly SeriesDelta[],
  now: number,
  copied: boolean,
): boolean {
  if (copied) return true;
  let last = writtenAt ?? info?.fileWrittenAt ?? null;
  if (last === null)
    for (const d of held)
      for (let i = 0; i < d.wallTimes.length; i++) {
        const w = d.wallTimes[i]! * 1000;
        if (Number.isFinite(w) && (last === null || w > last)) last = w;
      }
  return last !== null && now - last > HISTORY_AFTER_MS;
}
