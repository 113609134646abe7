// The NDJSON lines of `rlwatch watch --json` (command-line contract), built from workspace and sampler events.

import type {
  Alert,
  AlertChange,
  AlertStatistic,
  AppNotice,
  EndpointState,
  RunInfo,
  SeriesDelta,
  SeriesReset,
} from '../../shared/domain';
import type { JobInfo, JobNode } from '../../shared/job-types';
import type { SystemSnapshot, SystemWatchLine } from '../../shared/system-types';
import type { AlertTransition } from '../health';
import type { ProgressInfo } from '../readers/types';
import { toSystemWatchLine } from '../system/watch-line';

export interface ScalarsLine {
  t: number;
  type: 'scalars';
  run: string;
  tag: string;
  /** [step, wallTime (s), value]; a non-finite value is null (JSON has no NaN/Infinity), and so is the wall
   * time of a point whose source logs none. */
  points: [number, number | null, number | null][];
}

/** A run appeared or went away, or its status changed: stalled (silent past its own rhythm), exited (its trainer
 * process is gone; its files cannot say whether it finished), or live again. */
export interface RunLine {
  t: number;
  type: 'run';
  run: string;
  state: 'discovered' | 'removed' | 'stalled' | 'exited' | 'crashed' | 'live';
}

export interface ProgressLine extends Record<string, unknown> {
  t: number;
  type: 'progress';
  run: string;
  fraction: number | null;
  etaSeconds: number | null;
}

export interface AlertLine {
  t: number;
  type: 'alert';
  run: string;
  rule: string;
  severity: 'warning' | 'critical';
  /** An escalation (warning → critical) is the same incident, same id, at a higher severity: not a new alert. */
  state: 'raised' | 'escalated' | 'cleared';
  /** The firing text; on a cleared line, why it cleared where the rule says ("Cleared: node-b caught up …"). */
  message: string;
  /** The logged point the line cites: `value` is what the file holds for `tag` at `step` (a raise cites the point
   * that tripped the rule, a clear the point that cleared it; a stalled run its last step and the silence in s). */
  tag: string | null;
  step: number | null;
  /** Seconds since epoch of that point, as logged. */
  wallTime: number | null;
  value: number | null;
  /** Every tag the incident covers. */
  tags: string[];
  /** What the rule judged besides the point (a median, a baseline), or null. */
  statistic: AlertStatistic | null;
  /** The alert's id, as the app shows it (`rlwatch export PATH --incident ID` takes it). */
  id: string;
  /** Present (true) on a raise from the first read of a run last written over an hour before it was opened:
   * history, recorded and cleared at once; `--exit-on critical` does not exit on it. */
  history?: true;
}

/** A problem for the whole folder (unreadable folder, symlink loop, discovery limit). */
export interface NoticeLine {
  t: number;
  type: 'notice';
  level: AppNotice['level'];
  message: string;
}

/** A read error in one file of a run: what the reader kept is still shown; this says where it stopped. */
export interface ErrorLine {
  t: number;
  type: 'error';
  run: string;
  file: string;
  offset: number;
  kind: string;
  message: string;
}

/** Points of a tag already printed no longer stand (a restart cut them, or the file was truncated). */
export interface ResetLine {
  t: number;
  type: 'reset';
  run: string;
  tag: string;
  reason: SeriesReset['reason'];
}

/** A remote endpoint's link changed state (`watch --remote`). */
export interface EndpointLine {
  t: number;
  type: 'endpoint';
  endpoint: string;
  state: EndpointState;
  /** Why it is not connected, when it says. */
  error: string | null;
}

/** A job across nodes changed shape: a node joined or left, or a node's state or the job's worst alert changed. */
export interface JobLine {
  t: number;
  type: 'job';
  job: string;
  grouping: JobInfo['grouping'];
  nodes: Pick<
    JobNode,
    'node' | 'host' | 'run' | 'state' | 'step' | 'lastWriteAt' | 'connected' | 'gpuUtilPct'
  >[];
  stepMin: number | null;
  stepMax: number | null;
  worstAlert: JobInfo['worstAlert'];
}

/** What the alert pipeline prints: alert lines, and run lines for stalled / live statuses. */
export type AlertFeedLine = AlertLine | RunLine;

export type WatchLine =
  | ScalarsLine
  | RunLine
  | ProgressLine
  | AlertLine
  | SystemWatchLine
  | NoticeLine
  | ErrorLine
  | ResetLine
  | EndpointLine
  | JobLine;

export function scalarsLine(d: SeriesDelta, t: number): ScalarsLine {
  // A plain loop: Array.from over a typed array with a map function cost ~3 µs a delta, one per tag per append
  // (2,500 a second with 50 runs × 50 tags: 5 % of `watch`'s busy time, #36).
  const points: ScalarsLine['points'] = new Array(d.steps.length);
  for (let i = 0; i < d.steps.length; i++) {
    const v = d.values[i]!;
    const w = d.wallTimes[i]!;
    points[i] = [d.steps[i]!, Number.isFinite(w) ? w : null, Number.isFinite(v) ? v : null];
  }
  return { t, type: 'scalars', run: d.run, tag: d.tag, points };
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

/** The point an alert line cites: the one that tripped the rule, or the one that cleared it. */
interface Cited {
  tag: string | null;
  step: number;
  wallTime: number | null;
  value: number;
}

function lineOf(a: Alert, state: AlertLine['state'], cited: Cited, t: number): AlertLine {
  return {
    t,
    type: 'alert',
    run: a.run,
    rule: a.rule,
    severity: a.severity,
    state,
    message: a.message,
    tag: cited.tag,
    step: finiteOrNull(cited.step),
    wallTime: cited.wallTime,
    value: finiteOrNull(cited.value),
    tags: a.tags,
    statistic: a.statistic,
    id: a.id,
  };
}

/** An engine transition as the contract's alert line: one incident is raised once; an escalation says so. */
export function alertLine(tr: AlertTransition, t: number): AlertLine {
  if (tr.kind === 'cleared') return clearedLine(lineOf(tr.alert, tr.kind, tr, t), tr.because);
  const line = lineOf(tr.alert, tr.kind, tr.alert, t);
  return tr.history ? { ...line, history: true } : line;
}

/** A cleared line says why it cleared, where that is known, instead of the firing text again. */
const clearedLine = (line: AlertLine, because: string | undefined): AlertLine =>
  because === undefined ? line : { ...line, message: `Cleared: ${because}.` };

/** Whether `--exit-on critical` exits on this line: a critical raised or escalated now, not history. */
export function exitsOnCritical(line: WatchLine): boolean {
  return line.type === 'alert' && line.state !== 'cleared' && line.severity === 'critical' && !line.history;
}

/** An alert change from elsewhere (a remote endpoint, the job rules) as an alert line; an ack or snooze is none.
 * A cleared one cites the step that cleared it where it says, and no value (the change does not carry it); its
 * message says why it cleared where the alert says (`clearedBecause`), not the firing text again. */
export function alertChangeLine(c: AlertChange, t: number): AlertLine | null {
  if (c.kind === 'updated') return null;
  const a = c.alert;
  if (c.kind !== 'cleared') return lineOf(a, c.kind, a, t);
  const cited = { tag: a.tag, step: a.clearedStep ?? a.step, wallTime: a.clearedWallTime, value: NaN };
  return clearedLine(lineOf(a, c.kind, cited, t), a.clearedBecause);
}

export function jobLine(j: JobInfo, t: number): JobLine {
  return {
    t,
    type: 'job',
    job: j.name,
    grouping: j.grouping,
    nodes: j.nodes.map(({ node, host, run, state, step, lastWriteAt, connected, gpuUtilPct }) => ({
      node,
      host,
      run,
      state,
      step,
      lastWriteAt,
      connected,
      gpuUtilPct,
    })),
    stepMin: j.stepMin,
    stepMax: j.stepMax,
    worstAlert: j.worstAlert,
  };
}

export function progressLine(run: string, p: ProgressInfo, t: number): ProgressLine {
  // Raw fields first so the contract's own keys always win.
  return { ...p.fields, t, type: 'progress', run, fraction: p.fraction, etaSeconds: p.etaSeconds };
}

export function systemLine(s: SystemSnapshot, t: number): SystemWatchLine {
  return toSystemWatchLine(s, t);
}

/** Turns successive run lists into discovered/removed lines. */
export class RunTracker {
  private known = new Set<string>();

  diff(runs: RunInfo[], t: number): RunLine[] {
    const next = new Set(runs.map((r) => r.run));
    const lines: RunLine[] = [];
    for (const r of next) if (!this.known.has(r)) lines.push({ t, type: 'run', run: r, state: 'discovered' });
    for (const r of this.known) if (!next.has(r)) lines.push({ t, type: 'run', run: r, state: 'removed' });
    this.known = next;
    return lines;
  }
}

/** Turns successive run lists into one error line per read error not reported before. */
export class ReadErrorTracker {
  private readonly seen = new Set<string>();

  diff(runs: RunInfo[], t: number): ErrorLine[] {
    const lines: ErrorLine[] = [];
    for (const r of runs) {
      for (const src of r.sources) {
        for (const e of src.errors) {
          const key = JSON.stringify([r.run, src.file, e.offset, e.kind]);
          if (this.seen.has(key)) continue;
          this.seen.add(key);
          lines.push({ t, type: 'error', run: r.run, file: src.file, ...e });
        }
      }
    }
    return lines;
  }
}
