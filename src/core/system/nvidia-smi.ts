// Runs one-shot nvidia-smi queries (XML for everything, CSV for the fast fields): one at a time, shared by concurrent callers, killed on timeout; the streamed fast query (nvidia-stream.ts) runs beside them.
//
// Why not call node-nvidia-smi directly: it runs exec('nvidia-smi -q -x') with no timeout and hands back no
// ChildProcess, so a hung driver call can be neither abandoned nor killed; it also treats any stderr text as
// failure, throwing away valid XML that came with a warning. We therefore spawn nvidia-smi ourselves (with an
// injected spawner) and keep the package's part that is worth keeping: its XML→object step (xml2js with
// explicitArray: false, trim: true), loaded through the package, see xml2js-loader.ts.

import type { NvidiaQueryError } from '../../shared/system-types';
import { FAST_QUERY_ARGS, parseQueryGpuCsv } from './nvidia-csv';
import { parseNvidiaXml } from './nvidia-xml';
import type { NvidiaReport } from './nvidia-xml';
import { runCommand } from './run-command';
import type { CommandOutcome, Spawner } from './run-command';

export type NvidiaQueryKind = 'xml' | 'fast';

export type NvidiaQueryResult =
  | { ok: true; kind: NvidiaQueryKind; report: NvidiaReport; warnings: string[] }
  | { ok: false; kind: NvidiaQueryKind; error: NvidiaQueryError };

export interface NvidiaSmiOptions {
  /** Executable name or path; looked up on PATH (of `env`) like a shell would. */
  command?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  spawner?: Spawner;
  now?: () => number;
}

export const XML_ARGS: readonly string[] = ['-q', '-x'];
const DEFAULT_TIMEOUT_MS = 5000;

/** Messages nvidia-smi prints when there is no GPU or no working driver: the machine simply has none. */
export const NO_GPU_TEXT =
  /NVIDIA-SMI has failed|No devices were found|couldn't communicate with the NVIDIA driver|NVIDIA driver is not loaded/i;

export class NvidiaSmi {
  private inFlight: { kind: NvidiaQueryKind; promise: Promise<NvidiaQueryResult> } | null = null;
  private launchCount = 0;
  private readonly opts: Required<Omit<NvidiaSmiOptions, 'env' | 'spawner'>> &
    Pick<NvidiaSmiOptions, 'env' | 'spawner'>;

  constructor(options: NvidiaSmiOptions = {}) {
    this.opts = {
      command: options.command ?? 'nvidia-smi',
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      now: options.now ?? Date.now,
      env: options.env,
      spawner: options.spawner,
    };
  }

  /** How many nvidia-smi processes this client has started (benchmarks and tests read it). */
  get launches(): number {
    return this.launchCount;
  }

  query(kind: NvidiaQueryKind): Promise<NvidiaQueryResult> {
    const current = this.inFlight;
    if (current && current.kind === kind) return current.promise;
    // A query of the other kind waits for the running one: never two nvidia-smi at once.
    const start = current ? current.promise.then(() => this.launch(kind)) : this.launch(kind);
    const entry = { kind, promise: start };
    this.inFlight = entry;
    void start.finally(() => {
      if (this.inFlight === entry) this.inFlight = null;
    });
    return start;
  }

  private async launch(kind: NvidiaQueryKind): Promise<NvidiaQueryResult> {
    this.launchCount += 1;
    const outcome = await runCommand(this.opts.command, kind === 'xml' ? XML_ARGS : FAST_QUERY_ARGS, {
      timeoutMs: this.opts.timeoutMs,
      env: this.opts.env,
      spawner: this.opts.spawner,
    });
    return interpret(kind, outcome, this.opts.now());
  }
}

/** Exit status, stderr and stdout together decide: valid output with a warning is still valid output. */
export function interpret(kind: NvidiaQueryKind, outcome: CommandOutcome, now: number): NvidiaQueryResult {
  const fail = (error: NvidiaQueryError): NvidiaQueryResult => ({ ok: false, kind, error });
  switch (outcome.kind) {
    case 'spawn-error':
      return outcome.errno === 'ENOENT'
        ? fail({ kind: 'not-found', message: 'nvidia-smi is not installed (not found on PATH)' })
        : fail({ kind: 'spawn', message: outcome.message });
    case 'timeout':
      return fail({ kind: 'timeout', timeoutMs: outcome.timeoutMs });
    case 'too-large':
      return fail({ kind: 'too-large', limitBytes: outcome.limitBytes });
    case 'exited':
      break;
  }
  const { code, signal, stdout, stderr } = outcome;
  const noGpuText = NO_GPU_TEXT.exec(`${stdout}\n${stderr}`);
  if (code === 127)
    return fail({ kind: 'not-found', message: 'nvidia-smi could not be run (exit status 127)' });
  const parsed = kind === 'xml' ? parseNvidiaXml(stdout, now) : parseFast(stdout);
  const warnings = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (parsed.ok && (code === 0 || parsed.value.gpus.length > 0)) {
    if (code !== 0)
      warnings.push(`nvidia-smi exited with status ${code ?? signal} but printed a usable report`);
    return { ok: true, kind, report: parsed.value, warnings };
  }
  if (noGpuText) return fail({ kind: 'not-found', message: firstLine(noGpuText.input, noGpuText.index) });
  if (code !== 0) return fail({ kind: 'exit', code, signal, stderr: stderr.slice(0, 2000) });
  return fail({ kind: 'parse', message: parsed.ok ? 'no GPU in the report' : parsed.message });
}

function parseFast(stdout: string): { ok: true; value: NvidiaReport } | { ok: false; message: string } {
  const r = parseQueryGpuCsv(stdout);
  return r.ok ? { ok: true, value: { driverVersion: null, cudaVersion: null, gpus: r.value } } : r;
}

function firstLine(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end === -1 ? undefined : end).trim();
}
