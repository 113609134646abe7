// The long-lived `nvidia-smi -lms` stream: real spawns of a fake nvidia-smi (values, restart, no respawn storm, kill) and row-set assembly.

import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NvidiaStream } from '../../../src/core/system/nvidia-stream';
import type { StreamRead } from '../../../src/core/system/nvidia-stream';
import type { Spawner } from '../../../src/core/system/run-command';
import { installFakeNvidiaSmi, isGone } from './fake-nvidia-smi';
import type { FakeNvidiaSmi } from './fake-nvidia-smi';
import { parseQueryGpuCsv } from '../../../src/core/system/nvidia-csv';
import { fastRowsFromCapture, readCsv } from './fixtures';

const CAPTURES = [
  'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01',
  'linux-x86_64__nvidia-l40s__595.80',
  'windows-x86_64__nvidia-geforce-rtx-2080-super__610.62',
];

export const DUAL_ROWS = [
  '0, GPU-12345678-aaaa-bbbb-cccc-0123456789ab, NVIDIA GeForce RTX 2080, 00000000:01:00.0, 50, 1, 100, 8192, 60, 150.5, 215, 40, 1800, 1800, 7000',
  '1, GPU-12345678-aaaa-bbbb-cccc-0123456789ac, NVIDIA GeForce RTX 2080, 00000000:02:00.0, 70, 3, 200, 8192, 65, 180.25, 216, [N/A], 1800, 1800, 7000',
].join('\n');

const posix = process.platform !== 'win32';
let fake: FakeNvidiaSmi | null = null;
let streams: NvidiaStream[] = [];
afterEach(() => {
  streams.forEach((s) => s.stop());
  streams = [];
  fake?.cleanup();
  fake = null;
});

function open(
  env: NodeJS.ProcessEnv,
  opts: ConstructorParameters<typeof NvidiaStream>[0] = {},
): NvidiaStream {
  const s = new NvidiaStream({ env, intervalMs: 100, staleMs: 1500, ...opts });
  streams.push(s);
  return s;
}

/** Reads until the read is of the wanted kind (the child's output arrives on its own time). */
async function until<K extends StreamRead['kind']>(
  stream: NvidiaStream,
  kind: K,
  now: () => number = Date.now,
): Promise<Extract<StreamRead, { kind: K }>> {
  let last: StreamRead | null = null;
  await vi.waitFor(
    () => {
      last = stream.read(now());
      expect(last.kind).toBe(kind);
    },
    { timeout: 10_000, interval: 20 },
  );
  return last as unknown as Extract<StreamRead, { kind: K }>;
}

describe.runIf(posix)('NvidiaStream with a fake nvidia-smi on PATH', () => {
  it('one long-lived process: rows parsed as they arrive, every read served from it', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: DUAL_ROWS });
    // Not a staleness test: a starved fake (CI beside other work) must not read stale between two sets.
    const stream = open(fake.env, { staleMs: 10_000 });
    // As NvidiaSource does from its first XML: the fake (bash) writes a set line by line, and a loaded machine can
    // hand the two writes over apart; with the count the first set shown holds both rows, never one and then two.
    stream.expectGpus(2);
    expect(stream.args.slice(-2)).toEqual(['-lms', '100']);
    const r = await until(stream, 'rows');
    expect(r.gpus.map((g) => [g.index, g.utilizationGpuPct, g.powerDrawW, g.fanSpeedPct])).toEqual([
      [0, 50, 150.5, 40],
      [1, 70, 180.25, null],
    ]);
    expect(r.gpus[1]).toMatchObject({ pciBusId: '00000000:02:00.0', memoryUsedMiB: 200, processes: null });
    for (let i = 0; i < 20; i++) {
      const again = stream.read(Date.now());
      expect(again.kind === 'rows' && again.gpus.length).toBe(2);
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(stream.launches).toBe(1);
    expect(fake.streamLaunches()).toBe(1);
    expect(fake.launches()).toBe(1);
  });

  it.each(CAPTURES)(
    'streams the fast fields of a recorded capture (%s) exactly as the capture parses',
    async (name) => {
      const file = `${name}.query-gpu.load.csv`;
      const expected = parseQueryGpuCsv(readCsv(file));
      if (!expected.ok) throw new Error(expected.message);
      fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: fastRowsFromCapture(file) });
      const r = await until(open(fake.env), 'rows');
      // The fast fields leave MIG mode to the XML.
      expect(r.gpus).toEqual(expected.value.map((g) => ({ ...g, migMode: null })));
      expect(r.gpus[0]!.utilizationGpuPct).not.toBeNull();
    },
  );

  it('stderr warnings with every set do not discard the rows; they come back as warnings', async () => {
    const warning = 'WARNING: infoROM is corrupted at gpu 0000:01:00.0';
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: DUAL_ROWS, stderr: warning });
    const stream = open(fake.env);
    await vi.waitFor(
      () => {
        const r = stream.read(Date.now());
        expect(r.kind === 'rows' && r.warnings).toEqual([warning]);
        expect(r.kind === 'rows' && r.gpus.length).toBe(2);
      },
      { timeout: 10_000, interval: 20 },
    );
  });

  it('a mid-stream death is restarted: a new process, values again', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'stream',
      xml: '',
      csv: DUAL_ROWS,
      firstRun: { sets: 3, then: 'exit', code: 3 },
    });
    // A death, not a silence: no stale restart of a starved fake besides.
    const stream = open(fake.env, { restartBackoffMs: 50, staleMs: 10_000 });
    await until(stream, 'rows');
    const [first] = fake.streamPids();
    // The restart happens on a read: keep reading until the second process has started.
    await vi.waitFor(
      () => {
        stream.read(Date.now());
        expect(fake!.streamLaunches()).toBe(2);
      },
      { timeout: 10_000, interval: 20 },
    );
    const [, second] = fake.streamPids();
    expect(second).not.toBe(first);
    await vi.waitFor(() => expect(isGone(first!)).toBe(true), { timeout: 5000, interval: 20 });
    const r = await until(stream, 'rows');
    expect(r.gpus.map((g) => g.utilizationGpuPct)).toEqual([50, 70]);
    expect(stream.pid).toBe(second);
  });

  it('exit 127 → not-found, and no respawn storm: restarts back off (1 s, 2 s, 4 s …)', async () => {
    fake = installFakeNvidiaSmi({ kind: 'exit', code: 127 });
    let now = 1_000_000;
    const stream = open(fake.env, { now: () => now, restartBackoffMs: 1000 });
    expect(stream.read(now).kind).toBe('waiting');
    const failed = await until(stream, 'failed', () => now);
    expect(failed.error).toMatchObject({ kind: 'not-found' });
    // 30 simulated seconds of reads, 10 per second: launches at 0, 1, 3, 7, 15 s (then 31 s).
    for (let tenth = 0; tenth < 300; tenth++) {
      now += 100;
      const r = stream.read(now);
      if (r.kind === 'waiting') await vi.waitFor(() => expect(stream.pid).toBeNull(), { timeout: 10_000 });
    }
    expect(stream.launches).toBe(5);
    expect(fake.launches()).toBe(5);
  });

  it('a missing binary (ENOENT) is not-found too', async () => {
    const stream = open({ PATH: '/nonexistent-rlwatch-dir' });
    const failed = await until(stream, 'failed');
    expect(failed.error).toEqual({
      kind: 'not-found',
      message: 'nvidia-smi is not installed (not found on PATH)',
    });
  });

  it('a stream that hangs without a line is stale: the read fails with a timeout and the process is killed', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: DUAL_ROWS, streamHang: true });
    const stream = open(fake.env, { staleMs: 300 });
    expect(stream.read(Date.now()).kind).toBe('waiting');
    await vi.waitFor(() => expect(fake!.hungPids()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const failed = await until(stream, 'failed');
    expect(failed).toEqual({ kind: 'failed', error: { kind: 'timeout', timeoutMs: 300 }, hadData: false });
    expect(stream.noDataRuns).toBe(1);
    await vi.waitFor(() => expect(isGone(fake!.hungPids()[0]!)).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('rows that stop coming (the process alive but silent) go stale: failed, killed, restarted later', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'stream',
      xml: '',
      csv: DUAL_ROWS,
      firstRun: { sets: 2, then: 'hang' },
    });
    // Long enough that the restarted fake's first set comes within it on a loaded machine (one restart, not two).
    const stream = open(fake.env, { staleMs: 1500, restartBackoffMs: 50 });
    await until(stream, 'rows');
    const failed = await until(stream, 'failed');
    expect(failed).toEqual({ kind: 'failed', error: { kind: 'timeout', timeoutMs: 1500 }, hadData: true });
    const [silent] = fake.streamPids();
    await vi.waitFor(() => expect(isGone(silent!)).toBe(true), { timeout: 5000, interval: 20 });
    await until(stream, 'rows');
    expect(fake.streamLaunches()).toBe(2);
  });

  it('stop() kills the process group: the pid is gone, and the next read starts a new one', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: DUAL_ROWS });
    const stream = open(fake.env, { staleMs: 10_000 });
    await until(stream, 'rows');
    const pid = stream.pid;
    expect(pid).toBe(fake.streamPids()[0]);
    stream.stop();
    expect(stream.pid).toBeNull();
    await vi.waitFor(() => expect(isGone(pid!)).toBe(true), { timeout: 5000, interval: 20 });
    expect(stream.read(Date.now()).kind).toBe('waiting');
    await until(stream, 'rows');
    expect(fake.streamLaunches()).toBe(2);
  });

  it('an nvidia-smi that refuses -lms makes the stream "unsupported" at once', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: '', csv: DUAL_ROWS, noLoop: true });
    const stream = open(fake.env);
    const r = await until(stream, 'unsupported');
    expect(r.reason).toMatch(/Invalid combination of input arguments/);
    for (let i = 0; i < 5; i++) stream.read(Date.now());
    expect(stream.launches).toBe(1);
  });
});

/** A child whose stdout the test writes by hand, for chunk-boundary cases. */
function scriptedChild(): { spawner: Spawner; child: () => FakeChild } {
  let last: FakeChild | null = null;
  return {
    spawner: () => {
      last = new FakeChild();
      return last as unknown as ChildProcess;
    },
    child: () => {
      if (!last) throw new Error('not spawned');
      return last;
    },
  };
}

class FakeChild extends EventEmitter {
  readonly pid = undefined;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  kill(): boolean {
    this.emit('close', null, 'SIGKILL');
    return true;
  }
  async write(text: string): Promise<void> {
    this.stdout.write(text);
    await new Promise((r) => setImmediate(r));
  }
}

const row = (i: number, util: number): string =>
  `${i}, GPU-${i}, H100, 00000000:0${i + 1}:00.0, ${util}, 1, 100, 81559, 50, 300, 700, [N/A], 1980, 1980, 2619\n`;

describe('NvidiaStream row sets', () => {
  it('a set cut across writes is shown only when complete; lines cut mid-way are joined', async () => {
    const s = scriptedChild();
    const stream = new NvidiaStream({ spawner: s.spawner, now: () => 0 });
    stream.expectGpus(2);
    expect(stream.read(0).kind).toBe('waiting');
    const r0 = row(0, 10);
    await s.child().write(r0.slice(0, 20));
    await s.child().write(r0.slice(20));
    expect(stream.read(0).kind).toBe('waiting');
    await s.child().write(row(1, 11));
    const r = stream.read(0);
    expect(r.kind === 'rows' && r.gpus.map((g) => g.utilizationGpuPct)).toEqual([10, 11]);
    // Next set: half of it does not replace the last complete one.
    await s.child().write(row(0, 20));
    const half = stream.read(0);
    expect(half.kind === 'rows' && half.gpus.map((g) => g.utilizationGpuPct)).toEqual([10, 11]);
    await s.child().write(row(1, 21));
    const full = stream.read(0);
    expect(full.kind === 'rows' && full.gpus.map((g) => g.utilizationGpuPct)).toEqual([20, 21]);
  });

  it('a GPU gone from the set is noticed when the next set begins; non-CSV lines are ignored', async () => {
    const s = scriptedChild();
    const stream = new NvidiaStream({ spawner: s.spawner, now: () => 0 });
    stream.read(0);
    await s.child().write(row(0, 1) + row(1, 2));
    await s.child().write('Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost\n');
    await s.child().write(row(0, 3));
    const still = stream.read(0);
    expect(still.kind === 'rows' && still.gpus.map((g) => g.utilizationGpuPct)).toEqual([1, 2]);
    // The next set's first row closes the one-GPU set; from then on one row is a whole set.
    await s.child().write(row(0, 4));
    const one = stream.read(0);
    expect(one.kind === 'rows' && one.gpus.map((g) => g.utilizationGpuPct)).toEqual([4]);
    await s.child().write(row(0, 5));
    const next = stream.read(0);
    expect(next.kind === 'rows' && next.gpus.map((g) => g.utilizationGpuPct)).toEqual([5]);
  });

  it('stale after staleMs without a row: failed (timeout), the child killed', async () => {
    let now = 0;
    const s = scriptedChild();
    const stream = new NvidiaStream({ spawner: s.spawner, now: () => now, staleMs: 3000 });
    stream.read(now);
    await s.child().write(row(0, 5));
    now = 3000;
    expect(stream.read(now).kind).toBe('rows');
    const closed = vi.fn();
    s.child().on('close', closed);
    now = 3001;
    expect(stream.read(now)).toEqual({
      kind: 'failed',
      error: { kind: 'timeout', timeoutMs: 3000 },
      hadData: true,
    });
    expect(closed).toHaveBeenCalled();
  });
});
