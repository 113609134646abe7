// Domain types shared by core, main and renderer: runs, sources, scalar points.

import type { ReadErrorKindName, SourceFormatName } from './formats';
import type { ErrorCode } from './result';
import type { RunProcess } from './system-types';

export interface SourceInfo {
  file: string;
  format: SourceFormatName;
  records: number;
  errors: { offset: number; kind: ReadErrorKindName; message: string }[];
  /** The file was deleted (or rotated away): its data stays, it gets no more points. */
  dead: boolean;
  /** Earlier contents of a file its writer cut short and rewrote (a restarted trainer): kept as a session. */
  rewritten?: boolean;
}

export type Severity = 'warning' | 'critical';

export interface RunInfo {
  /** Path relative to the opened folder; the folder's own run is named by the folder (discovery's rootRunName). */
  run: string;
  sources: SourceInfo[];
  tags: string[];
  points: number;
  /** ms since epoch of the newest point's wall time, null before any point. */
  lastEventAt: number | null;
  /** ms since epoch of the newest source file mtime. */
  fileWrittenAt: number | null;
  progress: { fraction: number | null; etaSeconds: number | null } | null;
  /** Every source has been read once (a cold open loads runs progressively). */
  loaded: boolean;
  /** How many times a step went backwards (a restart from a checkpoint) in any tag. */
  restarts: number;
  /** The run's sessions (those of the tag that restarted most): each restart starts one; empty before any point. */
  sessions: SessionInfo[];
  /** Worst active alert of the run, null when healthy. */
  worstAlert: Severity | null;
  /** The health engine thinks the run stopped writing while it looked alive. */
  stalled: boolean;
  /** A silent run judged stopped (health/stop-evidence.ts): exited before its planned end or while its siblings
   * kept writing, stalled with no such evidence, ended at its planned end; with the reason in words. Absent or
   * null while it writes (or when nothing judged it). */
  stop?: RunStop | null;
  /** How the run ended, where its files say: W&B's exit record (its exit code), or a W&B log cut off
   * mid-record that stopped growing (crashed). Absent or null while running or when unknown. */
  ended?: RunEnd | null;
  /** What the machine reading the run knows of its training process (system/training-process.ts). Absent or null
   * while none was found. A remote run's is its agent's: the head's own process table knows nothing of it. */
  trainer?: RunTrainer | null;
  /** The remote rlwatch endpoint this run comes from (its host label, `127.0.0.1:7070`); absent for a local run.
   * A remote run's `run` is then its key `HOST//NAME` (shared/run-key.ts). */
  host?: string;
  /** The job its writer belongs to, as its agent said (`--job NAME`); absent when none was given. */
  job?: string;
  /** The node it was written on, as its agent said (`--node`, default the host name); absent without `--job`. */
  node?: string;
  /** Points the memory cap thinned away (series/memory-cap.ts): `kept` of `read` points held, in the series it
   * thinned into min/max envelopes. Absent or null when none were. */
  thinned?: { kept: number; read: number } | null;
}

export type RunEnd = 'finished' | 'crashed';

/** A run's training process as its reader knows it: `alive` with the processes found, or `exited` once every one
 * known was seen gone (the processes as last found). */
export interface RunTrainer {
  state: 'alive' | 'exited';
  processes: RunProcess[];
  /** ms since epoch: the sample that found them gone; null while alive. */
  exitedAt: number | null;
}

/** What a silent run's evidence says: exited (before its end), stalled (no evidence either way), ended (at its end). */
export type RunStopState = 'exited' | 'crashed' | 'stalled' | 'ended';

export interface RunStop {
  state: RunStopState;
  reason: string;
}

/** A restart: the step went back to `step`; later points of the old segment left the live view. */
export interface RestartMark {
  step: number;
  /** Seconds since epoch of the first point after the restart; NaN when it has none. */
  wallTime: number;
  /** Points of the old segment dropped from the live view (still kept, not shown). */
  dropped: number;
}

/** One session of a series: the points written between two restarts (or since the last), in write order. */
export interface SessionInfo {
  /** 1-based, in write order; the last is the current session. */
  index: number;
  startStep: number;
  endStep: number;
  /** Seconds since epoch of its first and last point; null where the source holds no times. */
  startWall: number | null;
  endWall: number | null;
  points: number;
}

/** Display-ready points of one series over an x-range, downsampled in the core (per-pixel min/max). */
export interface SeriesWindow {
  run: string;
  tag: string;
  steps: Float64Array;
  /** Seconds since epoch, exactly as logged; NaN where the source has none. */
  wallTimes: Float64Array;
  /** NaN and ±Infinity survive (typed arrays cross both transports losslessly). */
  values: Float64Array;
  /** Points in the live view when this answer was made: deltas continue from this index. */
  length: number;
  /** Full-resolution points inside the requested range. */
  inRange: number;
  downsampled: boolean;
  /** Extent of the whole live view, for zoom-out limits; null when empty. `wallMin`/`wallMax` are over the
   * points with a wall time, NaN when none has one. */
  extent: { stepMin: number; stepMax: number; wallMin: number; wallMax: number } | null;
  restarts: RestartMark[];
  /** Every session of the series (one when it never restarted, none when empty). */
  sessions: SessionInfo[];
  /** Set when the window shows one earlier session's own points (`series.get {session}`), not the live view. */
  session?: number;
  /** Points of the whole live view without a wall time (NaN: their source logs none, e.g. trainer_state.json
   * or a CSV without a time column). A chart draws such a series by step whatever its x-axis setting. */
  untimed: number;
}

/** Points appended to one series' live view, full resolution, starting at index `from`. */
export interface SeriesDelta {
  run: string;
  tag: string;
  from: number;
  steps: Float64Array;
  wallTimes: Float64Array;
  values: Float64Array;
}

/** The live view changed other than by appending (restart, truncation) or grew too much to push: re-query it. */
export interface SeriesReset {
  run: string;
  tag: string;
  reason: 'restart' | 'truncated' | 'bulk';
}

export interface LoadProgress {
  phase: 'discovering' | 'reading' | 'done';
  runsFound: number;
  runsLoaded: number;
  bytesTotal: number;
  bytesRead: number;
}

/** A statistic an alert's rule judged (a window median, an early baseline, a ratio to it) and the steps it spans. */
export interface AlertStatistic {
  kind: 'median' | 'early-median' | 'mean';
  fromStep: number;
  toStep: number;
  value: number;
}

/** Another tag of the run that jumped sharply, against its own recent history, when an incident began. */
export interface CoMover {
  tag: string;
  /** The step of its jump and the value it jumped to, as logged. */
  step: number;
  value: number;
  /** The median of its points before the jump. */
  baseline: number;
  /** value / baseline for a positive tag (×100, ÷50); null for a tag that crosses zero (its jump is in MADs). */
  ratio: number | null;
}

/**
 * One incident as the health engine raises it: one per run + rule + quantity (a metric role, whatever tags log
 * it) until it clears; a policy symptom (entropy, clip fraction…) starting with a KL incident joins it. It cites the
 * logged point that tripped it — `tag`, `step`, `wallTime`, `value` exactly as the file holds them — and any
 * statistic it judged beside that. The engine narrows `rule`.
 */
export interface Alert<Rule extends string = string> {
  /** The incident: run, rule, quantity and onset step (health/alert-id.ts). Ack and export address it. */
  id: string;
  rule: Rule;
  severity: Severity;
  run: string;
  /** The tag of the cited point; null for run-level rules without one (stalled run). */
  tag: string | null;
  /** Every tag this incident covers (the same quantity under several names, or the rules it grouped). */
  tags: string[];
  step: number;
  /** Seconds since epoch of the cited point, as logged; null when the source has none. */
  wallTime: number | null;
  value: number;
  /** What the rule judged besides the point (a median, a baseline); null when it judged the point itself. */
  statistic: AlertStatistic | null;
  message: string;
  advice: string | null;
  /** The run's other tags that moved sharply when it began, strongest first (at most 3); absent or [] when none. */
  changed?: CoMover[];
  /** ms since epoch when raised. */
  raisedAt: number;
  acknowledged: boolean;
  /** ms since epoch until which notifications are muted; null when not snoozed. */
  snoozedUntil: number | null;
}

/** An alert as the contract shows it: the incident plus whether it is still active and how it ended. */
export interface AlertInfo extends Alert {
  active: boolean;
  clearedAt: number | null;
  clearedStep: number | null;
  /** Seconds since epoch of the logged point that cleared it (null: cleared by an event, or still active). */
  clearedWallTime: number | null;
  /** Why it cleared, in words ("node-b caught up (2 steps behind the lead, within 50)", "handed over to
   * job-node-silent: …"); absent while active or where the rule does not say. A cleared line shows it instead of
   * the firing text. */
  clearedBecause?: string;
}

/** An incident snapshot written from an alert (export.incident, `rlwatch export --incident`): what went where. */
export interface IncidentSnapshot {
  /** The alert's id. */
  id: string;
  /** The snapshot's folder and its report.md. */
  folder: string;
  report: string;
  /** Steps in [min, max] are in window.csv and the figure. */
  window: { min: number; max: number };
  written: { path: string; bytes: number }[];
  /** Files that could not be written, each with the reason (the rest were written). */
  failed: { path: string; message: string }[];
}

/** The worse of two severities (null = healthy): the one rule for run dots, the tray icon and overlays. */
export const worseSeverity = (a: Severity | null, b: Severity | null): Severity | null =>
  a === 'critical' || b === 'critical' ? 'critical' : (a ?? b);

export interface AlertChange {
  kind: 'raised' | 'escalated' | 'cleared' | 'updated';
  alert: AlertInfo;
}

/** Ask the window to show a run (a notification or tray item was clicked). */
export interface AppFocus {
  run: string;
  tag: string | null;
  step: number | null;
}

/** A notification the app decided to show (the limiter's output): the desktop shows it natively, a browser tab through the Notification API. */
export interface AppNotification {
  run: string;
  title: string;
  body: string;
  /** Where a click should take the window. */
  focus: AppFocus;
}

export interface RecentRunInfo {
  path: string;
  lastOpened: number;
}

/** Seed 003's end-of-training summary for epoch-based runs. */
export interface EpochSummary {
  epochs: number;
  /** Each row's last finite value; `nonFiniteAfter` counts the NaN/±Inf points logged after it (absent when none). */
  sections: { title: string; rows: { tag: string; value: number; nonFiniteAfter?: number }[] }[];
  bestReward: { tag: string; value: number; epoch: number } | null;
  lowestLoss: { tag: string; value: number; epoch: number } | null;
}

/** Where a health threshold's value came from: the user's settings, the run's own config, or the catalog default. */
export type ThresholdOrigin = 'user' | 'run-config' | 'default';

/** One health threshold exactly as the engine resolved it for a run. */
export interface ResolvedThreshold {
  key: string;
  value: number;
  origin: ThresholdOrigin;
  /** The config entry it came from (`ppo.target_kl`), when its origin is the run's config. */
  configPath?: string;
}

export interface RunDetails {
  run: string;
  /** The run's config.json (or trainer/W&B config), null when none. */
  config: Record<string, unknown> | null;
  progress: {
    fraction: number | null;
    etaSeconds: number | null;
    fields: Record<string, number | string | boolean | null>;
  } | null;
  epochSummary: EpochSummary | null;
  /** Tags that are system metrics the run logged itself (System/*, W&B system/*): shown beside live samples. */
  systemTags: string[];
  /** The health thresholds in force for this run, by key, with where each came from. */
  thresholds?: Record<string, ResolvedThreshold>;
  /** Classic RL or LLM RLHF, from the run's tags and config: descriptions and advice are worded for it. */
  scope?: 'classic' | 'llm';
}

/** Settings before the user changed anything (the core validates stored values against these). */
export const DEFAULT_SETTINGS: Readonly<Settings> = {
  theme: 'system',
  smoothing: 0.6,
  xAxis: 'step',
  logY: false,
  ignoreOutliers: false,
  earlierSessions: true,
  notifications: true,
  usePolling: false,
  stalledAfterMinutes: null,
  thresholds: {},
  exportFolder: null,
};

export interface Settings {
  theme: 'system' | 'light' | 'dark';
  smoothing: number;
  xAxis: 'step' | 'relative' | 'wall';
  logY: boolean;
  /**
   * Scale each chart's y-axis to the 5th–95th percentile of its values (TensorBoard's "ignore outliers"),
   * marking clipped points. Off by default: a spike is often the very thing to see (a KL blow-up).
   */
  ignoreOutliers: boolean;
  /** Draw a restarted run's earlier sessions (faded) beside the current one; on by default (a crash stays visible). */
  earlierSessions: boolean;
  notifications: boolean;
  usePolling: boolean;
  /** A fixed stalled-run limit; null (the default) judges each run's silence against its own logging rhythm. */
  stalledAfterMinutes: number | null;
  /** User threshold overrides (target_kl, entropy_min, …): they win over the run's config. */
  thresholds: Record<string, number>;
  /** The folder "Export run…" last wrote into (offered again next time); null before the first export. */
  exportFolder: string | null;
}

export interface AppInfo {
  version: string;
  mode: 'electron' | 'serve';
  root: string | null;
  canChooseFolder: boolean;
  /** Whether settings, recent runs and alert history persist; the reason when they do not. */
  store: { persistent: boolean; message: string | null };
  /** Polling is on, or suggested because the folder is on a network filesystem. */
  watch: { polling: boolean; suggestion: string | null };
  /** Notices raised so far (unreadable folders, symlink loops, a failing store…), for a client that
   * connects after they were pushed. */
  notices: AppNotice[];
}

export interface AppNotice {
  level: 'info' | 'warning' | 'error';
  message: string;
}

/** The state of the link to a remote endpoint. */
export type EndpointState = 'connecting' | 'connected' | 'disconnected' | 'auth-failed';

/** A remote rlwatch endpoint (another `serve` or `agent`) whose runs join the run list. */
export interface EndpointInfo {
  /** Its host label (`host:port`): the id for `endpoints.remove` and the prefix of its run keys. */
  id: string;
  /** The URL without its token. */
  url: string;
  state: EndpointState;
  /** ms since epoch when it entered this state. */
  since: number;
  /** Why the last connection failed or ended, when it did. */
  error: string | null;
  /** Runs kept from it (shown greyed while it is not connected). */
  runs: number;
  /** Messages from it refused so far (undecodable, or not the contract's shape). */
  dropped: number;
  /** Given on the command line for this session only (not saved in settings). */
  sessionOnly: boolean;
}
/** A chart exported as a standalone figure (export.figure): the file's bytes and the name to save it under. */
export interface ExportedFigure {
  fileName: string;
  mime: 'image/png' | 'image/svg+xml';
  bytes: Uint8Array;
  /** Size in image pixels (CSS size × scale for a PNG; the CSS size for an SVG). */
  width: number;
  height: number;
}

/** What "Export run…" wrote: every file written and every file that failed, with why. */
export interface RunExportResult {
  folder: string;
  written: { path: string; bytes: number }[];
  failed: { path: string; message: string }[];
}

/** export.run's answer: the export was checked and started; its files and end arrive as export.progress. */
export interface RunExportStarted {
  id: number;
  folder: string;
}

/**
 * A run export's progress (export.progress, by export id): each file finished or failed (`done` of `total`),
 * then exactly one end: `finished` with what was written, or `failed` with a typed error.
 */
export type ExportProgress = { id: number; folder: string } & (
  | { kind: 'file'; path: string; ok: boolean; message?: string; done: number; total: number }
  | { kind: 'finished'; result: RunExportResult }
  | { kind: 'failed'; error: { code: ErrorCode; message: string } }
);
