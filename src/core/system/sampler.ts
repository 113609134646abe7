// Polls every source at 1 Hz (slower when hidden) into timestamped SystemSnapshots: history ring + subscribers.

import type {
  AppleGpu,
  GpuProcess,
  NvidiaGpu,
  NvidiaStatus,
  SystemSnapshot,
} from '../../shared/system-types';
import type { RunDir, TrainingSample } from './training-process';
import type { HostSample } from './host';
import type { NvidiaSample } from './nvidia-source';
import { realClock, type Clock } from './clock';
import { LateSource } from './late-source';
import { RingBuffer } from './ring-buffer';

/** Every source is optional and injected; a source that throws yields nulls for its fields, never a lost tick. */
export interface SamplerSources {
  host?: (() => Promise<HostSample>) | null;
  /** stop() is called when the sampler stops (it ends the long-lived nvidia-smi). */
  nvidia?: { sample(): Promise<NvidiaSample>; stop?(): void; pauseStream?(paused: boolean): void } | null;
  apple?: { sample(): Promise<AppleGpu | null> } | null;
  training?: {
    setRuns(runs: readonly RunDir[]): void;
    sample(gpuProcesses: readonly GpuProcess[]): Promise<TrainingSample>;
  } | null;
}

export interface SamplerOptions {
  clock?: Clock;
  intervalMs?: number;
  /** Interval while the window is hidden (and the lead decides no alert needs the faster rate). */
  hiddenIntervalMs?: number;
  /** Snapshots kept in memory: one hour at 1 Hz by default. */
  historySize?: number;
  /** Status shown when there is no NVIDIA source at all (e.g. on macOS). */
  nvidiaDisabledMessage?: string;
}

export type SnapshotListener = (snapshot: SystemSnapshot) => void;

/** A GPU sample older than this is not shown as current when its source is late. */
const GPU_MAX_AGE_MS = 5000;
/** Before nvidia-smi's first answer a late tick says "pending", not "failing": its first run (spawn, driver
 * start, the XML parser's first load) can pass a tick's deadline on a busy machine. As long as nvidia-smi's own
 * timeout, after which the source itself reports the failure. */
const FIRST_ANSWER_GRACE_MS = 5000;

const NULL_HOST: HostSample = { cpuPct: null, memPct: null, memUsedMiB: null, memTotalMiB: null };

export class SystemSampler {
  private readonly clock: Clock;
  private readonly history: RingBuffer<SystemSnapshot>;
  private readonly listeners = new Set<SnapshotListener>();
  private intervalMs: number;
  private hiddenIntervalMs: number;
  private hidden = false;
  private timer: unknown = null;
  private running = false;
  private ticking: Promise<SystemSnapshot> | null = null;
  /** The last status this sampler made up itself (no source answer), so each new one is announced once. */
  private lastFallback: string | null = null;
  /** When the NVIDIA source was first asked, and whether it has answered since. */
  private nvidiaFirstAskedAt: number | null = null;
  private nvidiaAnswered = false;
  private readonly nvidiaLate: LateSource<NvidiaSample> | null;
  /** The GPUs of the last read that named any, repeated (marked stale) while reads are late or give none. */
  private lastGpus: NvidiaGpu[] | null = null;
  private readonly appleLate: LateSource<AppleGpu | null> | null;

  constructor(
    private readonly sources: SamplerSources,
    private readonly opts: SamplerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.intervalMs = opts.intervalMs ?? 1000;
    this.hiddenIntervalMs = opts.hiddenIntervalMs ?? 5000;
    this.history = new RingBuffer(opts.historySize ?? 3600);
    // GPU queries may hang (a wedged driver): they never hold back the CPU and memory fields.
    const { nvidia, apple } = sources;
    this.nvidiaLate = nvidia ? new LateSource(() => nvidia.sample(), this.clock, GPU_MAX_AGE_MS) : null;
    this.appleLate = apple ? new LateSource(() => apple.sample(), this.clock, GPU_MAX_AGE_MS) : null;
  }

  /** How long a tick waits for a GPU source before it goes out without (or with its last value). */
  private get gpuDeadlineMs(): number {
    return Math.max(100, Math.round(this.currentIntervalMs * 0.8));
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The interval in force now. */
  get currentIntervalMs(): number {
    return this.hidden ? Math.max(this.intervalMs, this.hiddenIntervalMs) : this.intervalMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops polling and ends any long-lived child (the streaming nvidia-smi); start() resumes. */
  stop(): void {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    try {
      this.sources.nvidia?.stop?.();
    } catch {
      // Nothing to do: the source's children are killed on process exit in any case.
    }
  }

  setIntervalMs(ms: number): void {
    this.intervalMs = Math.max(100, ms);
    this.reschedule();
  }

  setHidden(hidden: boolean): void {
    if (hidden === this.hidden) return;
    this.hidden = hidden;
    // Sampling every few seconds does not need nvidia-smi streaming every second.
    this.sources.nvidia?.pauseStream?.(this.currentIntervalMs >= 2000);
    this.reschedule();
  }

  /** The open folder's runs (empty when none is open): each run's training process is looked for on evidence. */
  setRuns(runs: readonly RunDir[]): void {
    this.sources.training?.setRuns(runs);
  }

  subscribe(listener: SnapshotListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Oldest first. */
  getHistory(): SystemSnapshot[] {
    return this.history.toArray();
  }

  latest(): SystemSnapshot | undefined {
    return this.history.latest();
  }

  /** Takes one sample now (ticks never overlap: a second caller shares the running one). */
  sampleOnce(): Promise<SystemSnapshot> {
    if (this.ticking) return this.ticking;
    const tick = this.collect().then((snapshot) => {
      this.history.push(snapshot);
      for (const listener of this.listeners) {
        try {
          listener(snapshot);
        } catch {
          // A failing subscriber (say, a closed window) must not stop sampling for the others.
        }
      }
      return snapshot;
    });
    this.ticking = tick;
    void tick.finally(() => {
      this.ticking = null;
    });
    return tick;
  }

  private async collect(): Promise<SystemSnapshot> {
    const t = this.clock.now();
    const { host, training } = this.sources;
    const deadline = this.gpuDeadlineMs;
    if (this.nvidiaLate) this.nvidiaFirstAskedAt ??= t;
    const [hostSample, nvLate, appleLate] = await Promise.all([
      host ? host().catch(() => NULL_HOST) : NULL_HOST,
      this.nvidiaLate ? this.nvidiaLate.within(deadline) : null,
      this.appleLate ? this.appleLate.within(deadline) : null,
    ]);
    // A late answer reuses the last sample's figures, but its status change was announced already.
    const nv: NvidiaSample | null =
      nvLate?.value && nvLate.late ? { ...nvLate.value, changed: false } : (nvLate?.value ?? null);
    const appleGpu = appleLate?.value ?? null;
    const { status, changed } = this.nvidiaStatus(nv, nvLate?.late === true ? deadline : null);
    const { gpus, stale } = this.gpusOf(nv, nvLate?.late === true, status);
    const gpuProcesses = (gpus ?? []).flatMap((g) => g.processes ?? []);
    const trainingSample = training ? await training.sample(gpuProcesses).catch(() => null) : null;
    return {
      t,
      ...hostSample,
      gpus,
      ...(stale ? { gpusStale: true } : {}),
      nvidia: status,
      nvidiaChanged: changed,
      appleGpu,
      trainingProcesses: trainingSample?.processes ?? [],
      processExits: trainingSample?.exited ?? [],
    };
  }

  /**
   * This tick's GPUs: a fresh read's, or, when the read was late or gave no figures while nvidia-smi still
   * works (a stream restarting, a backoff, a timeout under load), the last read's marked stale: a 2-GPU
   * machine never reads as "no GPU" between two samples. Only a source that says there is no GPU (or is
   * off, or fails for another reason than time) gives none.
   */
  private gpusOf(
    nv: NvidiaSample | null,
    late: boolean,
    status: NvidiaStatus,
  ): { gpus: NvidiaGpu[] | null; stale: boolean } {
    if (nv?.gpus) {
      // A late tick gets the newest read there is (one that arrived after an earlier tick's deadline).
      this.lastGpus = nv.gpus;
      return { gpus: nv.gpus, stale: late };
    }
    const slow =
      late ||
      status.state === 'ok' ||
      status.state === 'pending' ||
      (status.state === 'failing' && status.error.kind === 'timeout');
    if (!slow) {
      if (status.state === 'absent' || status.state === 'disabled') this.lastGpus = null;
      return { gpus: null, stale: false };
    }
    return { gpus: this.lastGpus, stale: this.lastGpus !== null };
  }

  private nvidiaStatus(
    nv: NvidiaSample | null,
    lateAfterMs: number | null,
  ): { status: NvidiaStatus; changed: boolean } {
    if (nv) {
      this.lastFallback = null;
      this.nvidiaAnswered = true;
      return { status: nv.status, changed: nv.changed };
    }
    const firstAsked = this.nvidiaFirstAskedAt;
    if (lateAfterMs !== null && !this.nvidiaAnswered && firstAsked !== null) {
      if (this.clock.now() - firstAsked < FIRST_ANSWER_GRACE_MS)
        return { status: { state: 'pending' }, changed: false };
    }
    const status: NvidiaStatus = !this.sources.nvidia
      ? { state: 'disabled', message: this.opts.nvidiaDisabledMessage ?? 'NVIDIA sampling is not enabled' }
      : lateAfterMs !== null
        ? {
            state: 'failing',
            message: `nvidia-smi has not answered for ${lateAfterMs} ms`,
            error: { kind: 'timeout', timeoutMs: lateAfterMs },
          }
        : {
            state: 'failing',
            message: 'NVIDIA source failed',
            error: { kind: 'spawn', message: 'source threw' },
          };
    const key = JSON.stringify(status);
    const changed = key !== this.lastFallback;
    this.lastFallback = key;
    return { status, changed };
  }

  private schedule(delayMs: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      const startedAt = this.clock.now();
      void this.sampleOnce().finally(() => {
        if (!this.running || this.timer !== null) return;
        // Keep the cadence: a 300 ms tick at 1 Hz waits 700 ms, a tick slower than the interval goes again at once.
        const elapsed = this.clock.now() - startedAt;
        this.schedule(Math.max(0, this.currentIntervalMs - elapsed));
      });
    }, delayMs);
  }

  private reschedule(): void {
    if (!this.running || this.timer === null) return;
    this.clock.clearTimeout(this.timer);
    this.schedule(this.currentIntervalMs);
  }
}
