// Whether a silent run stopped, judged on evidence in the order: its planned end, its siblings still writing, else a plain stall.

import { flattenConfig } from '../../shared/compare/seed-groups';
import { formatNumber } from '../../shared/format';
import type { RunStopState } from '../../shared/domain';
import type { CrashLog } from '../readers/crash-log';
import { median } from './stats';
import type { Thresholds } from './thresholds';

/** With no rhythm known at all (one write seen, no times in the file, no sibling), a stop needs this much silence. */
export const UNKNOWN_RHYTHM_S = 120;
/** A run whose last write was this long before rlwatch first saw it is history: shown, never alerted on. */
export const HISTORY_AFTER_MS = 60 * 60_000;
/** A first read holding at least this much logged time, all of it over HISTORY_AFTER_MS before rlwatch saw it, is
 * a copy of a run that ended (cp, scp, a download: fresh files, old logged times): history too. A live run's or a
 * replay's first read holds its first flushes, seconds of logged time. */
const COPY_SPAN_MS = 10 * 60_000;
/** A log beside the run that ends in a traceback is its crash only when written within this of its last write. */
export const CRASH_LOG_NEAR_MS = 5 * 60_000;
/** Siblings of one seed group or job started within this of each other (a rerun days later is no sibling). */
export const SIBLING_START_WINDOW_MS = 15 * 60_000;
/** A run this few typical step increments short of its planned total may simply have logged its last point. */
const END_SLACK_INCREMENTS = 2;

/** Config keys (leaf names) that state a run's planned total in steps (SB3/CleanRL, HF, custom loops). */
const STEP_TOTAL_KEYS = [
  'total_timesteps',
  'max_steps',
  'total_steps',
  'max_train_steps',
  'num_training_steps',
];
/** …and in epochs, compared with the run's logged epoch. */
const EPOCH_TOTAL_KEYS = ['num_train_epochs', 'total_epochs', 'max_epochs'];

/** Whether a tag counts epochs (`epoch`, `train/epoch`): what an epoch total is compared with. */
export const isEpochTag = (tag: string): boolean => /(^|\/)epoch$/i.test(tag);

/** The planned end a config states (positive totals only: HF's max_steps −1 means "use epochs"). */
export interface PlannedTotal {
  unit: 'steps' | 'epochs';
  total: number;
  key: string;
}

export function plannedTotal(config: Record<string, unknown> | null): PlannedTotal | null {
  if (config === null) return null;
  const flat = flattenConfig(config);
  const find = (keys: readonly string[]): { key: string; total: number } | null => {
    for (const want of keys)
      for (const [k, v] of flat) {
        const leaf = k.slice(k.lastIndexOf('.') + 1).toLowerCase();
        const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
        if (leaf === want && Number.isFinite(n) && n > 0) return { key: k, total: n };
      }
    return null;
  };
  const steps = find(STEP_TOTAL_KEYS);
  if (steps) return { unit: 'steps', ...steps };
  const epochs = find(EPOCH_TOTAL_KEYS);
  return epochs ? { unit: 'epochs', ...epochs } : null;
}

/** What the files and the run list tell about a run (set from the alert service on each run list). */
export interface RunFileFacts {
  /** ms: its newest file write or logged time (the run list's fileWrittenAt / lastEventAt). */
  lastWriteMs: number | null;
  /** Progress toward a planned end its progress file states (0..1), null when it states none. */
  progress: number | null;
  /** The planned end its config states. */
  planned: PlannedTotal | null;
  /** Runs of its seed group or job (itself excluded); empty when it has none. */
  siblings: readonly string[];
}

const SAME_WRITE_MS = 1000;
const GAPS_KEPT = 20;

/** Median of distinct gaps ≥ `minGap` between successive values of a rising quantity (bounded memory). */
class Rhythm {
  private last: number | null = null;
  private readonly gaps: number[] = [];

  constructor(private readonly minGap: number) {}

  note(x: number): void {
    if (!Number.isFinite(x)) return;
    if (this.last !== null && x - this.last >= this.minGap) {
      this.gaps.push(x - this.last);
      if (this.gaps.length > GAPS_KEPT) this.gaps.shift();
    }
    if (this.last === null || x - this.last >= this.minGap || x < this.last) this.last = x;
  }

  get latest(): number | null {
    return this.last;
  }

  /** The typical gap; null with fewer than two gaps seen. */
  typical(): number | null {
    return this.gaps.length >= 2 ? median(this.gaps) : null;
  }
}

/** One run's stop evidence as its points arrive: the rhythm of its logged times, its step, its epoch. */
export class RunStopTracker {
  /** Logged wall times (ms): the run's rhythm as its files hold it, known even for a run opened after it stopped. */
  private readonly walls = new Rhythm(SAME_WRITE_MS);
  /** Steps: how far one write moves them (the slack at a planned end). */
  private readonly steps = new Rhythm(Number.MIN_VALUE);
  /** Logged epochs: how far one write moves them. */
  private readonly epochs = new Rhythm(Number.MIN_VALUE);
  private firstWall: number | null = null;
  /** The oldest and newest logged times (ms) of any order: the span a copied run's first read holds. */
  private wallRange: [number, number] | null = null;
  lastStep: number | null = null;
  lastEpoch: number | null = null;
  /** Clock time rlwatch first saw the run (ms). */
  firstSeen: number | null = null;
  facts: RunFileFacts = { lastWriteMs: null, progress: null, planned: null, siblings: [] };
  /** A log beside the run that ends in a traceback (readers/crash-log.ts), once looked for after it fell silent. */
  crash: CrashLog | null = null;

  /** One point; `epoch` its value when its tag counts epochs (isEpochTag), else null. */
  note(now: number, step: number, wallTime: number, epoch: number | null): void {
    this.firstSeen ??= now;
    if (Number.isFinite(wallTime)) {
      const ms = wallTime * 1000;
      this.walls.note(ms);
      this.firstWall ??= ms;
      if (this.wallRange === null) this.wallRange = [ms, ms];
      else if (ms < this.wallRange[0]) this.wallRange[0] = ms;
      else if (ms > this.wallRange[1]) this.wallRange[1] = ms;
    }
    if (Number.isFinite(step) && (this.lastStep === null || step !== this.lastStep)) {
      this.steps.note(step);
      this.lastStep = this.lastStep === null ? step : Math.max(this.lastStep, step);
    }
    if (epoch !== null && Number.isFinite(epoch) && epoch !== this.lastEpoch) {
      this.epochs.note(epoch);
      this.lastEpoch = epoch;
    }
  }

  /** The run list's last write as it came (before a future one was moved to the clock). */
  private rawLastWrite: number | null = null;

  /** The run list's facts. A last write later than the clock (a file server's clock ahead of ours) counts at the
   * clock time it was first seen, and stays there until it changes: else that run could never fall silent. */
  setFacts(now: number, facts: RunFileFacts): void {
    this.firstSeen ??= now;
    const raw = facts.lastWriteMs;
    let lastWriteMs = raw;
    if (raw !== null && raw > now)
      lastWriteMs = raw === this.rawLastWrite ? (this.facts.lastWriteMs ?? now) : now;
    this.rawLastWrite = raw;
    this.facts = { ...facts, lastWriteMs };
  }

  /** ms: when it started, as its first logged time says; null when its files hold no times. */
  get startMs(): number | null {
    return this.firstWall;
  }

  /** Whether what it holds is a copied run's history, judged on its logged times: at least COPY_SPAN_MS of them,
   * the newest over HISTORY_AFTER_MS before it was first seen (the caller knows that nothing arrived since). */
  copiedHistory(): boolean {
    if (this.wallRange === null || this.firstSeen === null) return false;
    const [first, last] = this.wallRange;
    return last - first >= COPY_SPAN_MS && last < this.firstSeen - HISTORY_AFTER_MS;
  }

  wallTypicalMs(): number | null {
    return this.walls.typical();
  }

  lastWallMs(): number | null {
    return this.walls.latest;
  }

  /** Progress toward its planned end (0..1), its total and unit; null when no planned end is known. Within
   * END_SLACK_INCREMENTS of its typical step increment of the total, it counts as at its end (its last log). */
  plannedProgress(): { fraction: number; atEnd: boolean; text: string } | null {
    const { progress, planned } = this.facts;
    if (progress !== null) {
      return { fraction: progress, atEnd: progress >= 1, text: `${Math.round(progress * 100)} % of the run` };
    }
    if (planned === null) return null;
    const done = planned.unit === 'steps' ? this.lastStep : this.lastEpoch;
    if (done === null) return null;
    const inc = (planned.unit === 'steps' ? this.steps : this.epochs).typical() ?? 0;
    const atEnd = done + END_SLACK_INCREMENTS * inc >= planned.total;
    const fraction = Math.min(1, done / planned.total);
    const text = `${planned.unit === 'steps' ? 'step' : 'epoch'} ${formatNumber(done)} of ${formatNumber(planned.total)} (${planned.key})`;
    return { fraction, atEnd, text };
  }
}

/** What rlwatch knows of a run at a judgement: its tracker, its live rhythm and last arrival, its process. */
export interface StopInput {
  run: string;
  tracker: RunStopTracker;
  /** Typical gap between live arrivals (ms), null with too few. */
  liveTypicalMs: number | null;
  /** Clock time of the last live arrival (ms), null before any since its first read. */
  lastArrivalMs: number | null;
  processAlive: boolean;
}

/** A judged stop: the state the run shows, why, and whether an alert is due now. */
export interface StopVerdict {
  state: RunStopState;
  /** Words for the run list, the header and the alert. */
  reason: string;
  silentS: number;
  /** ms: its newest write (what a log's traceback must lie near to be its crash). */
  lastWriteMs: number;
  /** Raise this now: 'exited' / 'crashed' (critical: a stop before its end, a traceback), 'stalled' (warning at the
   * stall floor), none. */
  alert: 'exited' | 'crashed' | 'stalled' | null;
  /** Siblings still writing, when they are the evidence. */
  siblings: string[];
}

interface Judged {
  input: StopInput;
  lastWrite: number | null;
  typical: number | null;
}

/** Its newest write: the run list's, its newest logged time (unless ahead of the clock: a writer's clock is no
 * evidence of now), its last live arrival. */
function lastWriteOf(i: StopInput, now: number): number | null {
  const t = i.tracker;
  const wall = t.lastWallMs();
  const xs = [t.facts.lastWriteMs, wall !== null && wall <= now ? wall : null, i.lastArrivalMs].filter(
    (x): x is number => x !== null,
  );
  return xs.length > 0 ? Math.max(...xs) : null;
}

/**
 * Its stop deadline (ms of silence): max(stall_gap_factor × typical gap, stall_floor_s) — 2.5× and 25 s, so that a
 * stop is reported within the promised max(3 × the interval, 30 s) of the last write, the watcher's and the
 * tick's delays included — or UNKNOWN_RHYTHM_S with no rhythm known.
 */
export function stopDeadlineMs(typicalMs: number | null, th: Thresholds): number {
  return Math.max(
    th.stall_floor_s * 1000,
    typicalMs === null ? UNKNOWN_RHYTHM_S * 1000 : th.stall_gap_factor * typicalMs,
  );
}

const secs = (ms: number): number => Math.round(ms / 1000);
const every = (typical: number | null): string =>
  typical === null ? '' : ` (usually every ${formatNumber(typical / 1000, 2)} s)`;

/**
 * Judges every run at `now`. `skip` runs (finished, or their trainer's exit is already reported) get no verdict.
 * A run silent past its deadline (stopDeadlineMs) is `exited` when its planned end is known and not reached, or
 * when siblings of its seed group / job kept writing past its last step; else `stalled`. A stopped run that was
 * already history when first seen raises nothing.
 */
export function judgeStops(
  inputs: readonly StopInput[],
  now: number,
  thresholdsOf: (run: string) => Thresholds,
  skip: (run: string) => boolean,
): Map<string, StopVerdict> {
  const judged = new Map<string, Judged>();
  for (const input of inputs) {
    const own = input.liveTypicalMs ?? input.tracker.wallTypicalMs();
    judged.set(input.run, { input, lastWrite: lastWriteOf(input, now), typical: own });
  }
  // A run with no rhythm of its own keeps its siblings' (same config, same logger).
  for (const j of judged.values()) {
    if (j.typical !== null) continue;
    const sib = j.input.tracker.facts.siblings
      .map((s) => judged.get(s)?.typical ?? null)
      .filter((x): x is number => x !== null);
    if (sib.length > 0) j.typical = median(sib);
  }
  const out = new Map<string, StopVerdict>();
  for (const j of judged.values()) {
    const { input } = j;
    if (skip(input.run) || j.lastWrite === null) continue;
    const t = input.tracker;
    const silent = now - j.lastWrite;
    const th = thresholdsOf(input.run);
    // Last written long before it was first seen, or a copy of such a run with nothing new since its first read.
    const history =
      (t.firstSeen !== null && j.lastWrite < t.firstSeen - HISTORY_AFTER_MS) ||
      (input.lastArrivalMs === null && t.copiedHistory());
    const planned = t.plannedProgress();
    const deadline = stopDeadlineMs(j.typical, th);
    if (planned?.atEnd && silent > deadline) {
      out.set(input.run, {
        state: 'ended',
        reason: `reached its planned end: ${planned.text}`,
        silentS: secs(silent),
        lastWriteMs: j.lastWrite,
        alert: null,
        siblings: [],
      });
      continue;
    }
    if (planned?.atEnd) continue;
    // A log beside it ends in a traceback written when it stopped: it crashed (its process alive: it hangs after it).
    const crash = t.crash;
    if (
      crash !== null &&
      !input.processAlive &&
      silent > deadline &&
      Math.abs(crash.mtimeMs - j.lastWrite) <= CRASH_LOG_NEAR_MS
    ) {
      out.set(input.run, {
        state: 'crashed',
        reason: `crashed: its log "${crash.file}" ends in a traceback: ${crash.line}; no write for ${secs(silent)} s`,
        silentS: secs(silent),
        lastWriteMs: j.lastWrite,
        alert: history ? null : 'crashed',
        siblings: [],
      });
      continue;
    }
    const siblings = siblingsWriting(j, judged, now, thresholdsOf);
    const evidence = planned !== null || siblings.length > 0;
    if (evidence && silent > deadline) {
      const because =
        planned !== null
          ? `stopped writing at ${planned.text}`
          : `stopped writing while its siblings ${siblings.join(', ')} (its seed group or job) kept writing past its step ${formatNumber(t.lastStep ?? Number.NaN)}`;
      // Its process still alive: it hangs before its end (stalled, as critical); else it exited before its end.
      const hang = input.processAlive;
      out.set(input.run, {
        state: hang ? 'stalled' : 'exited',
        reason: `${hang ? 'hung before its end' : 'exited before its end'}: ${because}; no write for ${secs(silent)} s${every(j.typical)}${hang ? ' while its trainer process is alive' : ''}`,
        silentS: secs(silent),
        lastWriteMs: j.lastWrite,
        alert: history ? null : 'exited',
        siblings,
      });
      continue;
    }
    // No evidence (or none yet): stalled, on the run's own writes; history shows no stall.
    if (history || silent <= deadline) continue;
    const floor = input.processAlive
      ? Math.min(th.stall_hang_floor_s, th.stall_alert_floor_s)
      : th.stall_alert_floor_s;
    const alertAfter = Math.max(floor * 1000, th.stall_alert_gap_factor * (j.typical ?? 0));
    out.set(input.run, {
      state: 'stalled',
      reason: `no new data for ${secs(silent)} s${every(j.typical)}${input.processAlive ? ' while its trainer process is alive: a hang' : ''}`,
      silentS: secs(silent),
      lastWriteMs: j.lastWrite,
      alert: silent > alertAfter ? 'stalled' : null,
      siblings: [],
    });
  }
  return out;
}

/** Siblings that kept their rhythm (silent no longer than their own deadline), went past its last step, and
 * started within SIBLING_START_WINDOW_MS of it (where both starts are known). */
function siblingsWriting(
  j: Judged,
  judged: ReadonlyMap<string, Judged>,
  now: number,
  thresholdsOf: (run: string) => Thresholds,
): string[] {
  const t = j.input.tracker;
  const out: string[] = [];
  for (const name of t.facts.siblings) {
    const s = judged.get(name);
    if (!s || s.lastWrite === null) continue;
    if (now - s.lastWrite > stopDeadlineMs(s.typical, thresholdsOf(name))) continue;
    const st = s.input.tracker;
    if (t.lastStep === null || st.lastStep === null || st.lastStep <= t.lastStep) continue;
    if (
      t.startMs !== null &&
      st.startMs !== null &&
      Math.abs(t.startMs - st.startMs) > SIBLING_START_WINDOW_MS
    )
      continue;
    out.push(name);
  }
  return out.sort();
}
