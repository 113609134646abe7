// Runs a short-lived command with a hard timeout (the process group is killed), an output cap and no shell.

import { spawn as nodeSpawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';

/** Injected so tests and benchmarks can count or replace launches; defaults to child_process.spawn. */
export type Spawner = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export const defaultSpawner: Spawner = (command, args, options) => nodeSpawn(command, args, options);

export interface RunOptions {
  timeoutMs: number;
  maxOutputBytes?: number;
  env?: NodeJS.ProcessEnv;
  spawner?: Spawner;
}

export type CommandOutcome =
  | { kind: 'exited'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { kind: 'spawn-error'; errno: string | null; message: string }
  | { kind: 'timeout'; pid: number | null; timeoutMs: number }
  | { kind: 'too-large'; limitBytes: number };

const DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024;
// POSIX: own process group, so a timeout kills the command and anything it started (a shell wrapper's child).
export const OWN_GROUP = process.platform !== 'win32';

export function runCommand(
  command: string,
  args: readonly string[],
  opts: RunOptions,
): Promise<CommandOutcome> {
  const spawner = opts.spawner ?? defaultSpawner;
  const limit = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  return new Promise((resolve) => {
    let settled = false;
    let child: ChildProcess;
    const finish = (outcome: CommandOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      killTree(child);
      finish({ kind: 'timeout', pid: child.pid ?? null, timeoutMs: opts.timeoutMs });
    }, opts.timeoutMs);
    try {
      child = spawner(command, args, {
        env: opts.env ?? process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: OWN_GROUP,
        windowsHide: true,
      });
    } catch (err) {
      clearTimeout(timer);
      const e = err as NodeJS.ErrnoException;
      resolve({ kind: 'spawn-error', errno: e.code ?? null, message: String(e.message ?? err) });
      return;
    }
    const out: Buffer[] = [];
    const errOut: Buffer[] = [];
    let bytes = 0;
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        killTree(child);
        finish({ kind: 'too-large', limitBytes: limit });
        return;
      }
      sink.push(chunk);
    };
    child.stdout?.on('data', collect(out));
    child.stderr?.on('data', collect(errOut));
    child.on('error', (err: NodeJS.ErrnoException) => {
      finish({ kind: 'spawn-error', errno: err.code ?? null, message: err.message });
    });
    child.on('close', (code, signal) => {
      finish({
        kind: 'exited',
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(errOut).toString('utf8'),
      });
    });
  });
}

/** SIGKILL to the child's process group (POSIX, spawned detached), else to the child alone. */
export function killTree(child: ChildProcess | undefined): void {
  if (!child) return;
  if (OWN_GROUP && child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
      return;
    } catch {
      // The group may already be gone, or the spawner did not detach: fall back to the process itself.
    }
  }
  try {
    child.kill('SIGKILL');
  } catch {
    // Already exited.
  }
}
