// A fake /proc tree in a temp folder: processes with fd links, cwd link, cmdline, stat and status.

import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeProcess {
  /** Open-file targets (fd links). */
  fds?: string[];
  /** How each of `fds` was opened (its fdinfo flags): 'r' read-only, 'w' for writing; none: no fdinfo. */
  modes?: ('r' | 'w')[];
  cwd?: string;
  argv?: string[];
  ticks?: number;
  rssKiB?: number;
  ppid?: number;
  /** starttime (ticks since boot): a reused pid gets another. */
  start?: number;
  state?: string;
  comm?: string;
}

export class FakeProc {
  constructor(readonly root: string) {
    mkdirSync(root, { recursive: true });
  }

  add(pid: number, p: FakeProcess = {}): void {
    const dir = join(this.root, String(pid));
    mkdirSync(join(dir, 'fd'), { recursive: true });
    (p.fds ?? []).forEach((t, i) => symlinkSync(t, join(dir, 'fd', String(i))));
    if (p.modes) {
      mkdirSync(join(dir, 'fdinfo'), { recursive: true });
      // O_RDONLY is 0; O_WRONLY|O_APPEND|O_LARGEFILE (a logger appending) is 0102001.
      p.modes.forEach((m, i) =>
        writeFileSync(
          join(dir, 'fdinfo', String(i)),
          `pos:\t0\nflags:\t${m === 'r' ? '0100000' : '0102001'}\nmnt_id:\t1\n`,
        ),
      );
    }
    if (p.cwd !== undefined) symlinkSync(p.cwd, join(dir, 'cwd'));
    writeFileSync(join(dir, 'cmdline'), (p.argv ?? ['python']).map((a) => a + '\0').join(''));
    this.setStat(pid, p);
    writeFileSync(
      join(dir, 'status'),
      `Name:\t${p.comm ?? 'python'}\nVmPeak:\t 9999 kB\nVmRSS:\t ${p.rssKiB ?? 1024} kB\nThreads:\t4\n`,
    );
  }

  /** Rewrites /proc/PID/stat (CPU ticks, state, parent, start time). */
  setStat(pid: number, p: FakeProcess = {}): void {
    const ticks = p.ticks ?? 0;
    const utime = Math.floor(ticks / 2);
    const stime = ticks - utime;
    const comm = p.comm ?? 'python';
    writeFileSync(
      join(this.root, String(pid), 'stat'),
      `${pid} (${comm}) ${p.state ?? 'S'} ${p.ppid ?? 1} ${pid} ${pid} 0 -1 4194304 100 0 0 0 ${utime} ${stime} 0 0 20 0 4 0 ${p.start ?? 100} 1000 250 18446744073709551615\n`,
    );
  }

  remove(pid: number): void {
    rmSync(join(this.root, String(pid)), { recursive: true, force: true });
  }
}
