// The sampler on a fake clock: cadence, hidden slow-down, history bound, null-on-failure, "no GPU" announced once.

import { describe, expect, it } from 'vitest';
import type {
  GpuProcess,
  NvidiaGpu,
  ProcessExit,
  SystemSnapshot,
  TrainingProcess,
} from '../../../src/shared/system-types';
import type { RunDir } from '../../../src/core/system/training-process';
import { NvidiaSource } from '../../../src/core/system/nvidia-source';
import { RingBuffer } from '../../../src/core/system/ring-buffer';
import { SystemSampler } from '../../../src/core/system/sampler';
import type { Clock } from '../../../src/core/system/clock';
import { toSystemWatchLine } from '../../../src/core/system/watch-line';
import { parseNvidiaXml } from '../../../src/core/system/nvidia-xml';
import { readXml } from './fixtures';

class FakeClock implements Clock {
  t = 1_700_000_000_000;
  private timers: Array<{ id: number; at: number; fn: () => void }> = [];
  private nextId = 1;
  now = (): number => this.t;
  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.timers.push({ id, at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown): void => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  get pending(): number {
    return this.timers.length;
  }
  /** Runs every timer due within `ms`, letting the async ticks they start finish in between. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await flush();
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

const host = async () => ({ cpuPct: 12.5, memPct: 40, memUsedMiB: 4096, memTotalMiB: 10240 });

type NvidiaSampleLike = Awaited<ReturnType<NvidiaSource['sample']>>;

/** A recorded 2-GPU machine (two RTX 2080s). */
function dual(): NvidiaGpu[] {
  const r = parseNvidiaXml(readXml('dual_2080-v13.xml'), 0);
  if (!r.ok) throw new Error(r.message);
  return r.value.gpus;
}

function t4(): NvidiaGpu[] {
  const r = parseNvidiaXml(readXml('tesla-t4.xml'), 0);
  if (!r.ok) throw new Error(r.message);
  return r.value.gpus;
}

describe('SystemSampler', () => {
  it('samples at once on start, then every second, each snapshot timestamped and kept in a bounded history', async () => {
    const clock = new FakeClock();
    const sampler = new SystemSampler({ host }, { clock, historySize: 3 });
    const seen: SystemSnapshot[] = [];
    sampler.subscribe((s) => seen.push(s));
    sampler.start();
    await clock.advance(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      t: clock.t,
      cpuPct: 12.5,
      memPct: 40,
      memUsedMiB: 4096,
      memTotalMiB: 10240,
      gpus: null,
      appleGpu: null,
      trainingProcesses: [],
      processExits: [],
    });
    await clock.advance(4000);
    expect(seen.map((s) => s.t - seen[0]!.t)).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(sampler.getHistory().map((s) => s.t)).toEqual(seen.slice(2).map((s) => s.t));
    expect(sampler.latest()).toBe(seen[4]);
    sampler.stop();
    await clock.advance(5000);
    expect(seen).toHaveLength(5);
    expect(clock.pending).toBe(0);
  });

  it('slows down while hidden and speeds up again; the interval is settable', async () => {
    const clock = new FakeClock();
    const sampler = new SystemSampler({ host }, { clock, hiddenIntervalMs: 5000 });
    let n = 0;
    sampler.subscribe(() => n++);
    sampler.start();
    await clock.advance(0);
    sampler.setHidden(true);
    await clock.advance(10_000);
    expect(n).toBe(3);
    sampler.setHidden(false);
    await clock.advance(3000);
    expect(n).toBe(6);
    sampler.setIntervalMs(500);
    await clock.advance(2000);
    expect(n).toBe(10);
    sampler.stop();
  });

  it('hiding the window pauses the NVIDIA stream and showing it resumes the stream', () => {
    const clock = new FakeClock();
    const paused: boolean[] = [];
    const nvidia = {
      sample: async () => ({ gpus: null, status: { state: 'pending' as const }, changed: false }),
      pauseStream: (p: boolean) => paused.push(p),
    };
    const sampler = new SystemSampler({ host, nvidia }, { clock, hiddenIntervalMs: 5000 });
    sampler.setHidden(true);
    sampler.setHidden(false);
    expect(paused).toEqual([true, false]);
    // A hidden interval no slower than the visible one keeps streaming.
    const fast = new SystemSampler({ host, nvidia }, { clock, hiddenIntervalMs: 1000 });
    fast.setHidden(true);
    expect(paused).toEqual([true, false, false]);
  });

  it('a failing source gives nulls, a throwing subscriber does not stop the others', async () => {
    const clock = new FakeClock();
    const sampler = new SystemSampler(
      {
        host: async () => {
          throw new Error('boom');
        },
        apple: { sample: async () => Promise.reject(new Error('ioreg died')) },
      },
      { clock },
    );
    sampler.subscribe(() => {
      throw new Error('window closed');
    });
    const got: SystemSnapshot[] = [];
    sampler.subscribe((s) => got.push(s));
    const s = await sampler.sampleOnce();
    expect(s).toMatchObject({
      cpuPct: null,
      memPct: null,
      memUsedMiB: null,
      memTotalMiB: null,
      appleGpu: null,
    });
    expect(got).toEqual([s]);
  });

  it('without an NVIDIA source the status is "disabled", announced on the first snapshot only', async () => {
    const sampler = new SystemSampler(
      { host },
      { clock: new FakeClock(), nvidiaDisabledMessage: 'NVIDIA GPUs are not supported on macOS' },
    );
    const a = await sampler.sampleOnce();
    const b = await sampler.sampleOnce();
    expect(a.nvidia).toEqual({ state: 'disabled', message: 'NVIDIA GPUs are not supported on macOS' });
    expect([a.nvidiaChanged, b.nvidiaChanged]).toEqual([true, false]);
  });

  it('no NVIDIA GPU: one snapshot says so (changed), the next fifty do not, and nvidia-smi is asked twice in a minute', async () => {
    const clock = new FakeClock();
    let asked = 0;
    const nvidia = new NvidiaSource(
      {
        query: async (kind) => {
          asked++;
          return {
            ok: false,
            kind,
            error: { kind: 'not-found', message: 'nvidia-smi is not installed (not found on PATH)' },
          };
        },
      },
      { now: clock.now, absentRetryMs: 30_000 },
    );
    const sampler = new SystemSampler({ host, nvidia }, { clock });
    const seen: SystemSnapshot[] = [];
    sampler.subscribe((s) => seen.push(s));
    sampler.start();
    await clock.advance(50_000);
    sampler.stop();
    expect(seen).toHaveLength(51);
    expect(seen.filter((s) => s.nvidiaChanged).map((s) => s.nvidia)).toEqual([
      {
        state: 'absent',
        message: 'no NVIDIA GPU found',
        reason: 'nvidia-smi is not installed (not found on PATH)',
      },
    ]);
    expect(asked).toBe(2);
    expect(seen.every((s) => s.gpus === null && s.cpuPct === 12.5)).toBe(true);
  });

  it('hands the GPU process list to the training-process tracker, the runs through, and its answer on', async () => {
    const gpus = t4();
    let given: readonly GpuProcess[] = [];
    let runs: readonly RunDir[] = [];
    const proc: TrainingProcess = {
      run: 'a',
      processes: [{ pid: 5762, evidence: 'cwd', onGpu: true }],
      cpuPct: 99,
      rssMiB: 3000,
    };
    const exit: ProcessExit = { run: 'b', pids: [77], at: 2, lastSeenAt: 1 };
    const sampler = new SystemSampler(
      {
        nvidia: {
          sample: async () => ({
            gpus,
            status: { state: 'ok', gpuCount: 1, driverVersion: null },
            changed: false,
          }),
        },
        training: {
          setRuns: (r) => {
            runs = r;
          },
          sample: async (procs) => {
            given = procs;
            return { processes: [proc], exited: [exit] };
          },
        },
      },
      { clock: new FakeClock() },
    );
    sampler.setRuns([{ run: 'a', dir: '/runs/a' }]);
    const s = await sampler.sampleOnce();
    expect(runs).toEqual([{ run: 'a', dir: '/runs/a' }]);
    expect(given.map((p) => p.pid)).toEqual([675, 5762]);
    expect(s.trainingProcesses).toEqual([proc]);
    expect(s.processExits).toEqual([exit]);
    expect(s.gpus).toBe(gpus);
  });

  it('maps a snapshot to the watch --json "system" line of the command-line contract', async () => {
    const sampler = new SystemSampler(
      {
        host,
        nvidia: {
          sample: async () => ({
            gpus: t4(),
            status: { state: 'ok', gpuCount: 1, driverVersion: null },
            changed: true,
          }),
        },
      },
      { clock: new FakeClock() },
    );
    const line = toSystemWatchLine(await sampler.sampleOnce(), 42);
    expect(line).toEqual({
      t: 42,
      type: 'system',
      cpuPct: 12.5,
      memPct: 40,
      gpusStale: false,
      gpus: [
        {
          index: 0,
          name: 'Tesla T4',
          utilizationPct: 0,
          memoryUsedMiB: 1032,
          memoryTotalMiB: 15360,
          temperatureC: 40,
          powerDrawW: 26.78,
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(line))).toEqual(line);
  });

  it('concurrent sampleOnce calls share one tick', async () => {
    let calls = 0;
    const sampler = new SystemSampler(
      {
        host: async () => {
          calls++;
          return host();
        },
      },
      { clock: new FakeClock() },
    );
    const [a, b] = await Promise.all([sampler.sampleOnce(), sampler.sampleOnce()]);
    expect(a).toBe(b);
    expect(calls).toBe(1);
  });

  it('stop() stops the NVIDIA source too (its long-lived nvidia-smi), even when that throws', async () => {
    const clock = new FakeClock();
    let stops = 0;
    const nvidia = {
      sample: async () => ({ gpus: null, status: { state: 'pending' as const }, changed: false }),
      stop: () => {
        stops++;
        throw new Error('already gone');
      },
    };
    const sampler = new SystemSampler({ host, nvidia }, { clock });
    sampler.start();
    await clock.advance(2000);
    sampler.stop();
    expect(stops).toBe(1);
    expect(sampler.isRunning).toBe(false);
    expect(clock.pending).toBe(0);
  });

  it('a hung nvidia-smi never holds back the CPU and memory fields, and is asked once while it hangs', async () => {
    const clock = new FakeClock();
    const gpus = t4();
    let calls = 0;
    const nvidia = {
      sample: () => {
        calls++;
        // The first query answers; every later one hangs (a wedged driver).
        return calls === 1
          ? Promise.resolve({
              gpus,
              status: { state: 'ok' as const, gpuCount: 1, driverVersion: '1' },
              changed: true,
            })
          : new Promise<never>(() => {});
      },
    };
    const sampler = new SystemSampler({ host, nvidia }, { clock, intervalMs: 1000 });
    const seen: SystemSnapshot[] = [];
    sampler.subscribe((s) => seen.push(s));
    sampler.start();
    await clock.advance(10_000);
    sampler.stop();
    // One snapshot a second, each with the host's fields, although nvidia-smi stopped answering at 1 s.
    expect(seen.length).toBeGreaterThanOrEqual(10);
    expect(seen.every((s) => s.cpuPct === 12.5 && s.memPct === 40)).toBe(true);
    expect(seen.map((s) => s.t - seen[0]!.t).slice(0, 4)).toEqual([0, 1000, 2000, 3000]);
    // The hung query is not started again every tick.
    expect(calls).toBe(2);
    // The last GPU read stays, marked stale (never an empty list), and the panel is told nvidia-smi stopped answering.
    expect(seen[0]!.gpusStale).toBeUndefined();
    expect(seen.slice(1).every((s) => s.gpusStale === true && s.gpus === gpus)).toBe(true);
    expect(seen.at(-1)!.nvidia).toMatchObject({ state: 'failing', error: { kind: 'timeout' } });
    // The timeout status is announced once, when it starts.
    expect(seen.filter((x) => x.nvidia.state === 'failing' && x.nvidiaChanged)).toHaveLength(1);
  });

  it('before nvidia-smi first answers, a late tick says "pending" (not failing) for as long as its own timeout', async () => {
    const clock = new FakeClock();
    const gpus = t4();
    const ok = { state: 'ok' as const, gpuCount: 1, driverVersion: '1' };
    // A slow first run (2.5 s: a busy machine), then at once.
    let calls = 0;
    const slowFirst = {
      sample: () => {
        calls++;
        const answer = { gpus, status: ok, changed: calls === 1 };
        return calls === 1
          ? new Promise<NvidiaSampleLike>((r) => clock.setTimeout(() => r(answer), 2500))
          : Promise.resolve(answer);
      },
    };
    const seen: SystemSnapshot[] = [];
    const sampler = new SystemSampler({ host, nvidia: slowFirst }, { clock, intervalMs: 1000 });
    sampler.subscribe((s) => seen.push(s));
    sampler.start();
    await clock.advance(6_000);
    sampler.stop();
    const states = seen.map((s) => `${s.nvidia.state}${s.nvidiaChanged ? '!' : ''}`);
    expect(states.slice(0, 4)).toEqual(['pending', 'pending', 'ok!', 'ok']);
    expect(states.filter((x) => x.includes('failing'))).toEqual([]);

    // One that never answers: pending through the grace, then "has not answered", announced once.
    const hung = { sample: () => new Promise<never>(() => {}) };
    const seen2: SystemSnapshot[] = [];
    const sampler2 = new SystemSampler({ host, nvidia: hung }, { clock, intervalMs: 1000 });
    sampler2.subscribe((s) => seen2.push(s));
    sampler2.start();
    await clock.advance(9_000);
    sampler2.stop();
    const first = seen2[0]!.t;
    const failing = seen2.filter((s) => s.nvidia.state === 'failing');
    expect(seen2.filter((s) => s.t - first < 4_000).every((s) => s.nvidia.state === 'pending')).toBe(true);
    expect(failing.length).toBeGreaterThanOrEqual(3);
    expect(failing[0]!.nvidia).toMatchObject({ error: { kind: 'timeout' } });
    expect(seen2.filter((s) => s.nvidiaChanged).map((s) => s.nvidia.state)).toEqual(['failing']);
  });

  it('a 2-GPU machine never reads as "no GPU" between two samples: a late or empty read repeats the last, stale', async () => {
    const clock = new FakeClock();
    const gpus = dual();
    const ok = { state: 'ok' as const, gpuCount: 2, driverVersion: '1' };
    // Fresh, a stream restarting (no rows yet), a read past the tick's deadline (a loaded machine), a timeout,
    // fresh again; then nvidia-smi says there is no GPU.
    const answers: Array<() => Promise<NvidiaSampleLike>> = [
      async () => ({ gpus, status: ok, changed: true }),
      async () => ({ gpus: null, status: ok, changed: false }),
      () => new Promise((r) => clock.setTimeout(() => r({ gpus, status: ok, changed: false }), 1500)),
      async () => ({
        gpus: null,
        status: { state: 'failing', message: 't', error: { kind: 'timeout', timeoutMs: 5000 } },
        changed: true,
      }),
      async () => ({ gpus, status: ok, changed: true }),
      async () => ({ gpus: null, status: { state: 'absent', message: 'no', reason: 'no' }, changed: true }),
    ];
    let call = 0;
    const nvidia = { sample: () => answers[Math.min(call++, answers.length - 1)]!() };
    const sampler = new SystemSampler({ host, nvidia }, { clock, intervalMs: 1000 });
    const lines: ReturnType<typeof toSystemWatchLine>[] = [];
    sampler.subscribe((s) => lines.push(toSystemWatchLine(s, s.t)));
    sampler.start();
    await clock.advance(7_500);
    sampler.stop();
    const shape = lines.map(
      (l) => `${l.gpus.map((g) => g.index).join('+') || 'none'}${l.gpusStale ? ' stale' : ''}`,
    );
    // The late read lands during the next tick: that tick is fresh again.
    expect(shape.slice(0, 7)).toEqual(['0+1', '0+1 stale', '0+1 stale', '0+1', '0+1 stale', '0+1', 'none']);
  });
});

describe('RingBuffer', () => {
  it('keeps the newest items in order', () => {
    const r = new RingBuffer<number>(3);
    expect(r.latest()).toBeUndefined();
    [1, 2, 3, 4, 5].forEach((n) => r.push(n));
    expect(r.toArray()).toEqual([3, 4, 5]);
    expect([r.size, r.latest()]).toEqual([3, 5]);
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});
