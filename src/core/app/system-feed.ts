// Runs the system sampler while a folder is open: pushes each snapshot, batches them into the store every ~10 s.

import type { SystemSnapshot } from '../../shared/system-types';
import type { RunDir, SystemSampler } from '../system';
import type { JsonValue, Store, SystemSample } from '../store';
import type { AppBus } from './bus';

/** The part of SystemSampler the app uses; tests pass a SystemSampler over fake sources. */
export type SamplerLike = Pick<
  SystemSampler,
  'start' | 'stop' | 'setHidden' | 'setRuns' | 'subscribe' | 'getHistory'
>;

export interface SystemFeedOptions {
  createSampler: () => SamplerLike | null;
  store: () => Store;
  bus: AppBus;
  /** How often buffered snapshots are written (default 10 s). */
  flushMs?: number;
}

/** Stored samples read at most when looking for the one nearest a time (a sample per second: ~30 min either side). */
const NEAREST_SCAN_LIMIT = 4000;

export class SystemFeed {
  private sampler: SamplerLike | null = null;
  private created = false;
  private unsubscribe: (() => void) | null = null;
  private buffer: SystemSample[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private hidden = false;
  private last: SystemSnapshot | null = null;

  constructor(private readonly opts: SystemFeedOptions) {}

  get running(): boolean {
    return this.unsubscribe !== null;
  }

  /** Starts sampling for the open folder's runs (each run's training process is looked for). */
  start(runs: readonly RunDir[]): void {
    if (!this.created) {
      this.created = true;
      this.sampler = this.opts.createSampler();
    }
    const s = this.sampler;
    if (!s) return;
    s.setRuns(runs);
    s.setHidden(this.hidden);
    if (this.unsubscribe) return;
    this.unsubscribe = s.subscribe((snap) => this.onSnapshot(snap));
    s.start();
    this.flushTimer = setInterval(() => this.flush(), this.opts.flushMs ?? 10_000);
    this.flushTimer.unref();
  }

  stop(): void {
    this.sampler?.stop();
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    this.flush();
  }

  /** The open folder's runs changed (found, removed). */
  setRuns(runs: readonly RunDir[]): void {
    this.sampler?.setRuns(runs);
  }

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.sampler?.setHidden(hidden);
  }

  /** Snapshots kept in memory (oldest first), from `sinceMs` on. */
  history(sinceMs?: number): SystemSnapshot[] {
    const all = this.sampler?.getHistory() ?? [];
    return sinceMs === undefined ? all : all.filter((s) => s.t >= sinceMs);
  }

  /**
   * The sample nearest `ms` within `toleranceMs`: from memory (the sampler's history and samples not yet written)
   * and the store's history (earlier in this session or an earlier one); null when none is that close.
   */
  nearest(ms: number, toleranceMs: number): SystemSnapshot | null {
    let best: SystemSnapshot | null = null;
    const consider = (s: SystemSnapshot): void => {
      if (Math.abs(s.t - ms) <= toleranceMs && (best === null || Math.abs(s.t - ms) < Math.abs(best.t - ms)))
        best = s;
    };
    for (const s of this.history()) consider(s);
    for (const s of this.buffer) consider(s.snapshot as unknown as SystemSnapshot);
    let stored: SystemSample[] = [];
    try {
      stored = this.opts.store().systemSamples(ms - toleranceMs, ms + toleranceMs, NEAREST_SCAN_LIMIT);
    } catch {
      // A store that cannot answer leaves the samples in memory.
    }
    for (const s of stored) consider(s.snapshot as unknown as SystemSnapshot);
    return best;
  }

  /** The newest snapshot taken, null before the first. */
  latest(): SystemSnapshot | null {
    return this.last;
  }

  /** Writes buffered snapshots in one transaction. */
  flush(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.opts.store().appendSystemSamples(batch);
  }

  private onSnapshot(snap: SystemSnapshot): void {
    this.last = snap;
    this.opts.bus.emit('system.snapshot', snap);
    this.buffer.push({ t: snap.t, snapshot: snap as unknown as JsonValue });
    // A stalled flush timer must not let the buffer grow without bound.
    if (this.buffer.length >= 600) this.flush();
  }
}
