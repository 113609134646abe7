// /proc scanning and per-process CPU/RSS against a fake proc tree in a temp folder.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findPidsWithFilesUnder,
  parseStatTicks,
  parseStatusRssKiB,
  readProcStats,
} from '../../../src/core/system/proc';
import { TrainingProcessTracker } from '../../../src/core/system/training-process';

let root: string;
let proc: string;
const RUN = '/data/runs/ppo-7';

/** A process with the given open-file targets, CPU ticks and RSS. */
function addProcess(pid: number, targets: string[], ticks = 0, rssKiB = 1024, comm = 'python'): void {
  const dir = join(proc, String(pid));
  mkdirSync(join(dir, 'fd'), { recursive: true });
  targets.forEach((t, i) => symlinkSync(t, join(dir, 'fd', String(i))));
  setTicks(pid, ticks, comm);
  writeFileSync(
    join(dir, 'status'),
    `Name:\t${comm}\nVmPeak:\t 9999 kB\nVmRSS:\t ${rssKiB} kB\nThreads:\t4\n`,
  );
}

function setTicks(pid: number, ticks: number, comm = 'python'): void {
  const utime = Math.floor(ticks / 2);
  const stime = ticks - utime;
  writeFileSync(
    join(proc, String(pid), 'stat'),
    `${pid} (${comm}) S 1 ${pid} ${pid} 0 -1 4194304 100 0 0 0 ${utime} ${stime} 0 0 20 0 4 0 100 1000 250 18446744073709551615\n`,
  );
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-proc-'));
  proc = join(root, 'proc');
  mkdirSync(proc);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('proc parsing', () => {
  it('reads ticks after a command name holding spaces and parentheses', () => {
    expect(parseStatTicks('42 (my (weird) proc) R 1 42 42 0 -1 0 0 0 0 0 700 300 0 0')).toBe(1000);
    expect(parseStatTicks('garbage')).toBeNull();
    expect(parseStatTicks('1 (x) R 1')).toBeNull();
    expect(parseStatusRssKiB('VmRSS:\t  123456 kB\n')).toBe(123456);
    expect(parseStatusRssKiB('Name: kthreadd\n')).toBeNull();
  });
});

describe('findPidsWithFilesUnder', () => {
  it('finds writers under the folder, not a sibling with the same prefix, and skips excluded pids', async () => {
    addProcess(100, ['/dev/null', `${RUN}/events.out.tfevents.1`]);
    addProcess(200, ['/data/runs/ppo-70/log.csv']);
    addProcess(300, [`${RUN}/metrics.jsonl`]);
    addProcess(400, [RUN]);
    mkdirSync(join(proc, 'self'));
    writeFileSync(join(proc, 'uptime'), '1 1');
    expect((await findPidsWithFilesUnder(RUN, proc, new Set([300]))).sort()).toEqual([100, 400]);
  });

  it('is bounded: stops after maxProcesses entries and reads at most maxFdsPerProcess links', async () => {
    for (let pid = 1; pid <= 20; pid++) addProcess(pid, [`${RUN}/f`]);
    const few = await findPidsWithFilesUnder(RUN, proc, new Set(), { maxProcesses: 5, maxFdsPerProcess: 10 });
    expect(few).toHaveLength(5);
    addProcess(999, ['/a', '/b', '/c', `${RUN}/late`]);
    const none = await findPidsWithFilesUnder(RUN, proc, new Set(), {
      maxProcesses: 100,
      maxFdsPerProcess: 3,
    });
    expect(none).not.toContain(999);
  });

  it('a missing proc root finds nothing', async () => {
    expect(await findPidsWithFilesUnder(RUN, join(root, 'nope'), new Set())).toEqual([]);
    expect(await readProcStats(1, join(root, 'nope'))).toBeNull();
  });
});

describe('TrainingProcessTracker', () => {
  it('reports the run-folder writer: CPU % from tick deltas, RSS from VmRSS', async () => {
    addProcess(100, [`${RUN}/events.out.tfevents.1`], 1000, 2 * 1024 * 1024);
    addProcess(555, ['/other'], 0);
    let now = 0;
    const tracker = new TrainingProcessTracker({
      procRoot: proc,
      now: () => now,
      hasProc: true,
      excludePids: [],
    });
    tracker.setRunFolder(RUN);
    const first = await tracker.sample([]);
    expect(first).toEqual({ pids: [100], foundVia: 'run-folder', cpuPct: null, rssMiB: 2048 });
    now += 2000;
    setTicks(100, 1000 + 300); // 3 s of CPU in 2 s = 150 % of a core
    const second = await tracker.sample([{ pid: 100, name: 'python', type: 'C', usedMemoryMiB: 9000 }]);
    expect(second).toEqual({ pids: [100], foundVia: 'both', cpuPct: 150, rssMiB: 2048 });
  });

  it('without a run-folder writer uses the GPU compute processes, never graphics-only ones', async () => {
    addProcess(4937, ['/dev/nvidia0'], 50, 4096);
    addProcess(1842, ['/dev/nvidia0'], 50, 4096);
    const tracker = new TrainingProcessTracker({
      procRoot: proc,
      now: () => 0,
      hasProc: true,
      excludePids: [],
    });
    tracker.setRunFolder(RUN);
    const s = await tracker.sample([
      { pid: 1842, name: 'cosmic-comp', type: 'G', usedMemoryMiB: 410 },
      { pid: 4937, name: 'python', type: 'C', usedMemoryMiB: 160 },
    ]);
    expect(s).toEqual({ pids: [4937], foundVia: 'gpu', cpuPct: null, rssMiB: 4 });
    expect(await tracker.sample([])).toBeNull();
  });

  it('excludes rlwatch itself, which holds the run files open to tail them', async () => {
    addProcess(321, [`${RUN}/metrics.jsonl`]);
    const tracker = new TrainingProcessTracker({
      procRoot: proc,
      now: () => 0,
      hasProc: true,
      excludePids: [321],
    });
    tracker.setRunFolder(RUN);
    expect(await tracker.sample([])).toBeNull();
  });

  it('rescans at once when a writer exits, else only every rescanFoundMs', async () => {
    addProcess(100, [`${RUN}/a`]);
    let now = 0;
    const tracker = new TrainingProcessTracker({
      procRoot: proc,
      now: () => now,
      hasProc: true,
      excludePids: [],
      rescanFoundMs: 60_000,
    });
    tracker.setRunFolder(RUN);
    expect((await tracker.sample([]))?.pids).toEqual([100]);
    addProcess(200, [`${RUN}/b`]);
    now += 1000;
    expect((await tracker.sample([]))?.pids).toEqual([100]);
    rmSync(join(proc, '100'), { recursive: true });
    now += 1000;
    await tracker.sample([]);
    now += 1000;
    expect((await tracker.sample([]))?.pids).toEqual([200]);
  });

  it('without /proc (macOS, Windows) reports GPU pids with null CPU and RSS', async () => {
    const tracker = new TrainingProcessTracker({ now: () => 0, hasProc: false, excludePids: [] });
    expect(await tracker.sample([{ pid: 7, name: null, type: 'C', usedMemoryMiB: null }])).toEqual({
      pids: [7],
      foundVia: 'gpu',
      cpuPct: null,
      rssMiB: null,
    });
  });
});

describe('TrainingProcessTracker with a symlinked run folder', () => {
  it('resolves the folder before comparing with /proc link targets', async () => {
    const real = join(root, 'real-run');
    mkdirSync(real);
    symlinkSync(real, join(root, 'link-run'));
    addProcess(100, [join(real, 'events.out.tfevents.1')]);
    const tracker = new TrainingProcessTracker({
      procRoot: proc,
      now: () => 0,
      hasProc: true,
      excludePids: [],
    });
    tracker.setRunFolder(join(root, 'link-run'));
    expect((await tracker.sample([]))?.pids).toEqual([100]);
  });
});
