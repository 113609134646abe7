// The one alert pipeline: points, run lists and system samples through the health engine into the registry, the
// store and the notification limiter; used by the app (AppCore) and by `rlwatch watch` alike.

import type {
  AlertChange,
  AlertInfo,
  RunInfo,
  RunStop,
  SeriesDelta,
  Settings,
  Severity,
} from '../../shared/domain';
import { worseSeverity } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { ApiError } from '../../shared/result';
import {
  explicitNames,
  HealthEngine,
  resolveThresholds,
  ruleAdvice,
  type AlertTransition,
  type ResolvedThresholds,
} from '../health';
import { runScope, type RunScope } from '../../shared/catalog';
import type { Store } from '../store';
import { userThresholds } from './user-thresholds';
import { AlertRegistry } from './alert-registry';
import { runPathIn, StoreAlertSink, type RunPath } from './alert-sink';
import { MACHINE_RUN, MachineRun } from './machine-run';
import { eachInWriteOrder, writeOrder, type PointVisitor } from './load-order';
import { isHistory, lastWriteOf, StopFacts } from './stop-facts';
import { findCrashLog, type CrashLog } from '../readers/crash-log';
import { CRASH_LOG_NEAR_MS } from '../health/stop-evidence';
import { NotificationLimiter, type PlannedNotification } from './notify-limiter';

export interface AlertServiceOptions {
  /** Where history rows, acks and snoozes are kept (a memory store for `watch`). */
  store: () => Store;
  /** The open folder: alerts are stored under the run's absolute path; null while none is open. */
  root: () => string | null;
  /** The open folder's runs (names), for ack/snooze/list of earlier sessions' incidents. */
  runs: () => readonly string[];
  /** A run's own config (thresholds such as target_kl), known before its points arrive. */
  configOf: (run: string) => Record<string, unknown> | null;
  /** ms: the newest write time of a run's files (the workspace's stat), to tell history on its first read. */
  writtenAt?: (run: string) => number | null;
  /** The user's settings: threshold overrides, stalled-after minutes, whether to notify. */
  settings: () => Settings;
  /** ms since epoch; injected for tests. */
  clock: () => number;
  /** Looks for a log beside a silent run that ends in a traceback (readers/crash-log.ts); injected for tests. */
  crashLogOf?: (runDir: string, nearMs: number, windowMs: number) => Promise<CrashLog | null>;
  /** At most one notification per run per this many ms (default 30 s). */
  notifyWindowMs?: number;
  /** A first read of more points than this is judged in slices of a few ms, the event loop free between them
   * (a server answers its page meanwhile) and resting after each as long as it ran (at most half a core); unset,
   * every first read is judged at once (`watch`, tests). */
  sliceFirstReadsOver?: number;
  /** ms of the engine's work per slice of such a read (default 8). */
  judgeSliceMs?: number;
  /** Sliced judging starts once this resolves (the app: after the page's first screen, app/first-screen-gate.ts);
   * points that come meanwhile wait, as during the slices. Unset: at once. */
  judgeFirstReadsAfter?: () => Promise<void>;
}

/** A run's status turning stalled (silent past its own rhythm), exited (its trainer process is gone and its files
 * cannot say whether it finished), or live again (data came back). */
export interface RunStatusChange {
  run: string;
  status: 'stalled' | 'exited' | 'crashed' | 'live';
}

/** What one call changed: the engine's transitions and the contract's alert changes they became (or an ack/snooze),
 * and runs whose stalled status changed. */
export interface AlertBatch {
  transitions: readonly AlertTransition[];
  changes: readonly AlertChange[];
  statuses?: readonly RunStatusChange[];
}

export type AlertBatchListener = (batch: AlertBatch) => void;
export type NotificationListener = (n: PlannedNotification) => void;

/** A run's alert overlay in RunInfo: its worst active alert, whether it is stalled, and its judged stop. */
export interface AlertOverlay {
  worstAlert: Severity | null;
  stalled: boolean;
  stop: RunStop | null;
}

export class AlertService {
  private readonly engine: HealthEngine;
  private readonly sink: StoreAlertSink;
  private readonly registry: AlertRegistry;
  private readonly limiter: NotificationLimiter;
  private readonly machine: MachineRun;
  private readonly runPath: RunPath;
  private readonly configured = new Set<string>();
  private readonly finished = new Set<string>();
  /** The engine's tagChanges when syncTags last looked. */
  private tagChangesSeen = 0;
  /** Points of runs on their first read, held until it is done. */
  private readonly held = new Map<string, SeriesDelta[]>();
  /** Runs whose first read is being judged in slices, each with its token (a new session drops them). */
  private readonly judging = new Map<string, object>();
  /** Inputs that came while a first read was judged in slices, taken in order once it is done. */
  private deferred: (() => void)[] = [];
  /** Runs that showed as stalled or exited at the last check. */
  private statusNow = new Map<string, RunStatusChange['status']>();
  /** Each judged run's stop as the last check said (stop-evidence.ts), with its reason. */
  private stopNow = new Map<string, RunStop>();
  /** The last run list (each run's files and group: the stop judgement's evidence). */
  /** The last run list, by name. */
  private lastRuns = new Map<string, RunInfo>();
  private readonly stopFacts: StopFacts;
  /** Silent runs whose logs were looked at for a traceback, with the last write they were looked at for. */
  private readonly crashLooked = new Map<string, number>();
  /** Each run's progress fraction as the last run list said (null: its files do not say). */
  private readonly progress = new Map<string, number | null>();
  /** Incidents acknowledged while open when the last session ended: re-acknowledged when they raise again. */
  private readonly pendingAcks = new Set<string>();
  private readonly batchListeners = new Set<AlertBatchListener>();
  private readonly notificationListeners = new Set<NotificationListener>();

  constructor(private readonly opts: AlertServiceOptions) {
    this.runPath = runPathIn(opts.root);
    this.sink = new StoreAlertSink(opts.store, this.runPath, opts.clock);
    this.registry = new AlertRegistry(opts.store, this.runPath, this.sink.written, (rule, run) =>
      ruleAdvice(rule, this.scopeOf(run)),
    );
    this.engine = new HealthEngine({ clock: opts.clock, sink: this.sink });
    this.limiter = new NotificationLimiter({ clock: opts.clock, windowMs: opts.notifyWindowMs });
    this.machine = new MachineRun(this.engine, () => this.ensureRun(MACHINE_RUN));
    this.stopFacts = new StopFacts(opts.configOf);
  }

  /** Once a run falls silent (stalled, exited) its logs are read once per last write, for a traceback: found, its
   * stop is a crash (stop-evidence.ts) and the next check raises it. */
  private lookForCrashLog(run: string, lastWriteMs: number | null): void {
    const dir = this.runPath(run);
    if (dir === null || lastWriteMs === null || this.crashLooked.get(run) === lastWriteMs) return;
    this.crashLooked.set(run, lastWriteMs);
    void (this.opts.crashLogOf ?? findCrashLog)(dir, lastWriteMs, CRASH_LOG_NEAR_MS).then(
      (crash) => {
        if (!this.configured.has(run) || this.crashLooked.get(run) !== lastWriteMs) return;
        this.engine.setCrashLog(run, crash);
        if (crash !== null) this.tick();
      },
      () => undefined,
    );
  }

  onBatch(listener: AlertBatchListener): () => void {
    this.batchListeners.add(listener);
    return () => void this.batchListeners.delete(listener);
  }

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener);
    return () => void this.notificationListeners.delete(listener);
  }

  // --- inputs ---

  /** Appended points of one series. During a run's first read (reading … read) they are held, then judged in the
   * order they were written: a finished run opened from disk raises what watching it live raised. */
  feed(d: SeriesDelta): void {
    if (this.judging.has(d.run)) return void this.deferred.push(() => this.feed(d));
    this.ensureRun(d.run);
    this.machine.noteDelta(d);
    const held = this.held.get(d.run);
    if (held) {
      held.push(d);
      return;
    }
    this.handle(this.engine.feedBatch(d.run, d.tag, d.steps, d.wallTimes, d.values));
    this.syncTags();
    // Data again: a run that showed stalled is live at once (not at the next tick).
    if (d.steps.length > 0) this.stopNow.delete(d.run);
    if (d.steps.length > 0 && this.statusNow.delete(d.run))
      this.emit({ transitions: [], changes: [], statuses: [{ run: d.run, status: 'live' }] });
  }

  /** An open incident that a symptom joined lists its tag, and one whose co-movers a late point changed names them:
   * the alert as shown is updated (no transition). Runs per delta, so it looks at the alerts only when the engine
   * says some open incident changed since the last look. */
  private syncTags(): void {
    if (this.engine.tagChanges === this.tagChangesSeen) return;
    this.tagChangesSeen = this.engine.tagChanges;
    const changes: AlertChange[] = [];
    for (const a of this.engine.active()) {
      const shown = this.registry.activeAlerts(a.run).find((x) => x.id === a.id);
      if (!shown || (shown.tags.length === a.tags.length && shown.message === a.message)) continue;
      const info = this.registry.update(a.id, { tags: a.tags, changed: a.changed, message: a.message });
      if (info) changes.push({ kind: 'updated', alert: info });
    }
    if (changes.length > 0) this.emit({ transitions: [], changes });
  }

  /** A run's first read starts: its points are held until `read`. */
  reading(run: string): void {
    if (this.judging.has(run)) return void this.deferred.push(() => this.reading(run));
    if (!this.held.has(run)) this.held.set(run, []);
  }

  /** A run's first read is done: its held points are judged in write order (load-order.ts). */
  read(run: string): void {
    if (this.judging.has(run)) return void this.deferred.push(() => this.read(run));
    const held = this.held.get(run);
    if (!held) return;
    this.held.delete(run);
    const out: AlertTransition[] = [];
    const over = this.opts.sliceFirstReadsOver;
    const total = held.reduce((n, d) => n + d.steps.length, 0);
    if (over === undefined || total <= over) {
      eachInWriteOrder(held, (tag, step, wallTime, value) =>
        this.engine.feedInto(out, run, tag, step, wallTime, value),
      );
      this.judged(run, held, out);
      return;
    }
    // In slices of judgeSliceMs of the engine's work, in write order. Inputs meanwhile wait in `deferred` (this run's
    // points after its first read, as at once; a tick is skipped). The order is built by the first slice, once
    // `judgeFirstReadsAfter` lets the judging start: not at the read's end, beside the page's first chart (#36).
    let next: ReturnType<typeof writeOrder> | null = null;
    const token = {};
    this.judging.set(run, token);
    const feed: PointVisitor = (tag, step, wallTime, value) =>
      this.engine.feedInto(out, run, tag, step, wallTime, value);
    const slice = (): void => {
      if (this.judging.get(run) !== token) return;
      const start = performance.now();
      const until = start + (this.opts.judgeSliceMs ?? 8);
      next ??= writeOrder(held);
      let more: boolean;
      do more = next(feed, 1024);
      while (more && performance.now() <= until);
      // Background work: after each slice the loop rests as long as the slice ran (a timer, not the next turn), so
      // it keeps at most half a core and, on a machine whose cores a trainer keeps busy, the page's first chart
      // and the trainer get the rest (#36, docs/BENCHMARKS.md "Contended budget").
      if (more) return void setTimeout(slice, Math.max(1, Math.round(performance.now() - start)));
      this.judging.delete(run);
      this.judged(run, held, out);
      if (this.judging.size > 0) return;
      const waiting = this.deferred;
      this.deferred = [];
      for (const f of waiting) f();
    };
    const after = this.opts.judgeFirstReadsAfter;
    if (after) void after().then(() => setImmediate(slice));
    else setImmediate(slice);
  }

  /** A run's first read judged: what it raised is recorded (as history when the run was last written long ago). */
  private judged(run: string, held: readonly SeriesDelta[], out: AlertTransition[]): void {
    this.engine.firstReadDone(run);
    const info = this.lastRuns.get(run) ?? null;
    const copied = this.engine.copiedHistory(run);
    if (isHistory(info, this.opts.writtenAt?.(run) ?? null, held, this.opts.clock(), copied)) {
      // Last written long before it was opened: what its files show is history, not news. Its incidents are
      // recorded (raised, then cleared at once), never notified, and leave no alert active.
      for (const t of out) {
        t.notify = false;
        if (t.kind !== 'cleared') t.history = true;
      }
      out.push(...this.engine.settle(run));
    }
    this.handle(out);
    this.syncTags();
  }

  /** The run list: runs at 100 % progress, or whose log says they ended (a W&B exit record, finished or
   * crashed), are done: never stalled, and a stalled one clears (a crash is shown as such, not as a stall). A run
   * not read yet is taken up once it is (no points to judge before): on opening 10k runs, setting each one up held
   * the first chart back by seconds (#36). */
  onRuns(runs: readonly RunInfo[]): void {
    if (this.judging.size > 0) return void this.deferred.push(() => this.onRuns(runs));
    const out: AlertTransition[] = [];
    this.lastRuns = new Map(runs.map((r) => [r.run, r]));
    const read = runs.filter((r) => r.loaded);
    const facts = this.stopFacts.of(read, this.opts.clock());
    for (const r of read) {
      this.ensureRun(r.run);
      this.engine.setFileFacts(r.run, facts.get(r.run)!);
      this.progress.set(r.run, r.progress?.fraction ?? null);
      if ((r.progress?.fraction === 1 || (r.ended ?? null) !== null) && !this.finished.has(r.run)) {
        this.finished.add(r.run);
        out.push(...this.engine.setFinished(r.run));
      }
    }
    this.handle(out);
  }

  /** A live system sample: memory / GPU rules run on it as points of the machine pseudo-run; a run whose known
   * trainer process exited before it finished raises trainer-exited. */
  onSnapshot(snap: SystemSnapshot): void {
    if (this.judging.size > 0) return void this.deferred.push(() => this.onSnapshot(snap));
    const alive = new Set((snap.trainingProcesses ?? []).map((p) => p.run));
    for (const run of this.configured) this.engine.setProcessAlive(run, alive.has(run));
    const exits = (snap.processExits ?? []).flatMap((e) =>
      this.configured.has(e.run) && !this.finished.has(e.run)
        ? this.engine.processExited(e.run, e.at, this.progress.get(e.run) ?? null)
        : [],
    );
    this.handle([...this.machine.feed(snap), ...exits]);
    if ((snap.processExits ?? []).length > 0) this.updateStatuses(this.opts.clock());
  }

  /** Stalled statuses, stalled-run checks and held-back notification summaries; call it on a timer. */
  tick(now = this.opts.clock()): void {
    // A run half judged would look silent since its last judged point: the next tick comes after.
    if (this.judging.size > 0) return;
    this.updateStatuses(now);
    this.handle(this.engine.tick(now));
    this.syncTags();
    for (const n of this.limiter.due()) this.notify(n);
  }

  /** Runs silent past their own rhythm show as stalled, runs whose trainer exited as exited, and live again when
   * data comes back: statuses, not alerts. */
  private updateStatuses(now: number): void {
    const exited = new Set(this.engine.exitedRuns());
    const next = new Map<string, RunStatusChange['status']>();
    const stops = new Map<string, RunStop>();
    for (const [run, v] of this.engine.stops(now)) {
      stops.set(run, { state: v.state, reason: v.reason });
      if (v.state !== 'ended') next.set(run, v.state);
      if (v.state === 'stalled' || v.state === 'exited') this.lookForCrashLog(run, v.lastWriteMs);
    }
    for (const run of exited) {
      const info = this.lastRuns.get(run);
      if (info && !stops.has(run)) this.lookForCrashLog(run, lastWriteOf(info));
      next.set(run, 'exited');
      const known = stops.get(run)?.state;
      if (known === 'crashed') next.set(run, 'crashed');
      else if (known !== 'exited') stops.set(run, { state: 'exited', reason: 'its trainer process exited' });
    }
    // A stop whose reason alone changed (its silence grows) is no new status: the next run list carries it.
    this.stopNow = stops;
    const statuses: RunStatusChange[] = [];
    for (const [run, status] of next) if (this.statusNow.get(run) !== status) statuses.push({ run, status });
    for (const run of this.statusNow.keys()) if (!next.has(run)) statuses.push({ run, status: 'live' });
    this.statusNow = next;
    if (statuses.length > 0) this.emit({ transitions: [], changes: [], statuses });
  }

  /** Settings changed: every configured run's thresholds are resolved again. */
  reapplyThresholds(): void {
    for (const run of this.configured) this.applyThresholds(run);
  }

  /** The folder closed: its alerts leave the engine without being recorded as cleared (the incidents did not end,
   * so history keeps them open as a crash would, and a restart can restore acks). */
  closeSession(): void {
    this.sink.suspended = true;
    try {
      for (const run of this.configured) this.engine.removeRun(run);
    } finally {
      this.sink.suspended = false;
    }
    this.registry.forgetSession();
    this.configured.clear();
    this.finished.clear();
    this.statusNow.clear();
    this.stopNow.clear();
    this.lastRuns.clear();
    this.stopFacts.clear();
    this.crashLooked.clear();
    this.held.clear();
    this.judging.clear();
    this.deferred = [];
    this.progress.clear();
    this.pendingAcks.clear();
    this.machine.forget();
  }

  // --- reads ---

  /** Whether a first read is being judged in slices (its alerts come once it is done). */
  judgingNow(): boolean {
    return this.judging.size > 0;
  }

  list(run?: string): AlertInfo[] {
    return this.registry.list(this.opts.runs(), run);
  }

  activeAlerts(run?: string): AlertInfo[] {
    return this.registry.activeAlerts(run);
  }

  overlayFor(run: string): AlertOverlay {
    let worstAlert: Severity | null = null;
    const stop = this.stopNow.get(run) ?? null;
    let stalled = this.statusNow.get(run) === 'stalled';
    for (const a of this.registry.activeAlerts(run)) {
      worstAlert = worseSeverity(worstAlert, a.severity);
      if (a.rule === 'stalled-run' && stop?.state !== 'exited') stalled = true;
    }
    return { worstAlert, stalled, stop };
  }

  // --- user actions ---

  /** Acknowledges an alert: no more notifications for this incident; persisted with its history row. */
  ack(id: string): AlertInfo {
    if (this.engine.acknowledge(id)) {
      const info = this.registry.update(id, { acknowledged: true })!;
      this.emit({ transitions: [], changes: [{ kind: 'updated', alert: info }] });
      return info;
    }
    const cleared = this.registry.patchCleared(id, { acknowledged: true });
    if (cleared) {
      this.emit({ transitions: [], changes: [{ kind: 'updated', alert: cleared }] });
      return cleared;
    }
    // An earlier session's incident: only its stored row can change.
    const past = this.known(id);
    const row = this.latestRow(past);
    if (row !== null) this.opts.store().acknowledgeAlert(row, this.opts.clock());
    return { ...past, acknowledged: true };
  }

  /** Mutes notifications of this run+rule+tag for `minutes`, across incidents and restarts. */
  snooze(id: string, minutes: number): AlertInfo {
    const past = this.known(id);
    const until = this.opts.clock() + minutes * 60_000;
    this.engine.snooze(id, until);
    const active = this.registry.update(id, { snoozedUntil: until });
    if (active) {
      this.emit({ transitions: [], changes: [{ kind: 'updated', alert: active }] });
      return active;
    }
    // Not active: the snooze lives in the engine for this session and on the latest row for the next.
    const row = this.sink.rowOf(id) ?? this.latestRow(past);
    if (row !== null) this.opts.store().snoozeAlert(row, until);
    const cleared = this.registry.patchCleared(id, { snoozedUntil: until });
    const info = cleared ?? { ...past, snoozedUntil: until };
    this.emit({ transitions: [], changes: [{ kind: 'updated', alert: info }] });
    return info;
  }

  /** The run's world: as the engine learnt it from its tags, else from its config alone. */
  scopeOf(run: string): RunScope {
    return this.engine.scopeOf(run) ?? runScope([], this.opts.configOf(run));
  }

  /** The thresholds the engine applies to `run` (user settings over its config over the defaults), with their origins. */
  thresholdsOf(run: string): ResolvedThresholds {
    return resolveThresholds(userThresholds(this.opts.settings()), this.opts.configOf(run));
  }

  // --- internals ---

  /** First sight of a run: its thresholds, and what an earlier session left (snoozes, acknowledged incidents). */
  private ensureRun(run: string): void {
    if (this.configured.has(run)) return;
    this.configured.add(run);
    this.applyThresholds(run);
    const persisted = this.registry.persisted(run, this.opts.clock());
    for (const s of persisted.snoozes) this.engine.snooze(s.id, s.until);
    for (const id of persisted.acknowledged) this.pendingAcks.add(id);
  }

  private applyThresholds(run: string): void {
    const resolved = this.thresholdsOf(run);
    this.engine.setThresholds(run, resolved.values, explicitNames(resolved));
    this.engine.setScope(run, runScope([], this.opts.configOf(run)));
  }

  private handle(transitions: readonly AlertTransition[]): void {
    if (transitions.length === 0) return;
    const notifications = this.opts.settings().notifications;
    const changes: AlertChange[] = [];
    /** Acknowledged in this batch: later transitions of the batch were computed before the ack. */
    const restored = new Set<string>();
    /** Raised together: offered as one batch, so a run's burst is one notification naming the worst. */
    const offered: AlertInfo[] = [];
    for (const t of transitions) {
      let notify = t.notify;
      if (t.kind === 'raised' && this.pendingAcks.delete(t.alert.id)) {
        // Acknowledged before the restart and never cleared: the same incident, already seen.
        this.engine.acknowledge(t.alert.id);
        restored.add(t.alert.id);
      } else if (t.kind === 'raised') {
        restored.delete(t.alert.id);
      }
      if (restored.has(t.alert.id)) {
        t.alert.acknowledged = true;
        notify = false;
      }
      const change = this.registry.apply(t);
      changes.push(change);
      if (notify && t.kind !== 'cleared' && notifications) offered.push(change.alert);
    }
    const planned = offered.length > 0 ? this.limiter.offerAll(offered) : [];
    this.emit({ transitions, changes });
    for (const n of planned) this.notify(n);
  }

  /** An alert change from elsewhere (a remote endpoint's push): its raises go through the same limiter and
   * listeners as this engine's, unless it was acknowledged or snoozed there. */
  notifyExternal(change: AlertChange): void {
    if (change.kind !== 'raised' && change.kind !== 'escalated') return;
    const a = change.alert;
    if (!a.active || a.acknowledged || (a.snoozedUntil !== null && a.snoozedUntil > this.opts.clock()))
      return;
    if (!this.opts.settings().notifications) return;
    for (const n of this.limiter.offer(a)) this.notify(n);
  }

  private emit(batch: AlertBatch): void {
    for (const l of this.batchListeners) l(batch);
  }

  private notify(n: PlannedNotification): void {
    if (!this.opts.settings().notifications) return;
    for (const l of this.notificationListeners) {
      try {
        l(n);
      } catch {
        // A failing OS notification must not stop the alert pipeline.
      }
    }
  }

  private known(id: string): AlertInfo {
    const info = this.registry.latest(id, this.opts.runs());
    if (!info) throw new ApiError('not-found', `no alert ${id}`);
    return info;
  }

  /** The newest stored row of an earlier session's incident (for a snooze set on it). */
  private latestRow(info: AlertInfo): number | null {
    const path = this.runPath(info.run);
    if (path === null) return null;
    const rows = this.opts.store().alertHistory({ run: path, limit: 500 });
    return rows.find((r) => r.rule === info.rule && r.tag === info.tag)?.id ?? null;
  }
}
