// Benchmarks' stand-in trainer: one CPU-bound process per core at normal priority, counting its iterations.

import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';

/** The child's loop: fixed chunks of float work, with its own (time, iterations) printed every 100 ms. */
const LOOP = `
let n = 0, x = 0, next = performance.now() + 100;
for (;;) {
  for (let i = 0; i < 20000; i++) x = Math.sqrt(x + i) * 0.5;
  n++;
  const t = performance.timeOrigin + performance.now();
  if (t - performance.timeOrigin >= next) { process.stdout.write('c ' + t.toFixed(3) + ' ' + n + ' ' + (x > 0) + '\\n'); next += 100; }
}`;

export interface StandInTrainer {
  processes: number;
  pids: number[];
  /** Iterations per second summed over the processes, between two wall-clock times (ms since the epoch). */
  rate(fromMs: number, toMs: number): number;
  stop(): void;
}

/** Starts `processes` busy loops (default: one per core). */
export function startStandInTrainer(processes = availableParallelism()): StandInTrainer {
  const children: ChildProcess[] = [];
  const reports: [number, number][][] = [];
  for (let i = 0; i < processes; i++) {
    const child = spawn(process.execPath, ['-e', LOOP], { stdio: ['ignore', 'pipe', 'inherit'] });
    const mine: [number, number][] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [, t, n] = line.split(' ');
      mine.push([Number(t), Number(n)]);
    });
    children.push(child);
    reports.push(mine);
  }
  return {
    processes,
    pids: children.map((c) => c.pid!),
    rate(fromMs, toMs) {
      let sum = 0;
      for (const mine of reports) {
        // The child's own first and last report inside the window: its clock, not this process's lateness.
        const a = mine.find(([t]) => t >= fromMs);
        const b = mine.findLast(([t]) => t <= toMs);
        if (!a || !b || b[0] <= a[0]) return Number.NaN;
        sum += ((b[1] - a[1]) / (b[0] - a[0])) * 1000;
      }
      return sum;
    },
    stop: () => children.forEach((c) => c.kill()),
  };
}
