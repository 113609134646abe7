// AppCore: the workspace, alerts, system sampler, settings and store composed once, for Electron and serve.

import type {
  AlertInfo,
  AppFocus,
  AppInfo,
  AppNotice,
  IncidentSnapshot,
  RecentRunInfo,
  RunDetails,
  RunInfo,
  SeriesDelta,
  SeriesWindow,
  Settings,
} from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import type { RequestArgs } from '../../shared/contract';
import type { ExportedFigure, RunExportStarted } from '../../shared/domain';
import { ApiError } from '../../shared/result';
import { AlertService, type AlertBatch, type NotificationListener } from '../alerts/alert-service';
import type { Thresholds } from '../health';
import { ResilientStore, type JsonValue, type RunView, type Store } from '../store';
import type { RemoteHub } from '../remote/remote-hub';
import { createRemotes } from './remotes';
import { createAppJobs, type AppJobs } from './jobs';
import type { Workspace } from '../workspace/workspace';
import { AppBus } from './bus';
import { AppExports } from './exports';
import type { AppCoreOptions, HostCapabilities } from './app-options';
import { FirstScreenGate } from './first-screen-gate';
import { FolderSession } from './folder-session';
import { KeyNumberTracker } from './key-numbers';
import { buildRunDetails } from './run-details';
import {
  applySettingsPatch,
  parseFolderView,
  parseSettings,
  SETTINGS_KEY,
  splitFolderView,
  type FolderView,
} from './settings';
import { RunMetaRecorder } from './run-meta';
import { RunOverlay, type JobIdentity } from './run-overlay';
import { TrainerFacts } from './trainer-facts';
import { SystemFeed } from './system-feed';
import { TagTracker, type TagExtremes } from './tag-tracker';
import { buildTrayModel, type TrayModel } from './tray-model';

export type { NotificationListener };
export type { AppCoreOptions, HostCapabilities } from './app-options';

/** Notices kept for clients that connect later; the oldest go first. */
const MAX_KEPT_NOTICES = 50;
/** A run's first read of more points than this is judged for alerts in slices (about 50 ms of the engine's work). */
const FIRST_READ_JUDGED_AT_ONCE = 50_000;

export class AppCore {
  readonly bus = new AppBus();
  readonly host: HostCapabilities;
  /** Remote rlwatch endpoints whose runs join this app's run list (their requests are routed there). */
  readonly remotes: RemoteHub;
  private readonly clock: () => number;
  private readonly folder: FolderSession;
  private settings: Settings;
  /** The open folder's view settings (x-axis mode, ignore outliers); null while no folder is open. */
  private folderView: FolderView | null = null;
  private readonly alertService: AlertService;
  /** A page's first chart drawn (or the bound passed): first reads are judged after it. */
  private readonly firstScreen = new FirstScreenGate();
  private readonly keys = new KeyNumberTracker();
  private readonly tags = new TagTracker();
  private readonly system: SystemFeed;
  private readonly overlay: RunOverlay;
  /** What the samples say of each run's trainer (RunInfo.trainer). */
  private readonly trainers = new TrainerFacts();
  private readonly runMeta: RunMetaRecorder;
  private readonly exports: AppExports;
  /** Runs of several nodes grouped into jobs, and the cross-node rules' alerts. */
  readonly jobs: AppJobs;
  private tickTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  /** Notices so far, replayed to every client through app.info; `session` ones outlive a folder. */
  private notices: Array<AppNotice & { scope: 'folder' | 'session' }> = [];

  constructor(private readonly opts: AppCoreOptions) {
    this.host = opts.host;
    this.clock = opts.clock ?? Date.now;
    this.settings = parseSettings(this.store.getSetting(SETTINGS_KEY));
    this.alertService = new AlertService({
      store: () => this.store,
      root: () => this.folder.root,
      runs: () => this.ws.runNames(),
      configOf: (run) => this.ws.configOf(run),
      writtenAt: (run) => this.ws.writtenAt(run),
      settings: () => this.settings,
      clock: this.clock,
      notifyWindowMs: opts.notifyWindowMs,
      // A large run's first read is judged in slices: the page's first answers do not wait behind it (#36).
      sliceFirstReadsOver: FIRST_READ_JUDGED_AT_ONCE,
      // …and only once the page has asked for its first screen's series (or a few seconds passed): under contention
      // that judging otherwise took the cores the page's first chart needed (#36).
      judgeFirstReadsAfter: () => this.firstScreen.opened(),
    });
    this.alertService.onBatch((b) => this.onAlerts(b));
    // The limiter's decisions reach every client too: a browser tab (serve) shows them as Notifications.
    this.alertService.onNotification((n) => this.bus.emit('app.notification', n));
    this.overlay = new RunOverlay((run) => {
      const trainer = this.trainers.of(run);
      return { ...this.alertService.overlayFor(run), ...(trainer ? { trainer } : {}) };
    }, opts.identity ?? null);
    this.runMeta = new RunMetaRecorder(() => this.store, this.clock);
    this.system = new SystemFeed({
      createSampler: opts.createSampler ?? (() => null),
      store: () => this.store,
      bus: this.bus,
      flushMs: opts.flushMs,
    });
    if (this.store instanceof ResilientStore) {
      this.store.onDegraded((d) => this.notice({ level: 'warning', message: d.reason }, 'session'));
      this.store.onSpace((e) =>
        this.notice({ level: e.full ? 'warning' : 'info', message: e.message }, 'session'),
      );
    }
    this.store.prune(this.clock());
    this.bus.on('system.snapshot', (snap) => this.onSnapshot(snap));
    this.folder = new FolderSession({
      createWorkspace: opts.createWorkspace,
      pollingWanted: () => this.opts.usePolling ?? this.settings.usePolling,
      attach: (ws) => this.attach(ws),
    });
    // The endpoints saved in settings and the host's session ones (`serve --remote`); a bad one is a notice.
    this.remotes = createRemotes({
      clock: this.clock,
      store: () => this.store,
      push: (event, payload) => {
        if (event === 'series.appended') this.keys.observe(payload as SeriesDelta);
        this.bus.emit(event, payload);
      },
      runsChanged: () => this.bus.emit('runs.changed', this.runs()),
      alertChanged: (c) => this.alertService.notifyExternal(c),
      tuning: opts.remoteTuning,
      session: opts.remotes ?? [],
      warn: (message) => this.notice({ level: 'warning', message }, 'session'),
    });
    this.jobs = createAppJobs({
      clock: this.clock,
      rules: opts.jobRules,
      named: opts.identity !== undefined,
      everyMs: opts.tickMs,
      runs: () => this.runs(),
      remotes: this.remotes,
      localSample: () => this.system.latest(),
      jobsChanged: (jobs) => this.bus.emit('jobs.changed', jobs),
      alertChanged: (c) => {
        this.bus.emit('alerts.changed', c);
        this.alertService.notifyExternal(c);
      },
    });
    // Jobs follow the one run list (local and remote) and the endpoints' states.
    this.bus.on('runs.changed', () => this.jobs.refresh());
    this.bus.on('endpoints.changed', () => this.jobs.refresh());
    this.exports = new AppExports({
      root: () => this.root,
      workspace: () => this.ws,
      alerts: this.alertService,
      settings: () => this.settings,
      remember: (folder) => {
        if (!this.disposed) this.setSettings({ exportFolder: folder });
      },
      progress: (p) => this.bus.emit('export.progress', p),
      pickExportFolder: this.host.pickExportFolder,
      systemNear: (ms, tolerance) => this.system.nearest(ms, tolerance),
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

  /** The job and node this app's folder belongs to (`--job`, `--node`), null when none was given. */
  get identity(): JobIdentity | null {
    return this.opts.identity ?? null;
  }

  // --- folder lifecycle ---

  /** Opens a folder (closing the previous one): runs are read, followed, checked; the sampler starts.
   * `until: 'first-run'` resolves once the first run is read (the rest loads with load.progress). */
  async open(folder: string, opts: { until?: 'loaded' | 'first-run' } = {}): Promise<{ root: string }> {
    const target = await this.folder.checkFolder(folder);
    await this.closeFolder();
    // A new folder's notices replace the last one's (the store's stay: they are about this session).
    this.notices = this.notices.filter((n) => n.scope === 'session');
    // The walk of a large folder's rest waits for the page's first screen once its first runs are listed (#36).
    const root = await this.folder.open(folder, target, opts.until, () => this.firstScreen.opened());
    this.store.touchRun(root, this.clock());
    this.folderView = parseFolderView(this.storedView(root));
    this.runMeta.reset();
    this.runMeta.record(root, this.ws.listRuns());
    // Sampling starts, with the runs' training processes to look for, once the page's first chart is drawn (or the
    // gate's bound passed): its first look (systeminformation loaded, nvidia-smi spawned: 0.1–0.25 s of CPU at load)
    // ran as the page asked for its HTML, script and socket, and they waited for it (#36).
    this.giveSamplerRuns();
    this.startTicking();
    // A folder with no run pushes nothing else: a page that asked app.info before the open learns the root here.
    if (this.ws.listRuns().length === 0) this.bus.emit('runs.changed', this.runs());
    return { root };
  }

  /** Closes the open folder: its alerts leave the session (history keeps them open), the sampler stops. */
  async closeFolder(): Promise<void> {
    if (this.root === null) return;
    this.alertService.closeSession();
    this.overlay.clear();
    this.trainers.clear();
    this.keys.clear();
    this.tags.clear();
    this.folderView = null;
    this.folderGen++;
    this.samplerRunsDue = false;
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
    this.remotes.dispose();
    this.jobs.stop();
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
      notices: this.notices.map(({ level, message }) => ({ level, message })),
    };
  }
  /** The app's clock, ms since epoch: what a run's "live" is measured against. */
  now(): number {
    return this.clock();
  }

  setVisible(visible: boolean): void {
    this.system.setHidden(!visible);
  }

  /** A page drew its first chart: first reads' judging and the sampler's runs, held for it, start (#36). */
  firstScreenDrawn(): void {
    this.firstScreen.drawn();
  }

  /** The one run list: the open folder's runs, then every remote endpoint's (keyed `HOST//RUN`). */
  runs(): RunInfo[] {
    return [...this.ws.listRuns().map((r) => this.overlay.apply(r)), ...this.remotes.runs()];
  }

  recent(): RecentRunInfo[] {
    return this.store.recentRuns().map((r) => ({ path: r.path, lastOpened: r.lastOpened }));
  }

  /** Saves the window's view of the open folder; the folder's view settings stay in the same record. */
  saveView(view: Record<string, unknown>): void {
    if (this.root === null) throw new ApiError('unavailable', 'no folder is open');
    this.store.saveRunView(this.root, { ...(view as RunView), ...this.folderView }, this.clock());
  }

  /** The view record stored for a folder (the open one was just touched: it is the most recent). */
  private storedView(root: string): RunView | null {
    return this.store.recentRuns().find((r) => r.path === root)?.view ?? null;
  }

  details(run: string): RunDetails {
    const info = this.ws.runInfoOf(run);
    if (!info) throw new ApiError('not-found', `no run ${run}`);
    return buildRunDetails(
      run,
      info.tags,
      this.ws.configOf(run),
      this.ws.progressOf(run),
      { tail: (tag) => this.tags.tail(run, tag), points: (tag) => this.tags.points(run, tag) },
      this.alertService.thresholdsOf(run),
    );
  }

  /** A page asked for the run list: the first-screen gate's bound counts from now (`FirstScreenGate.pageArrived`). */
  pageArrived(): void {
    this.firstScreen.pageArrived();
  }

  /** A window of a run's series; a zoomed window of a series the memory cap thinned reads its exact values back
   * from the files first. */
  async series(
    run: string,
    tag: string,
    q: { pixels: number; xMin?: number; xMax?: number; axis?: 'step' | 'wall'; session?: number },
  ): Promise<SeriesWindow> {
    if (q.xMin !== undefined && q.xMax !== undefined) await this.ws.readExact(run, tag, q);
    const w = this.ws.getWindow(run, tag, q);
    if (!w)
      throw new ApiError(
        'not-found',
        q.session === undefined
          ? `no series ${tag} in run ${run}`
          : `no session ${q.session} of ${tag} in run ${run}`,
      );
    return w;
  }

  /** This folder's alerts and the job rules' (about `run` when given). */
  alerts(run?: string): AlertInfo[] {
    return [...this.alertService.list(run), ...this.jobs.monitor.alerts(run)];
  }

  /** Acknowledges an alert: no more notifications for this incident; persisted with its history row. */
  ack(id: string): AlertInfo {
    return this.jobs.monitor.owns(id) ? this.jobs.monitor.ack(id) : this.alertService.ack(id);
  }

  /** Mutes notifications of this run+rule+tag for `minutes`, across incidents and restarts. */
  snooze(id: string, minutes: number): AlertInfo {
    return this.jobs.monitor.owns(id)
      ? this.jobs.monitor.snooze(id, minutes)
      : this.alertService.snooze(id, minutes);
  }

  systemHistory(sinceMs?: number): SystemSnapshot[] {
    return this.system.history(sinceMs);
  }

  /** The settings, with the open folder's own view settings (x-axis mode, ignore outliers) over them. */
  getSettings(): Settings {
    return { ...this.settings, ...this.folderView, thresholds: { ...this.settings.thresholds } };
  }

  /**
   * Applies a validated patch, persists it, and re-resolves the thresholds of every open run. The x-axis mode
   * and ignore outliers belong to the open folder (its view record), so another folder opens with its own.
   */
  setSettings(patch: Partial<Settings>): Settings {
    const root = this.root;
    const { folder, global } =
      root !== null && this.folderView ? splitFolderView(patch) : { folder: {}, global: patch };
    if (root !== null && this.folderView && Object.keys(folder).length > 0) {
      this.folderView = { ...this.folderView, ...folder };
      this.store.saveRunView(root, { ...this.storedView(root), ...this.folderView }, this.clock());
    }
    this.settings = applySettingsPatch(this.settings, global);
    this.store.setSetting(SETTINGS_KEY, this.settings as unknown as JsonValue);
    if (patch.thresholds !== undefined || patch.stalledAfterMinutes !== undefined)
      this.alertService.reapplyThresholds();
    return this.getSettings();
  }

  /** One chart as a standalone PNG or SVG, drawn from the series this app holds (export.figure). */
  exportFigure(args: RequestArgs['export.figure']): Promise<ExportedFigure> {
    return this.exports.figure(args);
  }

  /** Starts writing runs' data into `folder` (export.run); the folder is remembered. */
  exportRun(args: RequestArgs['export.run']): Promise<RunExportStarted> {
    return this.exports.run(args);
  }

  /** An alert's incident snapshot into `folder` (or the remembered one, or the host's picker's). */
  incident(id: string, folder?: string, step?: number): Promise<IncidentSnapshot> {
    return this.exports.incident(id, folder, step);
  }

  // --- what /metrics exposes (core/metrics reads these on each scrape) ---

  /** Every tag's last point and extremes in `run`, as the deltas left them (/metrics, runs.table). */
  lastPoints(run: string): ReadonlyMap<string, TagExtremes> {
    return this.tags.lastPoints(run);
  }

  /** The alerts active now, every run's (the machine pseudo-run's included). */
  activeAlerts(): AlertInfo[] {
    return [...this.alertService.activeAlerts(), ...this.jobs.monitor.activeAlerts()];
  }

  /** The threshold values the engine applies to `run`. */
  thresholdValues(run: string): Readonly<Thresholds> {
    return this.alertService.thresholdsOf(run).values;
  }

  /** The newest system sample, null before the first (or when sampling is off). */
  latestSystemSample(): SystemSnapshot | null {
    return this.system.latest();
  }

  // --- hosts' extras (tray, notifications, focus) ---

  trayModel(): TrayModel {
    return buildTrayModel(this.runs(), [...this.activeAlerts(), ...this.remotes.activeAlerts()], (run) =>
      this.keys.get(run),
    );
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

  /** Every notice is pushed and kept, so a client that connects later (a browser tab) still sees it. */
  private notice(n: AppNotice, scope: 'folder' | 'session' = 'folder'): void {
    if (!this.notices.some((x) => x.message === n.message)) {
      this.notices.push({ ...n, scope });
      if (this.notices.length > MAX_KEPT_NOTICES) this.notices.shift();
    }
    this.bus.emit('app.notice', n);
  }

  private attach(ws: Workspace): (() => void)[] {
    return [
      ws.on('series.appended', (d) => this.onDelta(d)),
      ws.on('run.reading', (run) => this.alertService.reading(run)),
      ws.on('run.read', (run) => this.alertService.read(run)),
      // The next delta's `from` says where the view continues; trackers and the engine follow it then.
      ws.on('series.reset', (r) => this.bus.emit('series.reset', r)),
      ws.on('runs.changed', (runs) => this.onRuns(runs)),
      ws.on('load.progress', (p) => this.bus.emit('load.progress', p)),
      ws.on('app.notice', (n) => this.notice(n)),
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
    if (this.root === null) return;
    const touched = this.trainers.note(snap);
    this.alertService.onSnapshot(snap);
    // A trainer found, or seen gone: the run list says so (a head shows a remote run's trainer from it).
    if (touched.size > 0) this.pushIfMoved(touched);
  }

  private onDelta(d: SeriesDelta): void {
    this.keys.observe(d);
    this.tags.observe(d);
    // Points first, then the alerts they caused: the renderer can place the marker on a drawn point.
    this.bus.emit('series.appended', d);
    this.alertService.feed(d);
  }

  private onRuns(runs: RunInfo[]): void {
    this.runMeta.record(this.root, runs);
    const overlaid = runs.map((r) => this.overlay.apply(r));
    this.overlay.pushedAll(overlaid);
    this.bus.emit('runs.changed', [...overlaid, ...this.remotes.runs()]);
    this.giveSamplerRuns();
    // Finished runs: a stalled alert clears (after the list that says they finished).
    this.alertService.onRuns(runs);
  }

  private samplerRunsDue = false;
  /** Bumped as a folder closes: a sampler start queued for it is dropped. */
  private folderGen = 0;

  /** The sampler starts (or is given the runs) after the list goes out and once the page's first chart is drawn (or
   * the gate's bound passed), as first reads' judging does: its first look at 10k run folders (a realpath each, then
   * every process's open files) ran beside the page's first screen (#36). A burst of lists gives it the last. */
  private giveSamplerRuns(): void {
    if (this.samplerRunsDue) return;
    this.samplerRunsDue = true;
    const gen = this.folderGen;
    void this.firstScreen.opened().then(() => {
      if (gen !== this.folderGen) return;
      this.samplerRunsDue = false;
      if (!this.disposed && this.root !== null) this.system.start(this.ws.runDirs());
    });
  }

  /** Alert changes go out as they are; runs.changed follows when a run's overlay (worst alert, stalled) moved. */
  private onAlerts(batch: AlertBatch): void {
    for (const c of batch.changes) this.bus.emit('alerts.changed', c);
    this.pushIfMoved(
      new Set([...batch.changes.map((c) => c.alert.run), ...(batch.statuses ?? []).map((s) => s.run)]),
    );
  }

  /** runs.changed, when the overlay of one of `touched` moved away from what was pushed. Only the touched runs are
   * looked at first (a run of this folder by name): every run's info per alert batch cost ~0.1 s with 10k runs. */
  private pushIfMoved(touched: ReadonlySet<string>): void {
    const local = [...touched].map((run) => this.ws.runInfoOf(run));
    const seen = local.every((r) => r !== null) ? local.map((r) => this.overlay.apply(r!)) : this.runs();
    if (!this.overlay.moved(seen, touched)) return;
    const all = this.runs();
    this.overlay.pushedAll(all);
    this.bus.emit('runs.changed', all);
  }
}
