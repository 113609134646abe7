// Load progress of an opened folder (phase, runs, bytes), reported as load.progress events at most every 100 ms.

import { performance } from 'node:perf_hooks';
import type { LoadProgress } from '../../shared/domain';
import type { LiveSource } from '../sources/live-source';

/** load.progress at most every this many ms (phase changes are reported at once). */
export const THROTTLE_MS = 100;

const idle = (): LoadProgress => ({
  phase: 'done',
  runsFound: 0,
  runsLoaded: 0,
  bytesTotal: 0,
  bytesRead: 0,
});

export class LoadProgressTracker {
  private progress = idle();
  /** Bytes of fully read sources. */
  private bytesDone = 0;
  /** The source being read for the first time: its bytes so far count too. */
  private reading: LiveSource | null = null;
  private lastReportAt = 0;

  constructor(private readonly emit: (progress: LoadProgress) => void) {}

  reset(): void {
    this.progress = idle();
    this.bytesDone = 0;
    this.reading = null;
  }

  sourceFound(size: number): void {
    this.progress.bytesTotal += size;
  }

  sourceRead(size: number): void {
    this.bytesDone += size;
  }

  /** The first read of a source starts (`source`) or ends (null). */
  readingNow(source: LiveSource | null): void {
    this.reading = source;
  }

  runsFound(n: number): void {
    this.progress.runsFound = n;
  }

  runLoaded(): void {
    this.progress.runsLoaded++;
  }

  setPhase(phase: LoadProgress['phase']): void {
    if (this.progress.phase === phase) return;
    this.progress.phase = phase;
    this.report(true);
  }

  report(force = false): void {
    const now = performance.now();
    if (!force && now - this.lastReportAt < THROTTLE_MS) return;
    this.lastReportAt = now;
    const current = this.reading?.bytesRead ?? 0;
    this.progress.bytesRead = Math.min(this.progress.bytesTotal, this.bytesDone + current);
    this.emit({ ...this.progress });
  }
}
