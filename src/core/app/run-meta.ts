// Per-run first/last seen and freshness in the store, written at most once per interval (runs.changed can be frequent).

import { resolve } from 'node:path';
import type { RunInfo } from '../../shared/domain';
import type { Store } from '../store';

const RUN_META_MS = 5000;

export class RunMetaRecorder {
  private writtenAt = -Infinity;

  constructor(
    private readonly store: () => Store,
    private readonly clock: () => number,
  ) {}

  /** A folder was opened: the next list is written whatever the interval says. */
  reset(): void {
    this.writtenAt = -Infinity;
  }

  record(root: string | null, runs: readonly RunInfo[]): void {
    const now = this.clock();
    if (root === null || now - this.writtenAt < RUN_META_MS) return;
    this.writtenAt = now;
    this.store().updateRunMeta(
      runs.map((r) => ({
        path: resolve(root, r.run),
        seenAt: now,
        lastEventAt: r.lastEventAt,
        fileWrittenAt: r.fileWrittenAt,
      })),
    );
  }
}
