// Test and benchmark helper: Debian's prometheus, promtool and alertmanager as child processes on free loopback ports.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';
export const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';
export const AMTOOL = '/usr/bin/amtool';

/** Fails (never skips) when a binary is missing, saying how to get it. */
export function requireBinary(path: string, aptPackage: string): string {
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: install it with 'apt-get install -y ${aptPackage}' (CI does, in .ci/run)`,
    );
  return path;
}

/** Runs a checker (promtool, amtool) to completion: its exit status and everything it printed. */
export function check(bin: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A port free on 127.0.0.1 right now (Prometheus and Alertmanager need a fixed one). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

export interface Daemon {
  child: ChildProcess;
  base: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `bin` listening on `port` and waits until `readyPath` answers 200. */
export async function startDaemon(
  bin: string,
  args: string[],
  port: number,
  readyPath: string,
): Promise<Daemon> {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const base = `http://127.0.0.1:${port}`;
  await untilReady(async () => {
    if (child.exitCode !== null) throw new Error(`${bin} exited ${child.exitCode}:\n${out}`);
    const status = await fetch(base + readyPath).then(
      (r) => r.status,
      () => 0,
    );
    return status === 200;
  }, `${bin} ready at ${base}${readyPath}`);
  return {
    child,
    base,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls an async check every 100 ms for 30 s (no vitest here: the benchmarks start daemons too). */
async function untilReady(ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export interface PromSample {
  metric: Record<string, string>;
  value?: [number, string];
  values?: [number, string][];
}

/** An instant query through Prometheus's HTTP API; a failed query throws with Prometheus's error. */
export async function promQuery(base: string, expr: string): Promise<PromSample[]> {
  const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as { status: string; error?: string; data?: { result: PromSample[] } };
  if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error}`);
  return body.data!.result;
}
