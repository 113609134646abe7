// The per-run training-process tracker on a fake /proc: each run its own process or none, GPU use no evidence, exits reported.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GpuProcess } from '../../../src/shared/system-types';
import { TrainingProcessTracker } from '../../../src/core/system/training-process';
import type { TrainingProcessOptions } from '../../../src/core/system/training-process';
import { FakeProc } from './fake-proc';

const ROOT = '/data/runs';
const RUNS = ['a', 'b', 'c'].map((run) => ({ run, dir: `${ROOT}/${run}` }));
const gpu = (pid: number, type = 'C'): GpuProcess => ({ pid, name: 'python', type, usedMemoryMiB: 100 });

let tmp: string;
let proc: FakeProc;
let now: number;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-train-'));
  proc = new FakeProc(join(tmp, 'proc'));
  now = 1_000_000;
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const tracker = (o: Partial<TrainingProcessOptions> = {}): TrainingProcessTracker => {
  const t = new TrainingProcessTracker({
    procRoot: proc.root,
    now: () => now,
    hasProc: true,
    excludePids: [],
    ...o,
  });
  t.setRuns(RUNS);
  return t;
};

describe('TrainingProcessTracker', () => {
  it('gives each run its own process with the evidence, and none to a run without evidence', async () => {
    proc.add(100, { fds: [`${ROOT}/a/progress.csv`], ticks: 1000, rssKiB: 2 * 1024 * 1024 });
    proc.add(200, { cwd: `${ROOT}/b`, argv: ['python', 'train.py'], rssKiB: 1024 });
    proc.add(300, { cwd: '/data', argv: ['python', 'train.py', '--logdir', 'runs/c'], rssKiB: 1024 });
    proc.add(555, { fds: ['/other'] });
    const t = tracker();
    const first = await t.sample([]);
    expect(first).toEqual({
      processes: [
        {
          run: 'a',
          processes: [{ pid: 100, evidence: 'open-files', onGpu: false }],
          cpuPct: null,
          rssMiB: 2048,
        },
        { run: 'b', processes: [{ pid: 200, evidence: 'cwd', onGpu: false }], cpuPct: null, rssMiB: 1 },
        {
          run: 'c',
          processes: [{ pid: 300, evidence: 'command-line', onGpu: false }],
          cpuPct: null,
          rssMiB: 1,
        },
      ],
      exited: [],
    });
    now += 2000;
    proc.setStat(100, { ticks: 1000 + 300 }); // 3 s of CPU in 2 s = 150 % of a core
    const second = await t.sample([gpu(100)]);
    expect(second.processes[0]).toEqual({
      run: 'a',
      processes: [{ pid: 100, evidence: 'open-files', onGpu: true }],
      cpuPct: 150,
      rssMiB: 2048,
    });
  });

  it('a run with no evidence is not found, never another run’s process', async () => {
    proc.add(100, { fds: [`${ROOT}/a/progress.csv`] });
    const s = await tracker().sample([]);
    expect(s.processes.map((p) => p.run)).toEqual(['a']);
  });

  it('a process only on the GPU is no run’s trainer (graphics or compute)', async () => {
    proc.add(4937, { fds: ['/dev/nvidia0'], cwd: '/home/u' });
    proc.add(1842, { fds: ['/dev/nvidia0'], cwd: '/home/u', argv: ['cosmic-comp'] });
    const s = await tracker().sample([gpu(1842, 'G'), gpu(4937)]);
    expect(s).toEqual({ processes: [], exited: [] });
  });

  it('never rlwatch itself or its parent (the defaults), though both hold or work in run A', async () => {
    proc.add(process.pid, { fds: [`${ROOT}/a/metrics.jsonl`], cwd: `${ROOT}/a` });
    proc.add(process.ppid, { cwd: `${ROOT}/a`, argv: ['bash'] });
    proc.add(700, { cwd: `${ROOT}/a`, argv: ['rlwatch', 'agent', '.'] });
    const t = new TrainingProcessTracker({ procRoot: proc.root, now: () => now, hasProc: true });
    t.setRuns(RUNS);
    expect((await t.sample([gpu(process.pid)])).processes).toEqual([]);
  });

  it('reports a run whose known processes all exited, once, and then shows it as not found', async () => {
    proc.add(100, { fds: [`${ROOT}/a/progress.csv`] });
    proc.add(200, { cwd: `${ROOT}/b` });
    proc.add(201, { cwd: `${ROOT}/b` });
    const t = tracker();
    await t.sample([]);
    now += 1000;
    const seenAt = now;
    expect((await t.sample([])).exited).toEqual([]);
    now += 1000;
    proc.remove(100); // SIGKILL: the entry is gone
    proc.remove(200); // one of b's two workers: b is still running
    const s = await t.sample([]);
    expect(s.exited).toEqual([{ run: 'a', pids: [100], at: now, lastSeenAt: seenAt }]);
    expect(s.processes.map((p) => [p.run, p.processes.map((q) => q.pid)])).toEqual([['b', [201]]]);
    now += 1000;
    expect(await t.sample([])).toEqual({
      processes: [
        { run: 'b', processes: [{ pid: 201, evidence: 'cwd', onGpu: false }], cpuPct: 0, rssMiB: 1 },
      ],
      exited: [],
    });
  });

  it('a zombie or a reused pid counts as exited', async () => {
    proc.add(100, { fds: [`${ROOT}/a/x`], start: 500 });
    proc.add(200, { cwd: `${ROOT}/b`, start: 600 });
    const t = tracker();
    await t.sample([]);
    proc.setStat(100, { state: 'Z', start: 500 });
    proc.setStat(200, { start: 9999 }); // pid 200 is now another process, started later
    now += 1000;
    expect((await t.sample([])).exited.map((e) => e.run)).toEqual(['a', 'b']);
  });

  it('a restart is found at once after an exit; scans are rare while every run has a process', async () => {
    proc.add(100, { fds: [`${ROOT}/a/x`] });
    const t = tracker({ rescanMs: 30_000, rescanFoundMs: 120_000 });
    t.setRuns([RUNS[0]!]);
    expect((await t.sample([])).processes[0]?.processes[0]?.pid).toBe(100);
    proc.add(101, { fds: [`${ROOT}/a/y`] });
    now += 1000;
    expect((await t.sample([])).processes[0]?.processes.map((q) => q.pid)).toEqual([100]);
    proc.remove(100);
    now += 1000;
    const exitSample = await t.sample([]);
    expect(exitSample.exited.map((e) => e.run)).toEqual(['a']);
    now += 1000;
    expect((await t.sample([])).processes[0]?.processes.map((q) => q.pid)).toEqual([101]);
  });

  it('a process keeps its run while it lives, though it holds the file open only now and then', async () => {
    proc.add(100, { fds: [`${ROOT}/a/x`] });
    const t = tracker({ rescanMs: 0, rescanFoundMs: 0 });
    await t.sample([]);
    proc.remove(100);
    proc.add(100, { fds: [] });
    now += 1000;
    expect((await t.sample([])).processes.map((p) => p.run)).toEqual(['a']);
  });

  it('a run removed from the list loses its process; a new run is looked for at once', async () => {
    proc.add(100, { fds: [`${ROOT}/a/x`] });
    proc.add(400, { cwd: `${ROOT}/d` });
    const t = tracker({ rescanFoundMs: 1e9, rescanMs: 1e9 });
    expect((await t.sample([])).processes.map((p) => p.run)).toEqual(['a']);
    t.setRuns([...RUNS.slice(1), { run: 'd', dir: `${ROOT}/d` }]);
    const s = await t.sample([]);
    expect(s.processes.map((p) => p.run)).toEqual(['d']);
    expect(s.exited).toEqual([]);
  });

  it('without /proc (macOS, Windows) nothing is attributed, GPU processes included', async () => {
    const t = new TrainingProcessTracker({ now: () => 0, hasProc: false, excludePids: [] });
    t.setRuns(RUNS);
    expect(await t.sample([gpu(7)])).toEqual({ processes: [], exited: [] });
  });

  it('resolves a symlinked run folder before comparing with /proc link targets', async () => {
    const real = join(tmp, 'real-run');
    mkdirSync(real);
    symlinkSync(real, join(tmp, 'link-run'));
    proc.add(100, { fds: [join(real, 'events.out.tfevents.1')] });
    const t = tracker();
    t.setRuns([{ run: 'linked', dir: join(tmp, 'link-run') }]);
    expect((await t.sample([])).processes.map((p) => p.run)).toEqual(['linked']);
  });
  it('the same list of 10k runs again is taken in without serialising it, and a changed one still counts', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ run: `r${i}`, dir: `${ROOT}/r${i}` }));
    const t = tracker();
    t.setRuns(many(10_000));
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      t.setRuns(many(10_000));
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    proc.add(100, { fds: [`${ROOT}/r10000/x`] });
    t.setRuns(many(10_001));
    expect((await t.sample([])).processes.map((p) => p.run)).toEqual(['r10000']);
  });
});
