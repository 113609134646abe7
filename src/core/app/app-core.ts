// AppCore: the workspace, health engine, alerts, system sampler, settings and store composed once, for Electron and serve.

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type {
  AlertInfo,
  AppFocus,
  AppInfo,
  RecentRunInfo,
  RunDetails,
  RunInfo,
  SeriesDelta,
  SeriesWindow,
  Settings,
  Severity,
} from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { ApiError } from '../../shared/result';
import { HealthEngine, resolveThresholds, type AlertTransition } from '../health';
import { ResilientStore, type JsonValue, type RunView, type Store } from '../store';
import { createWorkspace as createRealWorkspace } from '../workspace/create';
import type { Workspace } from '../workspace/workspace';
import { AlertRegistry } from './alert-registry';
import { runPathIn, StoreAlertSink } from './alert-sink';
import { AppBus } from './bus';
import { KeyNumberTracker } from './key-numbers';
import { NotificationLimiter, type PlannedNotification } from './notify-limiter';
import { buildRunDetails } from './run-details';
import { applySettingsPatch, parseSettings, SETTINGS_KEY, userThresholds } from './settings';
import { SystemFeed, type SamplerLike } from './system-feed';
import { isTrainingTag, MACHINE_RUN, machinePoints } from './machine-health';
import { TagTracker } from './tag-tracker';
import { buildTrayModel, type TrayModel } from './tray-model';

export interface HostCapabilities {
  mode: AppInfo['mode'];
  version: string;
  /** Native folder picker (Electron only). */
  chooseFolder?: () => Promise<string | null>;
  /** Whether the renderer may open arbitrary folders (not in serve mode, where the browser is remote). */
  allowOpenFolder: boolean;
}

export interface AppCoreOptions {
  host: HostCapabilities;
  /** An opened store: a ResilientStore (openAppStore) survives IO errors and its fallback becomes an app.notice. */
  store: Store;
  /** ms since epoch; injected for tests. */
  clock?: () => number;
  createWorkspace?: (opts: { usePolling: boolean }) => Workspace;
  /** The system sampler (createSystemSampler in the hosts); null or absent: no system sampling. */
  createSampler?: () => SamplerLike | null;
  /** Stalled-run checks and notification summaries run this often (default 5 s). */
  tickMs?: number;
  /** System samples are written to the store this often (default 10 s). */
  flushMs?: number;
  /** At most one notification per run per this many ms (default 30 s). */
  notifyWindowMs?: number;
  /** Force polling for this session (serve --poll) whatever the saved setting says. */
  usePolling?: boolean;
  /** Why the store is not persistent when the host chose that (e.g. no Electron build of SQLite). */
  storeNote?: string | null;
}

export type NotificationListener = (n: PlannedNotification) => void;

const RUN_META_MS = 5000;

const worse = (a: Severity | null, b: Severity | null): Severity | null =>
  a === 'critical' || b === 'critical' ? 'critical' : (a ?? b);

export class AppCore {
  readonly bus = new AppBus();
  readonly host: HostCapabilities;
  private readonly clock: () => number;
  private readonly makeWorkspace: (opts: { usePolling: boolean }) => Workspace;
  private ws: Workspace;
  private wsPolling: boolean;
  private wsOffs: (() => void)[] = [];
  private root: string | null = null;
  private settings: Settings;
  private readonly engine: HealthEngine;
  private readonly sink: StoreAlertSink;
  private readonly registry: AlertRegistry;
  private readonly limiter: NotificationLimiter;
  private readonly keys = new KeyNumberTracker();
  private readonly tags = new TagTracker();
  private readonly system: SystemFeed;
  private readonly configured = new Set<string>();
  private readonly finished = new Set<string>();
  /** Incidents acknowledged while open when the last session ended: re-acknowledged when they raise again. */
  private readonly pendingAcks = new Set<string>();
  private readonly notificationListeners = new Set<NotificationListener>();
  /** Last overlay pushed per run, so runs.changed is re-sent only when an alert changes it. */
  private readonly overlay = new Map<string, string>();
  private tickTimer: NodeJS.Timeout | null = null;
  private machineStep = 0;
  private runMetaAt = -Infinity;
  private disposed = false;

  constructor(private readonly opts: AppCoreOptions) {
    this.host = opts.host;
    this.clock = opts.clock ?? Date.now;
    this.makeWorkspace = opts.createWorkspace ?? ((o) => createRealWorkspace(o));
    this.settings = parseSettings(this.store.getSetting(SETTINGS_KEY));
    const runPath = runPathIn(() => this.root);
    this.sink = new StoreAlertSink(() => this.store, runPath, this.clock);
    this.registry = new AlertRegistry(() => this.store, runPath, this.sink.written);
    this.engine = new HealthEngine({ clock: this.clock, sink: this.sink });
    this.limiter = new NotificationLimiter({ clock: this.clock, windowMs: opts.notifyWindowMs });
    this.system = new SystemFeed({
      createSampler: opts.createSampler ?? (() => null),
      store: () => this.store,
      bus: this.bus,
      flushMs: opts.flushMs,
    });
    if (this.store instanceof ResilientStore) {
      this.store.onDegraded((d) => this.bus.emit('app.notice', { level: 'warning', message: d.reason }));
    }
    this.store.prune(this.clock());
    this.bus.on('system.snapshot', (snap) => this.onSnapshot(snap));
    this.wsPolling = this.pollingWanted();
    this.ws = this.makeWorkspace({ usePolling: this.wsPolling });
    this.attach();
  }

  private pollingWanted(): boolean {
    return this.opts.usePolling ?? this.settings.usePolling;
  }

  private get store(): Store {
    return this.opts.store;
  }

  get workspace(): Workspace {
    return this.ws;
  }

  // --- folder lifecycle ---

  /** Opens a folder (closing the previous one): runs are read, followed, checked; the sampler starts.
   * `until: 'first-run'` resolves once the first run is read (the rest loads with load.progress). */
  async open(folder: string, opts: { until?: 'loaded' | 'first-run' } = {}): Promise<{ root: string }> {
    const target = resolve(folder);
    let isDir = false;
    try {
      isDir = (await stat(target)).isDirectory();
    } catch (err) {
      throw new ApiError('io', `cannot open ${folder}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!isDir) throw new ApiError('io', `cannot open ${folder}: not a folder`);
    await this.closeFolder();
    if (this.pollingWanted() !== this.wsPolling) {
      // Polling is chosen when the watcher starts: a changed setting takes a new workspace.
      this.detach();
      await this.ws.close();
      this.wsPolling = this.pollingWanted();
      this.ws = this.makeWorkspace({ usePolling: this.wsPolling });
      this.attach();
    }
    this.root = target;
    try {
      await this.ws.open(target, opts.until ? { until: opts.until } : {});
    } catch (err) {
      this.root = null;
      throw new ApiError('io', `cannot open ${folder}: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.root = this.ws.root ?? target;
    this.store.touchRun(this.root, this.clock());
    this.runMetaAt = -Infinity;
    this.recordRunMeta(this.ws.listRuns());
    this.system.start(this.root);
    this.startTicking();
    return { root: this.root };
  }

  /** Closes the open folder: its alerts are cleared (recorded as such), the sampler stops. */
  async closeFolder(): Promise<void> {
    if (this.root === null) return;
    this.sink.suspended = true;
    try {
      for (const run of this.configured) this.engine.removeRun(run);
    } finally {
      this.sink.suspended = false;
    }
    this.registry.forgetSession();
    this.configured.clear();
    this.finished.clear();
    this.pendingAcks.clear();
    this.overlay.clear();
    this.keys.clear();
    this.tags.clear();
    this.system.stop();
    this.stopTicking();
    await this.ws.close();
    this.root = null;
  }

  /** Stops everything and closes the store; the core cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.closeFolder();
    this.detach();
    await this.ws.close();
    this.system.stop();
    this.store.close();
  }

  // --- requests ---

  info(): AppInfo {
    const s = this.store.status;
    const message = s.persistent
      ? s.recovered
        ? `The database was corrupt (${s.recovered.cause}); it was moved to ${s.recovered.movedTo} and rebuilt.`
        : null
      : (this.opts.storeNote ?? s.reason);
    return {
      version: this.host.version,
      mode: this.host.mode,
      root: this.root,
      canChooseFolder: this.host.chooseFolder !== undefined,
      store: { persistent: s.persistent, message },
      watch: { polling: this.wsPolling, suggestion: this.ws.watchInfo().suggestion },
    };
  }

  setVisible(visible: boolean): void {
    this.system.setHidden(!visible);
  }

  runs(): RunInfo[] {
    return this.ws.listRuns().map((r) => this.withOverlay(r));
  }

  recent(): RecentRunInfo[] {
    return this.store.recentRuns().map((r) => ({ path: r.path, lastOpened: r.lastOpened }));
  }

  saveView(view: Record<string, unknown>): void {
    if (this.root === null) throw new ApiError('unavailable', 'no folder is open');
    this.store.saveRunView(this.root, view as RunView, this.clock());
  }

  details(run: string): RunDetails {
    const info = this.ws.listRuns().find((r) => r.run === run);
    if (!info) throw new ApiError('not-found', `no run ${run}`);
    return buildRunDetails(run, info.tags, this.ws.configOf(run), this.ws.progressOf(run), {
      tail: (tag) => this.tags.tail(run, tag),
      points: (tag) => this.tags.points(run, tag),
    });
  }

  series(
    run: string,
    tag: string,
    q: { pixels: number; xMin?: number; xMax?: number; axis?: 'step' | 'wall' },
  ): SeriesWindow {
    const w = this.ws.getWindow(run, tag, q);
    if (!w) throw new ApiError('not-found', `no series ${tag} in run ${run}`);
    return w;
  }

  alerts(run?: string): AlertInfo[] {
    return this.registry.list(
      this.ws.listRuns().map((r) => r.run),
      run,
    );
  }

  /** Acknowledges an alert: no more notifications for this incident; persisted with its history row. */
  ack(id: string): AlertInfo {
    if (this.engine.acknowledge(id)) {
      const info = this.registry.update(id, { acknowledged: true })!;
      this.bus.emit('alerts.changed', { kind: 'updated', alert: info });
      return info;
    }
    const cleared = this.registry.patchCleared(id, { acknowledged: true });
    if (cleared) {
      this.bus.emit('alerts.changed', { kind: 'updated', alert: cleared });
      return cleared;
    }
    // An earlier session's incident: only its stored row can change.
    const past = this.known(id);
    const row = this.latestRow(past);
    if (row !== null) this.store.acknowledgeAlert(row, this.clock());
    return { ...past, acknowledged: true };
  }

  /** Mutes notifications of this run+rule+tag for `minutes`, across incidents and restarts. */
  snooze(id: string, minutes: number): AlertInfo {
    const past = this.known(id);
    const until = this.clock() + minutes * 60_000;
    this.engine.snooze(id, until);
    const active = this.registry.update(id, { snoozedUntil: until });
    if (active) {
      this.bus.emit('alerts.changed', { kind: 'updated', alert: active });
      return active;
    }
    // Not active: the snooze lives in the engine for this session and on the latest row for the next.
    const row = this.sink.rowOf(id) ?? this.latestRow(past);
    if (row !== null) this.store.snoozeAlert(row, until);
    const cleared = this.registry.patchCleared(id, { snoozedUntil: until });
    const info = cleared ?? { ...past, snoozedUntil: until };
    this.bus.emit('alerts.changed', { kind: 'updated', alert: info });
    return info;
  }

  systemHistory(sinceMs?: number): SystemSnapshot[] {
    return this.system.history(sinceMs);
  }

  getSettings(): Settings {
    return { ...this.settings, thresholds: { ...this.settings.thresholds } };
  }

  /** Applies a validated patch, persists it, and re-resolves the thresholds of every open run. */
  setSettings(patch: Partial<Settings>): Settings {
    this.settings = applySettingsPatch(this.settings, patch);
    this.store.setSetting(SETTINGS_KEY, this.settings as unknown as JsonValue);
    if (patch.thresholds !== undefined || patch.stalledAfterMinutes !== undefined) {
      for (const run of this.configured) this.applyThresholds(run);
    }
    return this.getSettings();
  }

  // --- hosts' extras (tray, notifications, focus) ---

  trayModel(): TrayModel {
    return buildTrayModel(this.runs(), this.registry.activeAlerts(), (run) => this.keys.get(run));
  }

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener);
    return () => void this.notificationListeners.delete(listener);
  }

  /** A notification or tray item was clicked: ask the window to show the run at the chart and step. */
  focus(f: AppFocus): void {
    this.bus.emit('app.focus', f);
  }

  /** Stalled-run check and held-back notification summaries; runs on a timer, callable from tests. */
  tick(): void {
    this.handle(this.engine.tick(this.clock()));
    for (const n of this.limiter.due()) this.notify(n);
  }

  // --- internals ---

  private attach(): void {
    this.wsOffs = [
      this.ws.on('series.appended', (d) => this.onDelta(d)),
      // The next delta's `from` says where the view continues; trackers and the engine follow it then.
      this.ws.on('series.reset', (r) => this.bus.emit('series.reset', r)),
      this.ws.on('runs.changed', (runs) => this.onRuns(runs)),
      this.ws.on('load.progress', (p) => this.bus.emit('load.progress', p)),
      this.ws.on('app.notice', (n) => this.bus.emit('app.notice', n)),
    ];
  }

  private detach(): void {
    for (const off of this.wsOffs) off();
    this.wsOffs = [];
  }

  private startTicking(): void {
    if (this.tickTimer) return;
    this.tickTimer = setInterval(() => this.tick(), this.opts.tickMs ?? 5000);
    this.tickTimer.unref();
  }

  private stopTicking(): void {
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tickTimer = null;
  }

  /** A live sample: memory / GPU rules run on it as points of the machine pseudo-run. */
  private onSnapshot(snap: SystemSnapshot): void {
    if (this.root === null) return;
    if (!this.configured.has(MACHINE_RUN)) {
      this.ensureRun(MACHINE_RUN);
      // Samples keep arriving whether or not anyone trains: the pseudo-run is never "stalled".
      this.engine.setFinished(MACHINE_RUN);
    }
    const step = this.machineStep++;
    const wall = snap.t / 1000;
    const out: AlertTransition[] = [];
    for (const p of machinePoints(snap))
      out.push(...this.engine.feedBatch(MACHINE_RUN, p.tag, [step], [wall], [p.value]));
    this.handle(out);
  }

  private onDelta(d: SeriesDelta): void {
    this.ensureRun(d.run);
    if (d.steps.length > 0 && isTrainingTag(d.tag))
      this.engine.noteTraining(MACHINE_RUN, d.wallTimes[d.wallTimes.length - 1]!);
    this.keys.observe(d);
    this.tags.observe(d);
    const transitions = this.engine.feedBatch(d.run, d.tag, d.steps, d.wallTimes, d.values);
    // Points first, then the alerts they caused: the renderer can place the marker on a drawn point.
    this.bus.emit('series.appended', d);
    this.handle(transitions);
  }

  /** Per-run first/last seen and freshness in the store, at most once per RUN_META_MS (runs.changed can be frequent). */
  private recordRunMeta(runs: readonly RunInfo[]): void {
    const now = this.clock();
    if (this.root === null || now - this.runMetaAt < RUN_META_MS) return;
    this.runMetaAt = now;
    const root = this.root;
    this.store.updateRunMeta(
      runs.map((r) => ({
        path: resolve(root, r.run),
        seenAt: now,
        lastEventAt: r.lastEventAt,
        fileWrittenAt: r.fileWrittenAt,
      })),
    );
  }

  private onRuns(runs: RunInfo[]): void {
    this.recordRunMeta(runs);
    const out: AlertTransition[] = [];
    for (const r of runs) {
      this.ensureRun(r.run);
      if (r.progress?.fraction === 1 && !this.finished.has(r.run)) {
        this.finished.add(r.run);
        out.push(...this.engine.setFinished(r.run));
      }
    }
    const overlaid = runs.map((r) => this.withOverlay(r));
    for (const r of overlaid) this.overlay.set(r.run, `${r.worstAlert}|${r.stalled}`);
    this.bus.emit('runs.changed', overlaid);
    this.handle(out);
  }

  /** First sight of a run: its thresholds, and what an earlier session left (snoozes, acknowledged incidents). */
  private ensureRun(run: string): void {
    if (this.configured.has(run)) return;
    this.configured.add(run);
    this.applyThresholds(run);
    const persisted = this.registry.persisted(run, this.clock());
    for (const s of persisted.snoozes) this.engine.snooze(s.id, s.until);
    for (const id of persisted.acknowledged) this.pendingAcks.add(id);
  }

  private applyThresholds(run: string): void {
    this.engine.setThresholds(
      run,
      resolveThresholds(userThresholds(this.settings), this.ws.configOf(run)).values,
    );
  }

  private handle(transitions: readonly AlertTransition[]): void {
    if (transitions.length === 0) return;
    const touched = new Set<string>();
    /** Acknowledged in this batch: later transitions of the batch were computed before the ack. */
    const restored = new Set<string>();
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
      touched.add(t.alert.run);
      this.bus.emit('alerts.changed', change);
      if (notify && t.kind !== 'cleared' && this.settings.notifications) {
        for (const n of this.limiter.offer(change.alert)) this.notify(n);
      }
    }
    const changed = this.runs().filter(
      (r) => touched.has(r.run) && this.overlay.get(r.run) !== `${r.worstAlert}|${r.stalled}`,
    );
    if (changed.length > 0) {
      const all = this.runs();
      for (const r of all) this.overlay.set(r.run, `${r.worstAlert}|${r.stalled}`);
      this.bus.emit('runs.changed', all);
    }
  }

  private notify(n: PlannedNotification): void {
    if (!this.settings.notifications) return;
    for (const l of this.notificationListeners) {
      try {
        l(n);
      } catch {
        // A failing OS notification must not stop the alert pipeline.
      }
    }
  }

  private withOverlay(r: RunInfo): RunInfo {
    let worst: Severity | null = null;
    let stalled = false;
    for (const a of this.registry.activeAlerts(r.run)) {
      worst = worse(worst, a.severity);
      if (a.rule === 'stalled-run') stalled = true;
    }
    return { ...r, worstAlert: worst, stalled };
  }

  private known(id: string): AlertInfo {
    const info = this.registry.latest(
      id,
      this.ws.listRuns().map((r) => r.run),
    );
    if (!info) throw new ApiError('not-found', `no alert ${id}`);
    return info;
  }

  /** The newest stored row of an earlier session's incident (for a snooze set on it). */
  private latestRow(info: AlertInfo): number | null {
    if (this.root === null) return null;
    const rows = this.store.alertHistory({ run: resolve(this.root, info.run), limit: 500 });
    return rows.find((r) => r.rule === info.rule && r.tag === info.tag)?.id ?? null;
  }
}
