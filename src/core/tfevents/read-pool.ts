// Whole event files read on worker threads, at most one per core, so several large files are read at once; a
// worker that fails or cannot start hands its file back to an in-thread read (the same result, the same typed errors).

import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readEventFile } from './event-file-reader';
import type { TfEventsReadResult } from './event-stream';
import { unpackRead, type ReadAnswer, type ReadJob } from './read-message';

/** Files smaller than this are read in-thread: handing them over costs more than it saves. */
export const MIN_WORKER_BYTES = 4 << 20;
/** Idle workers are ended after this long (a new one starts in ~30 ms). */
const IDLE_MS = 10_000;
/** After this many workers failed, the pool stops starting them: every file is read in-thread. */
const MAX_FAILURES = 3;

export interface PoolReadOptions {
  checkDataCrc?: boolean;
  /** Only these tags' values are kept (TfEventsReadOptions.onlyScalars). */
  onlyScalars?: readonly string[];
}

interface Job extends ReadJob {
  resolve: (r: TfEventsReadResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

/** How a worker starts: the built entry's file, or (from source, under tsx) code that registers tsx and imports it. */
export interface WorkerScript {
  entry: URL | string;
  eval: boolean;
}

/** Where the worker's entry is: beside this module's source (run through tsx), or in the built out/main. */
function findWorkerScript(): WorkerScript | null {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // Node 20 does not pass `--import tsx` on to a worker's loader: the worker registers tsx itself.
    const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href;
    const entry = new URL('./read-worker.ts', here).href;
    const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return { entry: code, eval: true };
  }
  // Built: out/main/read-worker.js, beside this chunk or one folder up (out/main/chunks/).
  for (const rel of ['./read-worker.js', '../read-worker.js']) {
    const file = new URL(rel, here);
    if (existsSync(fileURLToPath(file))) return { entry: file, eval: false };
  }
  return null;
}

export class ReadPool {
  /** Workers started so far that failed (crashed, or could not start). */
  failures = 0;
  /** Files a worker read (the others were read in-thread). */
  workerReads = 0;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly size = availableParallelism(),
    private readonly script: WorkerScript | null = findWorkerScript(),
  ) {}

  /** Whether files go to workers (false: no worker entry found, or too many failed). */
  get available(): boolean {
    return this.script !== null && this.size > 0 && this.failures < MAX_FAILURES;
  }

  /** Reads the whole file on a worker, exactly as `readEventFile` does in-thread (and in-thread when no worker can). */
  read(path: string, opts: PoolReadOptions = {}): Promise<TfEventsReadResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        path,
        checkDataCrc: opts.checkDataCrc ?? false,
        ...(opts.onlyScalars ? { onlyScalars: opts.onlyScalars } : {}),
        resolve,
        reject,
      });
      this.pump();
    });
  }

  /** `read` for a file large enough to pay for the hand-over; null for a smaller one (or one that cannot be
   * stat'ed: the caller's own read reports that as usual). */
  async readIfLarge(path: string, opts: PoolReadOptions = {}): Promise<TfEventsReadResult | null> {
    if (!this.available) return null;
    const size = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    return size >= MIN_WORKER_BYTES ? this.read(path, opts) : null;
  }

  /** Ends every worker; files still queued or in flight are read in-thread. */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      if (!this.available) {
        this.inThread(this.queue.shift()!);
        continue;
      }
      const slot =
        this.slots.find((s) => s.job === null) ?? (this.slots.length < this.size ? this.spawn() : null);
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      const msg: ReadJob = {
        id: job.id,
        path: job.path,
        checkDataCrc: job.checkDataCrc,
        ...(job.onlyScalars ? { onlyScalars: job.onlyScalars } : {}),
      };
      slot.worker.postMessage(msg);
    }
    this.armIdle();
  }

  private spawn(): Slot {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = new Worker(this.script!.entry, { eval: this.script!.eval });
    // An idle worker never keeps the process alive; one with a job does (its answer is awaited).
    worker.unref();
    const slot: Slot = { worker, job: null };
    this.slots.push(slot);
    worker.on('message', (a: ReadAnswer) => {
      const job = slot.job;
      slot.job = null;
      worker.unref();
      if (job && a.id === job.id) {
        if (a.ok) {
          this.workerReads++;
          job.resolve(unpackRead(a.read));
        } else this.inThread(job);
      }
      this.pump();
    });
    worker.on('error', () => this.lost(slot, true));
    worker.on('exit', (code) => this.lost(slot, code !== 0 && code !== 1));
    return slot;
  }

  /** A worker ended (idle, terminated, crashed): its file, if any, is read in-thread. */
  private lost(slot: Slot, failed: boolean): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const job = slot.job;
    slot.job = null;
    if (failed || job) this.failures++;
    if (job) this.inThread(job);
    this.pump();
  }

  private inThread(job: Job): void {
    try {
      job.resolve(
        readEventFile(job.path, {
          checkDataCrc: job.checkDataCrc,
          ...(job.onlyScalars ? { onlyScalars: job.onlyScalars } : {}),
        }),
      );
    } catch (e) {
      job.reject(e);
    }
  }

  /** Ends the workers once all are idle for IDLE_MS. */
  private armIdle(): void {
    if (this.idleTimer || this.slots.length === 0 || this.slots.some((s) => s.job !== null)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.queue.length > 0 || this.slots.some((s) => s.job !== null)) return;
      // Out of the list first: a job queued meanwhile starts a fresh worker, never a dying one.
      for (const s of this.slots.splice(0)) void s.worker.terminate();
    }, IDLE_MS);
    this.idleTimer.unref();
  }
}

let shared: ReadPool | null = null;

/** The process's one read pool (workers start on first use). */
export function readPool(): ReadPool {
  return (shared ??= new ReadPool());
}
