// `export --watch`: exports again whenever a run's files change, at most once per interval, until stopped.

import { stat } from 'node:fs/promises';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { findRuns } from '../inspect';
import { exportData, type DataExportOptions, type ExportReport } from './export-run';

/** Time as the watch loop sees it: tests pass a fake one (no waiting, time under their control). */
export interface WatchClock {
  now(): number;
  /** Resolves after `ms` or as soon as `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: WatchClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }).catch(() => {}),
};

export interface ExportWatchOptions {
  /** The least time between the starts of two rounds, in ms (`--every N` seconds). */
  everyMs: number;
  /** How often the files are looked at once that time has passed, in ms (default 1000, at most everyMs). */
  pollMs?: number;
  /** Stops the loop: between rounds at once, within a round before its next file. */
  signal: AbortSignal;
  /** Each round's report, numbered from 1. */
  onRound(report: ExportReport, round: number): void;
  clock?: WatchClock;
}

/**
 * What the export reads, as one string: every run source's path, size, modification time and inode, so an
 * appended, new, replaced or removed file changes it. Stat polling (no watcher): one stat per source per poll.
 */
export async function sourcesFingerprint(path: string): Promise<string> {
  try {
    const { runs } = await findRuns(path);
    const parts: string[] = [];
    for (const r of runs) {
      for (const s of r.sources) {
        const st = await stat(s.path).catch(() => null);
        parts.push(st ? `${s.path}\0${st.size}\0${st.mtimeMs}\0${st.ino}` : `${s.path}\0gone`);
      }
    }
    return parts.join('\n');
  } catch (err) {
    return `unreadable\0${(err as NodeJS.ErrnoException).code ?? String(err)}`;
  }
}

/**
 * Exports `path` now, then again after each change of its files, never two rounds within `everyMs` of each other.
 * The first round's usage errors are thrown (nothing was written); a later round that cannot read the folder is
 * reported as a failed round and the loop goes on. Resolves with the last round's report once stopped.
 */
export async function watchExport(
  path: string,
  opts: DataExportOptions,
  w: ExportWatchOptions,
): Promise<ExportReport | null> {
  const clock = w.clock ?? realClock;
  const pollMs = Math.max(1, Math.min(w.pollMs ?? 1000, w.everyMs));
  let last: ExportReport | null = null;
  for (let round = 1; !w.signal.aborted; round++) {
    const started = clock.now();
    // Taken before the round reads: a change while it runs makes the next round.
    const seen = await sourcesFingerprint(path);
    try {
      last = await exportData(path, { ...opts, signal: w.signal });
    } catch (err) {
      if (round === 1) throw err;
      const message = `cannot export ${path}: ${err instanceof Error ? err.message : String(err)}`;
      last = { root: path, out: opts.out, runs: [], written: [], failed: [{ path, message }], notices: [] };
    }
    w.onRound(last, round);
    await clock.sleep(Math.max(0, started + w.everyMs - clock.now()), w.signal);
    while (!w.signal.aborted && (await sourcesFingerprint(path)) === seen)
      await clock.sleep(pollMs, w.signal);
  }
  return last;
}
