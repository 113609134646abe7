// Test helper: runs the built `rlwatch` CLI as a child process and waits for lines it prints.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');

export interface CliProcess {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<number | null>;
}

/** `nodeArgs`: node's own flags before the script (`--cpu-prof`, which NODE_OPTIONS refuses). */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: readonly string[] = [],
): CliProcess {
  const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer): void => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((res, rej) => {
        const check = (): void => {
          const m = out.match(pattern);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            res(m);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          rej(new Error(`timed out waiting for ${pattern} in output:\n${out}`));
        }, timeoutMs);
        waiters.add(check);
        void exited.then(() => setTimeout(check, 0));
        check();
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
