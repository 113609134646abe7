// Runs the system sampler while a folder is open: pushes each snapshot, batches them into the store every ~10 s.

import type { SystemSnapshot } from '../../shared/system-types';
import type { SystemSampler } from '../system';
import type { JsonValue, Store, SystemSample } from '../store';
import type { AppBus } from './bus';

/** The part of SystemSampler the app uses; tests pass a SystemSampler over fake sources. */
export type SamplerLike = Pick<
  SystemSampler,
  'start' | 'stop' | 'setHidden' | 'setRunFolder' | 'subscribe' | 'getHistory'
>;

export interface SystemFeedOptions {
  createSampler: () => SamplerLike | null;
  store: () => Store;
  bus: AppBus;
  /** How often buffered snapshots are written (default 10 s). */
  flushMs?: number;
}

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

  start(runFolder: string | null): void {
    if (!this.created) {
      this.created = true;
      this.sampler = this.opts.createSampler();
    }
    const s = this.sampler;
    if (!s) return;
    s.setRunFolder(runFolder);
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

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.sampler?.setHidden(hidden);
  }

  /** Snapshots kept in memory (oldest first), from `sinceMs` on. */
  history(sinceMs?: number): SystemSnapshot[] {
    const all = this.sampler?.getHistory() ?? [];
    return sinceMs === undefined ? all : all.filter((s) => s.t >= sinceMs);
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
