// Follows a folder and emits contract lines (runs, scalars, progress, system, alerts, notices, errors, resets).

import type { SystemSnapshot } from '../../shared/system-types';
import type { Workspace } from '../workspace/workspace';
import {
  progressLine,
  ReadErrorTracker,
  RunTracker,
  scalarsLine,
  systemLine,
  type AlertFeedLine,
  type WatchLine,
} from './watch-lines';
import type { RunInfo, SeriesDelta } from '../../shared/domain';

export interface SnapshotSource {
  subscribe(listener: (s: SystemSnapshot) => void): () => void;
}

/** Turns what the session sees (points, run lists, system samples, time) into alert and run-status lines (watch-alerts.ts). */
export interface AlertFeed {
  feed(delta: SeriesDelta): readonly AlertFeedLine[];
  tick?(now: number): readonly AlertFeedLine[];
  onRuns?(runs: RunInfo[]): readonly AlertFeedLine[];
  /** A run's first read starts / is done (its points are judged in write order once it is). */
  reading?(run: string): readonly AlertFeedLine[];
  read?(run: string): readonly AlertFeedLine[];
  onSnapshot?(snapshot: SystemSnapshot): readonly AlertFeedLine[];
}

export interface WatchSessionOptions {
  workspace: Workspace;
  emit(line: WatchLine): void;
  system?: SnapshotSource;
  alerts?: AlertFeed;
  now?: () => number;
  /** How often time-based alert rules are evaluated (ms, default 1000). */
  tickMs?: number;
  /** Whether appended points become `scalars` lines (default true); a replay that wants only the alerts says false. */
  scalarLines?: boolean;
}

export class WatchSession {
  private readonly offs: (() => void)[] = [];
  private readonly runs = new RunTracker();
  private readonly readErrors = new ReadErrorTracker();
  private readonly lastProgress = new Map<string, string>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: WatchSessionOptions) {
    this.now = o.now ?? Date.now;
    const ws = o.workspace;
    this.offs.push(
      ws.on('runs.changed', (runs) => {
        const t = this.now();
        for (const line of this.runs.diff(runs, t)) o.emit(line);
        for (const line of this.readErrors.diff(runs, t)) o.emit(line);
        for (const a of o.alerts?.onRuns?.(runs) ?? []) o.emit(a);
        for (const r of runs) this.maybeProgress(r.run, t);
      }),
      ws.on('app.notice', (n) => o.emit({ t: this.now(), type: 'notice', ...n })),
      ws.on('run.reading', (run) => {
        for (const a of o.alerts?.reading?.(run) ?? []) o.emit(a);
      }),
      ws.on('run.read', (run) => {
        for (const a of o.alerts?.read?.(run) ?? []) o.emit(a);
      }),
      ws.on('series.reset', (r) => o.emit({ t: this.now(), type: 'reset', ...r })),
      // A read's deltas at once (each tag's points, then the alerts they raised): its run's progress is asked once
      // per read, not once per tag (#36).
      ws.on('series.read', (r) => {
        const t = this.now();
        for (const d of r.deltas) {
          if (o.scalarLines !== false) o.emit(scalarsLine(d, t));
          for (const a of o.alerts?.feed(d) ?? []) o.emit(a);
        }
        this.maybeProgress(r.run, t);
      }),
    );
    if (o.system) {
      this.offs.push(
        o.system.subscribe((s) => {
          const t = this.now();
          o.emit(systemLine(s, t));
          for (const a of o.alerts?.onSnapshot?.(s) ?? []) o.emit(a);
        }),
      );
    }
    this.startTicks();
  }

  private startTicks(): void {
    const tick = this.o.alerts?.tick?.bind(this.o.alerts);
    if (!tick) return;
    // Time-based rules (a stalled run) need a clock even when no data arrives. (Read errors arrive with
    // runs.changed: the workspace announces every read that adds points or errors.)
    this.timer = setInterval(() => {
      for (const a of tick(this.now())) this.o.emit(a);
    }, this.o.tickMs ?? 1000);
    this.timer.unref();
  }

  private maybeProgress(run: string, t: number): void {
    const p = this.o.workspace.progressOf(run);
    if (!p) return;
    const key = JSON.stringify([p.fraction, p.etaSeconds, p.fields]);
    if (this.lastProgress.get(run) === key) return;
    this.lastProgress.set(run, key);
    this.o.emit(progressLine(run, p, t));
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    for (const off of this.offs.splice(0)) off();
  }
}
