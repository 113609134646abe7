// Long-lived `nvidia-smi --query-gpu=… -lms N`: one process for the fast fields, rows parsed as they arrive, killed on stop.
//
// Why: starting nvidia-smi every second was most of the sampler's own CPU cost (≈ 1.3 ms per launch on our
// side alone, plus the driver/NVML initialisation in nvidia-smi each time). Here nvidia-smi loops by itself
// and we parse one short CSV line per GPU per interval. The XML details still come from one-shot queries.
//
// Lifecycle: started lazily by the first read(); a run that dies after being healthy is restarted at the
// next read, one that dies young or without data waits (1 s, 2 s, 4 s … up to a minute); no valid line for
// `staleMs` means the data is stale: the process group is killed and the read fails with a timeout.

import type { ChildProcess } from 'node:child_process';
import type { NvidiaGpu, NvidiaQueryError } from '../../shared/system-types';
import { FAST_QUERY_ARGS, parseQueryGpuCsv } from './nvidia-csv';
import { NO_GPU_TEXT } from './nvidia-smi';
import { OWN_GROUP, defaultSpawner, killTree } from './run-command';
import type { Spawner } from './run-command';

export interface NvidiaStreamOptions {
  /** Executable name or path; looked up on PATH (of `env`). */
  command?: string;
  env?: NodeJS.ProcessEnv;
  spawner?: Spawner;
  now?: () => number;
  /** nvidia-smi's own loop interval (`-lms`). */
  intervalMs?: number;
  /** No valid row for longer than this: fields become null, the process is killed and restarted. */
  staleMs?: number;
  /** First restart delay after a run that died young or without data; doubles up to maxBackoffMs. */
  restartBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run that delivered rows for at least this long was healthy: if it dies, restart at once. */
  healthyRunMs?: number;
}

/** What a read gives the NVIDIA source. `failed` repeats the last failure until a restart delivers rows. */
export type StreamRead =
  | { kind: 'rows'; gpus: NvidiaGpu[]; at: number; warnings: readonly string[] }
  | { kind: 'waiting' }
  | { kind: 'failed'; error: NvidiaQueryError; hadData: boolean }
  | { kind: 'unsupported'; reason: string };

/** What NvidiaSource needs from a stream; a scripted stand-in in tests. */
export interface NvidiaStreamLike {
  read(now: number): StreamRead;
  /** Resolves when rows arrive, the run ends, or after maxWaitMs: whichever comes first. */
  whenReady(maxWaitMs: number): Promise<void>;
  /** The GPU count the XML reported: until the first set, a set is complete once it has that many rows. */
  expectGpus(count: number): void;
  /** Consecutive runs that ended without a single valid row. */
  readonly noDataRuns: number;
  /** For good (this driver cannot stream): stops the process; reads say `unsupported`. */
  disable(reason: string): void;
  stop(): void;
}

/** What old or unusual nvidia-smi builds print for an option they do not know. */
const LMS_UNSUPPORTED =
  /-lms|loop-ms|Invalid combination of input arguments|not a valid option|unrecognized option|unknown option/i;
const MAX_PARTIAL_LINE = 64 * 1024;
const KEEP_LINES = 5;

interface Run {
  child: ChildProcess | null;
  pid: number | null;
  startedAt: number;
  rows: number;
  firstRowAt: number | null;
  current: NvidiaGpu[];
  currentPublished: boolean;
  partial: string;
  /** Non-row stdout lines and stderr lines, the last few of each (for the error message). */
  noise: string[];
  stderr: string[];
  killed: 'stop' | 'stale' | null;
  ended: boolean;
}

export class NvidiaStream implements NvidiaStreamLike {
  private run: Run | null = null;
  private latest: NvidiaGpu[] | null = null;
  private lastRowAt = Number.NEGATIVE_INFINITY;
  private lastError: { error: NvidiaQueryError; hadData: boolean } | null = null;
  private restartAt = 0;
  private badRuns = 0;
  private noDataRunCount = 0;
  private unsupportedReason: string | null = null;
  private expected = 0;
  private launchCount = 0;
  private warnings: string[] = [];
  private waiters: Array<() => void> = [];
  private readonly command: string;
  private readonly now: () => number;
  private readonly spawner: Spawner;
  private readonly intervalMs: number;
  private readonly staleMs: number;
  private readonly restartBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly healthyRunMs: number;

  constructor(private readonly opts: NvidiaStreamOptions = {}) {
    this.command = opts.command ?? 'nvidia-smi';
    this.now = opts.now ?? Date.now;
    this.spawner = opts.spawner ?? defaultSpawner;
    this.intervalMs = Math.max(100, Math.round(opts.intervalMs ?? 1000));
    this.staleMs = opts.staleMs ?? 3000;
    this.restartBackoffMs = opts.restartBackoffMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
    this.healthyRunMs = opts.healthyRunMs ?? 10_000;
  }

  /** nvidia-smi processes started so far (tests and the benchmark read it). */
  get launches(): number {
    return this.launchCount;
  }

  /** The running nvidia-smi's pid, or null. */
  get pid(): number | null {
    return this.run?.pid ?? null;
  }

  get noDataRuns(): number {
    return this.noDataRunCount;
  }

  get args(): string[] {
    return [...FAST_QUERY_ARGS, '-lms', String(this.intervalMs)];
  }

  read(now: number): StreamRead {
    if (this.unsupportedReason !== null) return { kind: 'unsupported', reason: this.unsupportedReason };
    if (!this.run && now >= this.restartAt) this.spawn(now);
    if (this.unsupportedReason !== null) return { kind: 'unsupported', reason: this.unsupportedReason };
    if (this.latest && now - this.lastRowAt <= this.staleMs) {
      return { kind: 'rows', gpus: this.latest, at: this.lastRowAt, warnings: this.warnings };
    }
    const run = this.run;
    if (run) {
      const since = Math.max(run.startedAt, run.firstRowAt === null ? run.startedAt : this.lastRowAt);
      if (now - since <= this.staleMs) return { kind: 'waiting' };
      this.killStale(run, now);
    }
    return this.lastError
      ? { kind: 'failed', ...this.lastError }
      : { kind: 'failed', error: { kind: 'timeout', timeoutMs: this.staleMs }, hadData: false };
  }

  whenReady(maxWaitMs: number): Promise<void> {
    if (!this.run) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, maxWaitMs);
      timer.unref?.();
      const waiters = this.waiters;
      function done(): void {
        clearTimeout(timer);
        const i = waiters.indexOf(done);
        if (i !== -1) waiters.splice(i, 1);
        resolve();
      }
      waiters.push(done);
    });
  }

  expectGpus(count: number): void {
    // A hint for the first set only: after that the stream's own sets say how many rows make one.
    if (this.latest === null) this.expected = Math.max(0, count);
  }

  disable(reason: string): void {
    this.stop();
    this.unsupportedReason = reason;
  }

  /** Kills the running nvidia-smi (its process group) and forgets the data; the next read starts afresh. */
  stop(): void {
    const run = this.run;
    if (run) {
      run.killed = 'stop';
      this.kill(run);
    }
    this.run = null;
    this.latest = null;
    this.lastRowAt = Number.NEGATIVE_INFINITY;
    this.lastError = null;
    this.restartAt = 0;
    this.badRuns = 0;
    this.wake();
  }

  private spawn(now: number): void {
    this.launchCount += 1;
    const run: Run = {
      child: null,
      pid: null,
      startedAt: now,
      rows: 0,
      firstRowAt: null,
      current: [],
      currentPublished: false,
      partial: '',
      noise: [],
      stderr: [],
      killed: null,
      ended: false,
    };
    this.run = run;
    let child: ChildProcess;
    try {
      child = this.spawner(this.command, this.args, {
        env: this.opts.env ?? process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Own process group: stop() kills nvidia-smi and anything a wrapper script started.
        detached: OWN_GROUP,
        windowsHide: true,
      });
    } catch (err) {
      this.onEnd(run, spawnFailure(err as NodeJS.ErrnoException));
      return;
    }
    run.child = child;
    run.pid = child.pid ?? null;
    track(child);
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.onStdout(run, chunk));
    child.stderr?.on('data', (chunk: string) => this.onStderr(run, chunk));
    child.on('error', (err: NodeJS.ErrnoException) => this.onEnd(run, spawnFailure(err)));
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) =>
      this.onEnd(run, exitFailure(run, code, signal)),
    );
  }

  private onStdout(run: Run, chunk: string): void {
    if (run !== this.run) return;
    const lines = (run.partial + chunk).split('\n');
    run.partial = lines.pop() ?? '';
    if (run.partial.length > MAX_PARTIAL_LINE) run.partial = '';
    const now = this.now();
    for (const line of lines) this.onLine(run, line, now);
    // All rows of one set normally come in one write; a set cut across writes waits for its last row.
    if (!run.currentPublished && run.current.length > 0 && run.current.length >= this.expected) {
      this.publish(run);
    }
  }

  private onLine(run: Run, raw: string, now: number): void {
    const line = raw.trim();
    if (line === '') return;
    const parsed = parseQueryGpuCsv(line);
    const gpu = parsed.ok ? parsed.value[0] : undefined;
    if (!gpu) {
      remember(run.noise, line);
      return;
    }
    run.rows += 1;
    run.firstRowAt ??= now;
    this.lastRowAt = now;
    if (startsNewSet(run.current, gpu)) {
      if (!run.currentPublished) this.publish(run);
      run.current = [];
      run.currentPublished = false;
    }
    run.current.push(gpu);
    if (run.currentPublished) this.publish(run); // a row added to a set already shown (one GPU more)
  }

  private publish(run: Run): void {
    this.latest = run.current.slice();
    this.expected = run.current.length;
    run.currentPublished = true;
    this.lastError = null;
    this.noDataRunCount = 0;
    this.wake();
  }

  private onStderr(run: Run, chunk: string): void {
    for (const line of chunk.split(/\r?\n/)) {
      const l = line.trim();
      if (l !== '') remember(run.stderr, l);
    }
    // Warnings only: rows on stdout stay valid whatever stderr says.
    if (run === this.run) this.warnings = run.stderr.slice();
  }

  private onEnd(run: Run, error: NvidiaQueryError): void {
    if (run.ended) return;
    run.ended = true;
    if (run.child) untrack(run.child);
    if (this.run === run) this.run = null;
    this.wake();
    if (run.killed !== null) return; // stop() or a stale kill: already accounted for
    const now = this.now();
    if (run.partial.trim() !== '') this.onLine(run, run.partial, now);
    const hadData = run.rows > 0;
    if (!hadData) {
      this.noDataRunCount += 1;
      const text = [...run.noise, ...run.stderr].join('\n');
      if (error.kind === 'exit' && LMS_UNSUPPORTED.test(text)) {
        this.unsupportedReason = `nvidia-smi cannot loop (-lms): ${firstLine(text)}`;
        return;
      }
    }
    const healthy = hadData && run.firstRowAt !== null && now - run.firstRowAt >= this.healthyRunMs;
    this.scheduleRestart(now, healthy);
    this.lastError = { error, hadData };
  }

  private killStale(run: Run, now: number): void {
    run.killed = 'stale';
    this.kill(run);
    this.run = null;
    if (run.rows === 0) this.noDataRunCount += 1;
    this.scheduleRestart(now, false);
    this.lastError = { error: { kind: 'timeout', timeoutMs: this.staleMs }, hadData: run.rows > 0 };
    this.wake();
  }

  private scheduleRestart(now: number, healthy: boolean): void {
    this.badRuns = healthy ? 0 : this.badRuns + 1;
    this.restartAt = healthy
      ? now
      : now + Math.min(this.maxBackoffMs, this.restartBackoffMs * 2 ** (this.badRuns - 1));
  }

  private kill(run: Run): void {
    if (!run.child) return;
    killTree(run.child);
    untrack(run.child);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** A row whose index is not above the previous one's, or a GPU already in the set, begins the next set. */
function startsNewSet(current: readonly NvidiaGpu[], gpu: NvidiaGpu): boolean {
  const last = current[current.length - 1];
  if (!last) return false;
  if (gpu.index <= last.index) return true;
  return gpu.pciBusId !== null && current.some((g) => g.pciBusId === gpu.pciBusId);
}

function spawnFailure(err: NodeJS.ErrnoException): NvidiaQueryError {
  return err.code === 'ENOENT'
    ? { kind: 'not-found', message: 'nvidia-smi is not installed (not found on PATH)' }
    : { kind: 'spawn', message: String(err.message ?? err) };
}

function exitFailure(run: Run, code: number | null, signal: NodeJS.Signals | null): NvidiaQueryError {
  if (code === 127) return { kind: 'not-found', message: 'nvidia-smi could not be run (exit status 127)' };
  const text = [...run.noise, ...run.stderr].join('\n');
  const noGpu = NO_GPU_TEXT.exec(text);
  if (noGpu)
    return { kind: 'not-found', message: firstLine(text.slice(text.lastIndexOf('\n', noGpu.index) + 1)) };
  return { kind: 'exit', code, signal, stderr: text.slice(0, 2000) };
}

function remember(lines: string[], line: string): void {
  const l = line.slice(0, 500);
  if (lines.includes(l)) return; // the same warning every interval is one warning
  lines.push(l);
  if (lines.length > KEEP_LINES) lines.shift();
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

// Every running stream child, killed if the app exits without stop() (a detached child would outlive it
// until its next write hit the closed pipe).
const live = new Set<ChildProcess>();
let exitHooked = false;

function track(child: ChildProcess): void {
  live.add(child);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const c of live) killTree(c);
  });
}

function untrack(child: ChildProcess): void {
  live.delete(child);
}
