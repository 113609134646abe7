// The workspace's memory guard: checks the held series against the memory cap between reads (throttled by its own cost), thins past it, starts the thinned runs' views over and says what it thinned.

import { thinnedOf } from './run-info';
import { message } from './run-loader';
import type { RunState } from './run-state';
import {
  MemoryCap,
  thinnedStatement,
  type CapSetting,
  type HeldSeries,
  type ThinnedFact,
} from '../series/memory-cap';

/** The memory cap is checked at most this often between slices (more seldom when a check costs more: 10k runs). */
const MEMORY_CHECK_MS = 20;
/** A run's first read that just ended is checked at once while a check costs at most this (ms): a few thousand series. */
const MEMORY_LOADED_MAX_MS = 1;
/** After an append's read (watching: every run every second) the cap is checked at most this often. */
const MEMORY_APPEND_MS = 1000;
/** What the memory cap thinned is said when it first thins and when the load is done, then at most this often
 * (notices are kept and listed: a long read that thins many times must not list many). */
const THINNED_NOTICE_MS = 10 * 60_000;

/** What the guard works on: the workspace's runs and its outlets. */
export interface MemoryGuardHost {
  runs(): Iterable<RunState>;
  /** A thinned run's views start over (fed again from the thinned series). */
  resync(runName: string): void;
  runsChanged(now?: boolean): void;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
}

export class MemoryGuard {
  private readonly cap: MemoryCap;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private gapMs = MEMORY_CHECK_MS;
  private costMs = 0;
  /** The thinned statement last said, when, and the newer one waiting for its turn. */
  private saidAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private overCap = false;
  /** Thinned since the statement was last said. */
  private unsaid = false;

  constructor(
    readonly setting: CapSetting,
    private readonly host: MemoryGuardHost,
  ) {
    this.cap = new MemoryCap(setting.bytes);
  }

  /** Forgets what was said (the folder was closed). */
  reset(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.saidAt = Number.NEGATIVE_INFINITY;
    this.overCap = false;
    this.unsaid = false;
  }

  /** What the memory cap thinned so far: points kept and read in thinned series, and how many runs; null when none. */
  thinned(): ThinnedFact | null {
    let kept = 0;
    let read = 0;
    let runs = 0;
    for (const run of this.host.runs()) {
      const t = thinnedOf(run);
      if (!t) continue;
      kept += t.kept;
      read += t.read;
      runs++;
    }
    return runs > 0 ? { kept, read, runs } : null;
  }

  /** The statement of what the cap thinned (the notice's words); null when nothing was. */
  statement(): string | null {
    const fact = this.thinned();
    return fact ? thinnedStatement(fact, this.setting, this.overCap) : null;
  }

  /** Between slices of reading: past the cap, the largest series are thinned into their envelopes, their runs'
   * views start over, and rlwatch says what it thinned. Throttled by its own cost; never throws. */
  check(when: 'slice' | 'loaded' | 'append'): void {
    const t0 = performance.now();
    const gap = when === 'append' ? Math.max(MEMORY_APPEND_MS, this.gapMs) : this.gapMs;
    const due = when === 'loaded' && this.costMs <= MEMORY_LOADED_MAX_MS;
    if (!due && t0 - this.checkedAt < gap) return;
    let report: ReturnType<MemoryCap['enforce']> = null;
    try {
      // Bytes are summed in place first: far under the cap (watching: every second) no list of the series is made.
      if (!this.within()) report = this.cap.enforce(this.held());
    } catch (e) {
      this.host.notice('error', `memory cap check failed: ${message(e)}`);
    }
    const t1 = performance.now();
    this.checkedAt = t1;
    if (!report) {
      // At most ~5% of the time goes to checking (10k runs × 50 tags is half a million series); a check that
      // thinned also did the thinning's work, which says nothing of what a check costs.
      this.costMs = t1 - t0;
      this.gapMs = Math.max(MEMORY_CHECK_MS, (t1 - t0) * 20);
      return;
    }
    this.overCap = report.overCap;
    const owners = new Set(report.thinned.map((h) => h.owner));
    for (const name of owners) this.host.resync(name);
    if (owners.size > 0) this.host.runsChanged(true);
    this.say();
  }

  /** The load is done: what was thinned and not yet said is said now. */
  loadDone(): void {
    if (this.unsaid) this.say(true);
  }

  /** Whether the held series need no thinning (MemoryCap.within over their bytes, summed without a list). */
  private within(): boolean {
    let total = 0;
    let largest = 0;
    for (const run of this.host.runs())
      for (const e of run.entries)
        for (const series of e.set.series()) {
          const b = series.byteSize;
          total += b;
          if (b > largest) largest = b;
        }
    return this.cap.within(total, largest);
  }

  private *held(): Generator<HeldSeries> {
    for (const run of this.host.runs())
      for (const e of run.entries) for (const [, series] of e.set.entries()) yield { owner: run.run, series };
  }

  /** The thinned statement as a notice: at once the first time (and with `now`: the load is done), then at most
   * every THINNED_NOTICE_MS. */
  private say(now = false): void {
    this.unsaid = true;
    const wait = this.saidAt + THINNED_NOTICE_MS - Date.now();
    if (wait <= 0 || now) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.saidAt = Date.now();
      this.unsaid = false;
      const text = this.statement();
      if (text) this.host.notice('warning', text);
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.say();
    }, wait);
    this.timer.unref();
  }
}
