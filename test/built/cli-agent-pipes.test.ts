// The built `rlwatch agent` as a process whose stdout and stderr pipe has no reader: it does not spin, and exits on SIGTERM.

import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) the process has used, from /proc/PID/stat (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((res) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), res(true)));
    c.once('error', () => res(false));
  });

test('agent with a closed stdout/stderr pipe (`2>&1 | head -1`) stays idle and exits on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-agent-pipe-'));
  try {
    // A pipe whose reader is gone before the agent writes: its every write fails with EPIPE.
    const fifo = join(dir, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    closeSync(reader);
    const folder = join(dir, 'runs');
    execFileSync('mkdir', [folder]);
    const port = await freePort();
    const agent = spawn(process.execPath, [CLI, 'agent', folder, '--port', String(port)], {
      stdio: ['ignore', writer, writer],
      env: { ...process.env, RLWATCH_STORE: 'memory' },
    });
    closeSync(writer);
    const exited = new Promise<number | null>((res) => agent.once('exit', (code) => res(code)));
    try {
      // Up once it accepts connections (a spinning agent never does: a bounded wait, then it is measured anyway).
      for (let i = 0; i < 150 && !(await accepts(port)); i++) await sleep(100);
      const before = cpuSeconds(agent.pid!);
      await sleep(2000);
      const spent = cpuSeconds(agent.pid!) - before;
      // Idle: a few timers. The loop of logging its own EPIPE into the dead pipe took a whole core.
      expect(spent).toBeLessThan(0.5);
      agent.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(15_000).then(() => 'still running' as const)]);
      expect(code).toBe(0);
    } finally {
      if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
      await exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
