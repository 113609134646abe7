// The dashboard's live state: runs, selection, details, alerts, system samples, load progress and notices, fed by the Backend.

import type {
  AlertInfo,
  AppInfo,
  AppNotice,
  EndpointInfo,
  LoadProgress,
  RecentRunInfo,
  RunDetails,
  RunInfo,
} from '../../../shared/domain';
import type { JobInfo } from '../../../shared/job-types';
import type { NvidiaStatus, SystemSnapshot } from '../../../shared/system-types';
import { PendingAlerts } from '../../../shared/alert-changes';
import { Coalescer } from '../../../shared/coalescer';
import { NoticeList, type Notice } from '../../../shared/notice-list';
import { RunListStream } from '../../../shared/run-list-delta';
import type { Backend } from '../backend/backend';
import { SettingsStore } from './settings.svelte';

/** Where to scroll and which step to mark, from an alert click or `app.focus`. */
export interface FocusTarget {
  run: string;
  tag: string | null;
  step: number | null;
  /** Bumped per request so focusing the same chart twice scrolls again. */
  seq: number;
}

/** Samples kept for the sparklines (a little over 5 minutes at 1 Hz). */
const HISTORY_LIMIT = 330;
const CLEARED_LIMIT = 20;
/** How long a focused chart stays highlighted. */
const FOCUS_MS = 8_000;
/** Pushed alert changes and notices are drawn at most this often: a burst (a flooding remote) is one apply. */
const APPLY_GAP_MS = 100;

export class AppState {
  connection = $state<'connecting' | 'connected' | 'reconnecting'>('connecting');
  info = $state.raw<AppInfo | null>(null);
  runs = $state.raw<RunInfo[]>([]);
  selected = $state<string | null>(null);
  /** Further runs drawn on the same charts as the selected one. */
  overlay = $state<string[]>([]);
  details = $state.raw<RunDetails | null>(null);
  detailsError = $state<string | null>(null);
  alerts = $state.raw<AlertInfo[]>([]);
  alertsError = $state<string | null>(null);
  system = $state.raw<SystemSnapshot | null>(null);
  history = $state.raw<SystemSnapshot[]>([]);
  /** The NVIDIA source's state, replaced only when its kind changes (so the panel line never flickers). */
  nvidia = $state.raw<NvidiaStatus>({ state: 'pending' });
  load = $state.raw<LoadProgress | null>(null);
  /** Recently opened folders (only where this host can open folders: the desktop app). */
  recent = $state.raw<RecentRunInfo[]>([]);
  notices = $state.raw<Notice[]>([]);
  /** Notices let go to keep the list bounded. */
  noticesDropped = $state(0);
  /** Remote rlwatch endpoints whose runs are in the list, with their link state. */
  endpoints = $state.raw<EndpointInfo[]>([]);
  /** Runs of several nodes grouped into jobs, each node with its state against the others. */
  jobs = $state.raw<JobInfo[]>([]);
  focus = $state.raw<FocusTarget | null>(null);
  /** Ticks every second so "12 s ago" stays true. */
  now = $state(Date.now());
  readonly settings: SettingsStore;

  private readonly noticeList = new NoticeList();
  private readonly pendingAlerts = new PendingAlerts();
  private readonly applier = new Coalescer(() => this.apply(), APPLY_GAP_MS);
  /** runs.changed as changes from the runs.list answer on (a whole 10k-run list is 2.85 MB a push, #36). */
  private readonly runList = new RunListStream();
  private resyncing = false;
  private detailsTimer: ReturnType<typeof setTimeout> | null = null;
  private detailsSeq = 0;
  private storeNoticeShown = false;
  private readonly disposers: (() => void)[] = [];

  constructor(readonly backend: Backend) {
    this.settings = new SettingsStore(backend);
  }

  /** The runs the charts draw: the selected one first, then the overlaid ones. */
  get chartRuns(): string[] {
    return this.selected === null ? [] : [this.selected, ...this.overlay.filter((r) => r !== this.selected)];
  }

  get selectedRun(): RunInfo | null {
    return this.runs.find((r) => r.run === this.selected) ?? null;
  }

  get activeAlerts(): AlertInfo[] {
    const rank = (a: AlertInfo): number => (a.severity === 'critical' ? 0 : 1);
    return this.alerts.filter((a) => a.active).sort((a, b) => rank(a) - rank(b) || b.raisedAt - a.raisedAt);
  }

  get clearedAlerts(): AlertInfo[] {
    return this.alerts
      .filter((a) => !a.active)
      .sort((a, b) => (b.clearedAt ?? 0) - (a.clearedAt ?? 0))
      .slice(0, CLEARED_LIMIT);
  }

  start(): () => void {
    const b = this.backend;
    this.disposers.push(
      b.onConnection((s) => {
        this.connection = s;
        if (s === 'connected') void this.refresh();
      }),
      b.on('runs.changed', (payload) => {
        const runs = this.runList.take(payload, () => void this.resyncRuns());
        if (runs === null) return;
        this.setRuns(runs);
        // Asked before the folder was open (serve prints its URL early): the root is known now.
        if (this.info !== null && this.info.root === null && this.info.mode === 'serve')
          void this.reloadInfo();
      }),
      b.on('alerts.changed', (c) => this.upsertAlert(c.alert)),
      b.on('system.snapshot', (s) => this.addSnapshot(s)),
      b.on('load.progress', (p) => (this.load = p)),
      b.on('app.notice', (n) => this.notify(n)),
      b.on('app.focus', (f) => this.focusOn(f.run, f.tag, f.step)),
      b.on('endpoints.changed', (e) => (this.endpoints = e)),
      b.on('jobs.changed', (j) => (this.jobs = j)),
    );
    const tick = setInterval(() => (this.now = Date.now()), 1000);
    const onVisibility = (): void => {
      void b.invoke('app.visibility', { visible: document.visibilityState === 'visible' });
    };
    document.addEventListener('visibilitychange', onVisibility);
    this.disposers.push(
      () => this.applier.cancel(),
      () => clearInterval(tick),
      () => document.removeEventListener('visibilitychange', onVisibility),
    );
    return () => this.disposers.splice(0).forEach((d) => d());
  }

  /** Everything a (re)connected backend can tell: info, settings, runs, alerts, system history. */
  async refresh(): Promise<void> {
    const b = this.backend;
    // One round trip: everything the first screen needs is asked at once (the charts wait on runs.list). Settings
    // are applied when they come, not waited for: the charts ask for their series meanwhile (#36; what settings
    // change, the charts take in place: colours, smoothing, axes, earlier sessions; none fetches a series again).
    const settings = this.settings.load();
    const [info, runs, alerts, history, endpoints, jobs] = await Promise.all([
      b.invoke('app.info', {}),
      // The stream's list 0 as soon as it comes: pushes after it are its changes.
      b.invoke('runs.list', { deltas: true }).then((r) => {
        if (r.ok) this.runList.answered(r.value);
        return r;
      }),
      b.invoke('alerts.list', {}),
      b.invoke('system.history', { sinceMs: Date.now() - 10 * 60_000 }),
      b.invoke('endpoints.list', {}),
      b.invoke('jobs.list', {}),
    ]);
    if (info.ok) {
      this.info = info.value;
      // Notices pushed before this client connected (or while it was away).
      for (const n of info.value.notices) this.notify(n);
      const store = info.value.store;
      if (!store.persistent && !this.storeNoticeShown) {
        this.storeNoticeShown = true;
        this.notify({
          level: 'info',
          // The store's reason is a sentence of its own: no "(….)." doubled stop.
          message: `Settings and alert history are kept only while rlwatch runs${store.message ? ` (${store.message.replace(/\.$/, '')})` : ''}.`,
        });
      }
      if (info.value.watch.suggestion) this.notify({ level: 'info', message: info.value.watch.suggestion });
    }
    if (endpoints.ok) this.endpoints = endpoints.value;
    if (jobs.ok) this.jobs = jobs.value;
    // With the changes pushed since the answer (a delta applied before this line is not undone).
    if (runs.ok) this.setRuns(this.runList.runs ?? runs.value);
    else this.notify({ level: 'error', message: `Cannot list runs: ${runs.error.message}` });
    if (alerts.ok) {
      // Changes that came while the list was asked for are in it (as they were before batching).
      this.pendingAlerts.clear();
      this.alerts = alerts.value;
      this.alertsError = null;
    } else this.alertsError = alerts.error.message;
    if (history.ok && history.value.length > 0) {
      this.history = history.value.slice(-HISTORY_LIMIT);
      const last = history.value[history.value.length - 1]!;
      if (!this.system || last.t > this.system.t) this.addSnapshot(last, false);
    }
    if (info.ok && info.value.canChooseFolder) {
      const recent = await b.invoke('runs.recent', {});
      this.recent = recent.ok ? recent.value : [];
    }
    await settings;
  }

  /** A runs.changed push that did not follow the list this page has (shared/run-list-delta.ts): the whole list again,
   * which starts the stream afresh. */
  private async resyncRuns(): Promise<void> {
    if (this.resyncing) return;
    this.resyncing = true;
    try {
      const runs = await this.backend.invoke('runs.list', { deltas: true });
      if (!runs.ok) return;
      this.runList.answered(runs.value);
      this.setRuns(runs.value);
    } finally {
      this.resyncing = false;
    }
  }

  private infoAsked = false;

  /** app.info again (once at a time): the open folder's root, once it is set. */
  private async reloadInfo(): Promise<void> {
    if (this.infoAsked) return;
    this.infoAsked = true;
    try {
      const info = await this.backend.invoke('app.info', {});
      if (info.ok) this.info = info.value;
    } finally {
      this.infoAsked = false;
    }
  }

  setRuns(runs: RunInfo[]): void {
    this.runs = runs;
    const names = new Set(runs.map((r) => r.run));
    if (this.overlay.some((r) => !names.has(r))) this.overlay = this.overlay.filter((r) => names.has(r));
    if (this.selected === null || !names.has(this.selected)) {
      const first = runs[0];
      this.select(first ? first.run : null);
    } else this.scheduleDetails(2000);
  }

  select(run: string | null): void {
    if (run === this.selected) return;
    this.selected = run;
    this.overlay = this.overlay.filter((r) => r !== run);
    this.details = null;
    this.detailsError = null;
    this.scheduleDetails(0);
  }

  /** Charts `selected` with `overlay` on it (the run list's click rules, shared/run-selection). */
  setSelection(selected: string, overlay: readonly string[]): void {
    this.select(selected);
    this.overlay = overlay.filter((r) => r !== selected);
  }

  /** Charts `runs` together (a job's nodes): the selected run stays when it is one of them, the rest overlaid. */
  showRuns(runs: readonly string[]): void {
    const known = new Set(this.runs.map((r) => r.run));
    const shown = runs.filter((r) => known.has(r));
    if (shown.length === 0) return;
    this.select(this.selected !== null && shown.includes(this.selected) ? this.selected : shown[0]!);
    this.overlay = shown.filter((r) => r !== this.selected);
  }

  focusOn(run: string, tag: string | null, step: number | null): void {
    // Live-sample alerts belong to the machine, not a run: the system panel already shows them.
    if (!this.runs.some((r) => r.run === run)) return;
    this.select(run);
    const seq = (this.focus?.seq ?? 0) + 1;
    this.focus = { run, tag, step, seq };
    // The highlight is a pointer, not a mode: it goes after a while unless something else was focused.
    setTimeout(() => {
      if (this.focus?.seq === seq) this.focus = null;
    }, FOCUS_MS);
  }

  /** Opens another folder (desktop app): the picker when `path` is null, else a recent folder. */
  async openFolder(path: string | null): Promise<void> {
    const r =
      path === null
        ? await this.backend.invoke('runs.chooseFolder', {})
        : await this.backend.invoke('runs.openFolder', { path });
    if (!r.ok) this.notify({ level: 'error', message: r.error.message });
    else if (r.value) {
      this.selected = null;
      this.overlay = [];
      await this.refresh();
    }
  }

  /** Follows another rlwatch (the URL it printed); the error message when it was refused, else null. */
  async addEndpoint(url: string): Promise<string | null> {
    const r = await this.backend.invoke('endpoints.add', { url });
    return r.ok ? null : r.error.message;
  }

  async removeEndpoint(id: string): Promise<void> {
    const r = await this.backend.invoke('endpoints.remove', { id });
    if (!r.ok) this.notify({ level: 'error', message: `Could not remove ${id}: ${r.error.message}` });
  }

  /** Keeps `n` (once per message, at most MAX_NOTICES) and draws it with the next batch. */
  notify(n: AppNotice): void {
    if (this.noticeList.add(n)) this.applier.request();
  }

  dismiss(id: number): void {
    if (this.noticeList.dismiss(id)) this.applier.now();
  }

  async ack(id: string): Promise<void> {
    const r = await this.backend.invoke('alerts.ack', { id });
    if (r.ok) this.upsertAlert(r.value, true);
    else this.notify({ level: 'error', message: `Could not acknowledge the alert: ${r.error.message}` });
  }

  async snooze(id: string, minutes: number): Promise<void> {
    const r = await this.backend.invoke('alerts.snooze', { id, minutes });
    if (r.ok) this.upsertAlert(r.value, true);
    else this.notify({ level: 'error', message: `Could not snooze the alert: ${r.error.message}` });
  }

  /** Queues an alert's new state; `now` (the user's own ack or snooze) draws it at once, else with the next batch. */
  private upsertAlert(a: AlertInfo, now = false): void {
    this.pendingAlerts.add(a);
    if (now) this.applier.now();
    else this.applier.request();
  }

  /** One state apply for everything pushed since the last: queued alert changes, then the notice list. */
  private apply(): void {
    if (this.pendingAlerts.size > 0) this.alerts = this.pendingAlerts.applyTo(this.alerts);
    const notices = this.noticeList.items();
    if (notices.length !== this.notices.length || notices.some((n, i) => n !== this.notices[i]))
      this.notices = notices;
    this.noticesDropped = this.noticeList.dropped;
  }

  private addSnapshot(s: SystemSnapshot, append = true): void {
    this.system = s;
    if (append) {
      const h = this.history.length >= HISTORY_LIMIT ? this.history.slice(1) : this.history.slice();
      h.push(s);
      this.history = h;
    }
    if (s.nvidia.state !== this.nvidia.state) this.nvidia = s.nvidia;
  }

  /** Details (config, progress fields, epoch summary) change slowly: refetched at most every couple of seconds. */
  private scheduleDetails(delayMs: number): void {
    if (this.detailsTimer !== null) {
      if (delayMs > 0) return;
      clearTimeout(this.detailsTimer);
    }
    this.detailsTimer = setTimeout(() => {
      this.detailsTimer = null;
      void this.loadDetails();
    }, delayMs);
  }

  private async loadDetails(): Promise<void> {
    const run = this.selected;
    if (run === null) return;
    const seq = ++this.detailsSeq;
    const r = await this.backend.invoke('runs.details', { run });
    if (seq !== this.detailsSeq || run !== this.selected) return;
    if (r.ok) {
      this.details = r.value;
      this.detailsError = null;
    } else this.detailsError = r.error.message;
  }
}
