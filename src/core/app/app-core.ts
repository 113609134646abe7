// AppCore: the workspace, alerts, system sampler, settings and store composed once, for Electron and serve.

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
} from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { ApiError } from '../../shared/result';
import { AlertService, type AlertBatch, type NotificationListener } from '../alerts/alert-service';
import { ResilientStore, type JsonValue, type RunView, type Store } from '../store';
import type { Workspace } from '../workspace/workspace';
import { AppBus } from './bus';
import { FolderSession, type WorkspaceFactory } from './folder-session';
import { KeyNumberTracker } from './key-numbers';
import { buildRunDetails } from './run-details';
import { applySettingsPatch, parseSettings, SETTINGS_KEY } from './settings';
import { SystemFeed, type SamplerLike } from './system-feed';
import { TagTracker } from './tag-tracker';
import { buildTrayModel, type TrayModel } from './tray-model';

export type { NotificationListener };

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
  createWorkspace?: WorkspaceFactory;
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

const RUN_META_MS = 5000;

export class AppCore {
  readonly bus = new AppBus();
  readonly host: HostCapabilities;
  private readonly clock: () => number;
  private readonly folder: FolderSession;
  private settings: Settings;
  private readonly alertService: AlertService;
  private readonly keys = new KeyNumberTracker();
  private readonly tags = new TagTracker();
  private readonly system: SystemFeed;
  /** Last overlay pushed per run, so runs.changed is re-sent only when an alert changes it. */
  private readonly overlay = new Map<string, string>();
  private tickTimer: NodeJS.Timeout | null = null;
  private runMetaAt = -Infinity;
  private disposed = false;

  constructor(private readonly opts: AppCoreOptions) {
    this.host = opts.host;
    this.clock = opts.clock ?? Date.now;
    this.settings = parseSettings(this.store.getSetting(SETTINGS_KEY));
    this.alertService = new AlertService({
      store: () => this.store,
      root: () => this.folder.root,
      runs: () => this.ws.listRuns().map((r) => r.run),
      configOf: (run) => this.ws.configOf(run),
      settings: () => this.settings,
      clock: this.clock,
      notifyWindowMs: opts.notifyWindowMs,
    });
    this.alertService.onBatch((b) => this.onAlerts(b));
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
    this.folder = new FolderSession({
      createWorkspace: opts.createWorkspace,
      pollingWanted: () => this.opts.usePolling ?? this.settings.usePolling,
      attach: (ws) => this.attach(ws),
    });
  }

  private get store(): Store {
    return this.opts.store;
  }

  private get ws(): Workspace {
    return this.folder.workspace;
  }

  private get root(): string | null {
    return this.folder.root;
  }

  get workspace(): Workspace {
    return this.ws;
  }

  // --- folder lifecycle ---

  /** Opens a folder (closing the previous one): runs are read, followed, checked; the sampler starts.
   * `until: 'first-run'` resolves once the first run is read (the rest loads with load.progress). */
  async open(folder: string, opts: { until?: 'loaded' | 'first-run' } = {}): Promise<{ root: string }> {
    const target = await this.folder.checkFolder(folder);
    await this.closeFolder();
    const root = await this.folder.open(folder, target, opts.until);
    this.store.touchRun(root, this.clock());
    this.runMetaAt = -Infinity;
    this.recordRunMeta(this.ws.listRuns());
    this.system.start(root);
    this.startTicking();
    return { root };
  }

  /** Closes the open folder: its alerts leave the session (history keeps them open), the sampler stops. */
  async closeFolder(): Promise<void> {
    if (this.root === null) return;
    this.alertService.closeSession();
    this.overlay.clear();
    this.keys.clear();
    this.tags.clear();
    this.system.stop();
    this.stopTicking();
    await this.folder.close();
  }

  /** Stops everything and closes the store; the core cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.closeFolder();
    await this.folder.dispose();
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
      watch: { polling: this.folder.polling, suggestion: this.ws.watchInfo().suggestion },
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
    return this.alertService.list(run);
  }

  /** Acknowledges an alert: no more notifications for this incident; persisted with its history row. */
  ack(id: string): AlertInfo {
    return this.alertService.ack(id);
  }

  /** Mutes notifications of this run+rule+tag for `minutes`, across incidents and restarts. */
  snooze(id: string, minutes: number): AlertInfo {
    return this.alertService.snooze(id, minutes);
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
    if (patch.thresholds !== undefined || patch.stalledAfterMinutes !== undefined)
      this.alertService.reapplyThresholds();
    return this.getSettings();
  }

  // --- hosts' extras (tray, notifications, focus) ---

  trayModel(): TrayModel {
    return buildTrayModel(this.runs(), this.alertService.activeAlerts(), (run) => this.keys.get(run));
  }

  onNotification(listener: NotificationListener): () => void {
    return this.alertService.onNotification(listener);
  }

  /** A notification or tray item was clicked: ask the window to show the run at the chart and step. */
  focus(f: AppFocus): void {
    this.bus.emit('app.focus', f);
  }

  /** Stalled-run check and held-back notification summaries; runs on a timer, callable from tests. */
  tick(): void {
    this.alertService.tick(this.clock());
  }

  // --- internals ---

  private attach(ws: Workspace): (() => void)[] {
    return [
      ws.on('series.appended', (d) => this.onDelta(d)),
      // The next delta's `from` says where the view continues; trackers and the engine follow it then.
      ws.on('series.reset', (r) => this.bus.emit('series.reset', r)),
      ws.on('runs.changed', (runs) => this.onRuns(runs)),
      ws.on('load.progress', (p) => this.bus.emit('load.progress', p)),
      ws.on('app.notice', (n) => this.bus.emit('app.notice', n)),
    ];
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

  private onSnapshot(snap: SystemSnapshot): void {
    if (this.root !== null) this.alertService.onSnapshot(snap);
  }

  private onDelta(d: SeriesDelta): void {
    this.keys.observe(d);
    this.tags.observe(d);
    // Points first, then the alerts they caused: the renderer can place the marker on a drawn point.
    this.bus.emit('series.appended', d);
    this.alertService.feed(d);
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
    const overlaid = runs.map((r) => this.withOverlay(r));
    for (const r of overlaid) this.overlay.set(r.run, `${r.worstAlert}|${r.stalled}`);
    this.bus.emit('runs.changed', overlaid);
    // Finished runs: a stalled alert clears (after the list that says they finished).
    this.alertService.onRuns(runs);
  }

  /** Alert changes go out as they are; runs.changed follows when a run's overlay (worst alert, stalled) moved. */
  private onAlerts(batch: AlertBatch): void {
    for (const c of batch.changes) this.bus.emit('alerts.changed', c);
    const touched = new Set(batch.changes.map((c) => c.alert.run));
    const changed = this.runs().some(
      (r) => touched.has(r.run) && this.overlay.get(r.run) !== `${r.worstAlert}|${r.stalled}`,
    );
    if (!changed) return;
    const all = this.runs();
    for (const r of all) this.overlay.set(r.run, `${r.worstAlert}|${r.stalled}`);
    this.bus.emit('runs.changed', all);
  }

  private withOverlay(r: RunInfo): RunInfo {
    return { ...r, ...this.alertService.overlayFor(r.run) };
  }
}
