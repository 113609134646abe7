// The NVIDIA part of a sample: fast fields every tick (streamed), full XML every few seconds, and a status that changes rarely.
//
// Why two queries: xml2js takes about 2.5 ms of CPU per GPU to parse a -q -x dump (measured, see bench), so a
// box with 8 GPUs would spend ~2 % of a core on parsing alone at 1 Hz, before nvidia-smi's own cost of
// gathering everything (supported clocks, ECC, retired pages…). The CSV query parses in microseconds.
// The XML still comes every `detailIntervalMs` for what the CSV cannot say: processes, throttle reasons, MIG.
//
// The fast fields come from one long-lived `nvidia-smi --query-gpu … -lms` (see nvidia-stream.ts) when a
// stream is given; without one, or when the driver cannot stream, a one-shot CSV query is spawned each tick.

import type { NvidiaGpu, NvidiaQueryError, NvidiaStatus } from '../../shared/system-types';
import type { NvidiaQueryKind, NvidiaQueryResult } from './nvidia-smi';
import type { NvidiaStreamLike } from './nvidia-stream';

export const NO_GPU_MESSAGE = 'no NVIDIA GPU found';

/** What the source needs from NvidiaSmi; a fake in tests. */
export interface NvidiaQuerier {
  query(kind: NvidiaQueryKind): Promise<NvidiaQueryResult>;
}

export interface NvidiaSourceOptions {
  now: () => number;
  /** How often the full XML (processes, throttle reasons, MIG) is read; 0 = every tick (XML only). */
  detailIntervalMs?: number;
  /** How long to wait before asking again once nvidia-smi said there is no GPU. */
  absentRetryMs?: number;
  /** First wait after a failure (timeout, crash); doubles up to absentRetryMs. */
  failureRetryMs?: number;
  /** Long-lived fast query; null/absent = spawn a one-shot CSV query each tick. */
  stream?: NvidiaStreamLike | null;
  /** How long a tick waits for a just-started stream's first rows. */
  streamStartWaitMs?: number;
  /** Runs that end without a row (while the one-shot query works) before streaming is given up for good. */
  streamNoDataLimit?: number;
}

export interface NvidiaSample {
  gpus: NvidiaGpu[] | null;
  status: NvidiaStatus;
  changed: boolean;
}

type Detail = Pick<NvidiaGpu, 'processes' | 'throttleReasonsActive' | 'migMode' | 'detailAt'> & {
  powerLimitW: number | null;
};

export class NvidiaSource {
  private status: NvidiaStatus = { state: 'pending' };
  private nextQueryAt = 0;
  private failures = 0;
  private lastDetailAt: number | null = null;
  private details = new Map<string, Detail>();
  private driverVersion: string | null = null;
  /** Set when the CSV query fails but the XML works (a driver that rejects one of our fields). */
  private csvUnusable = false;
  private readonly detailIntervalMs: number;
  private readonly absentRetryMs: number;
  private readonly failureRetryMs: number;
  private readonly stream: NvidiaStreamLike | null;
  /** Bumped by stop(): a tick that was in flight must not restart the stream afterwards. */
  private epoch = 0;
  private streamPaused = false;

  constructor(
    private readonly smi: NvidiaQuerier,
    private readonly opts: NvidiaSourceOptions,
  ) {
    this.detailIntervalMs = opts.detailIntervalMs ?? 10_000;
    this.absentRetryMs = opts.absentRetryMs ?? 60_000;
    this.failureRetryMs = opts.failureRetryMs ?? 2_000;
    this.stream = opts.stream ?? null;
  }

  /** While paused (the window is hidden and the sampler slows down) fast fields come from a one-shot
   * query per tick instead of keeping nvidia-smi streaming every second. */
  pauseStream(paused: boolean): void {
    if (paused === this.streamPaused) return;
    this.streamPaused = paused;
    if (paused) this.stop();
  }

  /** Kills the streaming nvidia-smi, if any; the next sample() starts it again. */
  stop(): void {
    this.epoch += 1;
    this.stream?.stop();
  }

  get currentStatus(): NvidiaStatus {
    return this.status;
  }

  async sample(): Promise<NvidiaSample> {
    const now = this.opts.now();
    if (now < this.nextQueryAt) return { gpus: null, status: this.status, changed: false };
    const kind = this.kindFor(now);
    if (kind === 'fast' && this.stream && !this.streamPaused) {
      const streamed = await this.readStream(this.stream, now);
      if (streamed) return streamed;
    }
    let result = await this.smi.query(kind);
    const noDataRuns = this.streamPaused ? 0 : (this.stream?.noDataRuns ?? 0);
    if (kind === 'fast' && result.ok && noDataRuns >= (this.opts.streamNoDataLimit ?? 3)) {
      // The one-shot query works where the stream never gave a row: this driver cannot stream.
      this.stream?.disable(`nvidia-smi -lms gave no rows ${noDataRuns} times in a row`);
    }
    if (!result.ok && kind === 'fast' && this.lastDetailAt !== null && isFormatProblem(result.error)) {
      result = await this.smi.query('xml');
      // Only when the XML works is the CSV itself the problem; otherwise the driver is, and it may recover.
      this.csvUnusable = result.ok;
    }
    return result.ok ? this.onReport(result, now) : this.onFailure(result.error, now);
  }

  /** null = no stream answer this tick: run the one-shot CSV query instead. */
  private async readStream(stream: NvidiaStreamLike, now: number): Promise<NvidiaSample | null> {
    const epoch = this.epoch;
    let r = stream.read(now);
    if (r.kind === 'waiting') {
      await stream.whenReady(this.opts.streamStartWaitMs ?? 1500);
      if (epoch !== this.epoch) return { gpus: null, status: this.status, changed: false };
      r = stream.read(this.opts.now());
    }
    switch (r.kind) {
      case 'rows':
        return this.onReport(
          {
            ok: true,
            kind: 'fast',
            report: { driverVersion: null, cudaVersion: null, gpus: r.gpus },
            warnings: [...r.warnings],
          },
          now,
        );
      case 'waiting':
        // Just started and nothing yet: not a failure (yet), no figures for this tick.
        return { gpus: null, status: this.status, changed: false };
      case 'unsupported':
        return null;
      case 'failed':
        if (r.error.kind === 'not-found' || r.hadData) return this.onFailure(r.error, now);
        // Never a row from the stream: ask the one-shot way (see sample()).
        return null;
    }
  }

  private kindFor(now: number): NvidiaQueryKind {
    if (this.csvUnusable || this.detailIntervalMs <= 0 || this.lastDetailAt === null) return 'xml';
    return now - this.lastDetailAt >= this.detailIntervalMs ? 'xml' : 'fast';
  }

  private onReport(result: Extract<NvidiaQueryResult, { ok: true }>, now: number): NvidiaSample {
    const { gpus } = result.report;
    if (gpus.length === 0) {
      return this.onFailure({ kind: 'not-found', message: 'nvidia-smi reported no GPU' }, now);
    }
    this.failures = 0;
    this.nextQueryAt = 0;
    let merged: NvidiaGpu[];
    if (result.kind === 'xml') {
      this.lastDetailAt = now;
      this.driverVersion = result.report.driverVersion;
      this.details = new Map(gpus.map((g) => [gpuKey(g), detailOf(g)]));
      this.stream?.expectGpus(gpus.length);
      merged = gpus;
    } else {
      merged = gpus.map((g) => {
        const d = this.details.get(gpuKey(g));
        return d
          ? { ...g, ...d, powerLimitW: g.powerLimitW ?? d.powerLimitW, migMode: g.migMode ?? d.migMode }
          : g;
      });
    }
    return this.transition(
      { state: 'ok', gpuCount: merged.length, driverVersion: this.driverVersion },
      merged,
    );
  }

  private onFailure(error: NvidiaQueryError, now: number): NvidiaSample {
    if (error.kind === 'not-found') {
      this.stream?.stop();
      this.nextQueryAt = now + this.absentRetryMs;
      this.lastDetailAt = null;
      return this.transition({ state: 'absent', message: NO_GPU_MESSAGE, reason: error.message }, null);
    }
    this.failures += 1;
    this.nextQueryAt = now + Math.min(this.absentRetryMs, this.failureRetryMs * 2 ** (this.failures - 1));
    return this.transition({ state: 'failing', message: describe(error), error }, null);
  }

  private transition(next: NvidiaStatus, gpus: NvidiaGpu[] | null): NvidiaSample {
    const changed = statusKey(next) !== statusKey(this.status);
    this.status = next;
    return { gpus, status: next, changed };
  }
}

/** What the panel would show: a change here is news, the same failure again is not. */
function statusKey(s: NvidiaStatus): string {
  switch (s.state) {
    case 'ok':
      return `ok:${s.gpuCount}`;
    case 'absent':
    case 'failing':
    case 'disabled':
      return `${s.state}:${s.message}`;
    case 'pending':
      return 'pending';
  }
}

function isFormatProblem(e: NvidiaQueryError): boolean {
  return e.kind === 'exit' || e.kind === 'parse';
}

export function describe(e: NvidiaQueryError): string {
  switch (e.kind) {
    case 'not-found':
      return e.message;
    case 'timeout':
      return `nvidia-smi did not answer within ${e.timeoutMs} ms (killed)`;
    case 'exit': {
      const first = e.stderr.split(/\r?\n/).find((l) => l.trim() !== '');
      return `nvidia-smi failed (${e.code !== null ? `exit status ${e.code}` : `signal ${e.signal}`})${first ? `: ${first.trim()}` : ''}`;
    }
    case 'parse':
      return `nvidia-smi output not understood: ${e.message}`;
    case 'too-large':
      return `nvidia-smi printed more than ${e.limitBytes} bytes`;
    case 'spawn':
      return `nvidia-smi could not be started: ${e.message}`;
  }
}

function gpuKey(g: NvidiaGpu): string {
  // Bus id first: it is unique on a machine, while masked or cloned dumps can repeat a UUID.
  return g.pciBusId ?? g.uuid ?? `#${g.index}`;
}

function detailOf(g: NvidiaGpu): Detail {
  return {
    processes: g.processes,
    throttleReasonsActive: g.throttleReasonsActive,
    migMode: g.migMode,
    detailAt: g.detailAt,
    powerLimitW: g.powerLimitW,
  };
}
