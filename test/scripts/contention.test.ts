// The contended budget's stand-in trainer (scripts/lib/contention.js): busy processes at this process's priority, gone once stopped.
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startContention } from '../../scripts/lib/contention.js';

/** utime + stime (clock ticks) and the nice value of a process, from /proc/PID/stat. */
function stat(pid: number): { cpu: number; nice: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { cpu: Number(f[11]) + Number(f[12]), nice: Number(f[16]) };
}

/** Running: the process exists and is not a zombie (killed, its exit not yet collected by this process). */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
};

/** Waits until `ok`, failing with `what` after 20 s (a test's timeout would not say which wait it was). */
const until = async (ok: () => boolean, what: string): Promise<void> => {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > 20_000) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('contention for the contended budget', () => {
  it('starts the busy processes asked for, each spending CPU at normal priority, and stop() ends them', async () => {
    const c = startContention(2);
    try {
      expect(c.count).toBe(2);
      expect(c.pids).toHaveLength(2);
      await until(() => c.pids.every((pid) => stat(pid).cpu > 0), 'each spinner to spend CPU');
      for (const pid of c.pids) expect(stat(pid).nice).toBe(getPriority());
    } finally {
      c.stop();
    }
    await until(() => c.pids.every((pid) => !alive(pid)), 'each spinner to end once stopped');
    expect(c.pids.filter(alive)).toEqual([]);
  });
});
