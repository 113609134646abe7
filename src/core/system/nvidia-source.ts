// The NVIDIA part of a sample: light CSV query each tick, full XML every few seconds, and a status that changes rarely.
//
// Why two queries: xml2js takes about 2.5 ms of CPU per GPU to parse a -q -x dump (measured, see bench), so a
// box with 8 GPUs would spend ~2 % of a core on parsing alone at 1 Hz, before nvidia-smi's own cost of
// gathering everything (supported clocks, ECC, retired pages…). The CSV query parses in microseconds.
// The XML still comes every `detailIntervalMs` for what the CSV cannot say: processes, throttle reasons, MIG.

import type { NvidiaGpu, NvidiaQueryError, NvidiaStatus } from '../../shared/system-types';
import type { NvidiaQueryKind, NvidiaQueryResult } from './nvidia-smi';

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

  constructor(
    private readonly smi: NvidiaQuerier,
    private readonly opts: NvidiaSourceOptions,
  ) {
    this.detailIntervalMs = opts.detailIntervalMs ?? 10_000;
    this.absentRetryMs = opts.absentRetryMs ?? 60_000;
    this.failureRetryMs = opts.failureRetryMs ?? 2_000;
  }

  get currentStatus(): NvidiaStatus {
    return this.status;
  }

  async sample(): Promise<NvidiaSample> {
    const now = this.opts.now();
    if (now < this.nextQueryAt) return { gpus: null, status: this.status, changed: false };
    const kind = this.kindFor(now);
    let result = await this.smi.query(kind);
    if (!result.ok && kind === 'fast' && this.lastDetailAt !== null && isFormatProblem(result.error)) {
      result = await this.smi.query('xml');
      // Only when the XML works is the CSV itself the problem; otherwise the driver is, and it may recover.
      this.csvUnusable = result.ok;
    }
    return result.ok ? this.onReport(result, now) : this.onFailure(result.error, now);
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
