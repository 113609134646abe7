// The wired sampler end to end: systeminformation stand-ins, a fake nvidia-smi on PATH (one-shot or streaming), an empty /proc.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { createSystemSampler } from '../../../src/core/system/create-sampler';
import type { SystemSampler } from '../../../src/core/system/sampler';
import { installFakeNvidiaSmi, isGone } from './fake-nvidia-smi';
import type { FakeNvidiaSmi } from './fake-nvidia-smi';
import { readXml } from './fixtures';

const hostInfo = {
  currentLoad: async () => ({ currentLoad: 5 }),
  mem: async () => ({ total: 1024 * 1024 * 1024, active: 512 * 1024 * 1024 }),
};
let fake: FakeNvidiaSmi | null = null;
const dirs: string[] = [];
const samplers: SystemSampler[] = [];
afterEach(() => {
  samplers.splice(0).forEach((s) => s.stop());
  fake?.cleanup();
  fake = null;
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe.runIf(process.platform !== 'win32')('createSystemSampler', () => {
  it('on Linux: XML via the fake nvidia-smi, host figures, the GPU compute process as the training job', async () => {
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: readXml('tesla-t4.xml') });
    const procRoot = mkdtempSync(join(tmpdir(), 'rlwatch-noproc-'));
    dirs.push(procRoot);
    const sampler = createSystemSampler({ platform: 'linux', env: fake.env, hostInfo, procRoot });
    const s = await sampler.sampleOnce();
    expect(s).toMatchObject({
      cpuPct: 5,
      memPct: 50,
      memTotalMiB: 1024,
      nvidiaChanged: true,
      appleGpu: null,
    });
    expect(s.nvidia).toEqual({ state: 'ok', gpuCount: 1, driverVersion: '515.105.01' });
    expect(s.gpus?.[0]).toMatchObject({ name: 'Tesla T4', memoryUsedMiB: 1032, powerDrawW: 26.78 });
    // pid 5762 (python, type C) is on the GPU, but being on a GPU ties it to no run: no training process.
    expect(s.trainingProcesses).toEqual([]);
    expect(fake.launches()).toBe(1);
    sampler.stop();
  });

  it('on macOS: no NVIDIA source, the Apple source runs (and finds no ioreg here)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rlwatch-nopath-'));
    dirs.push(empty);
    const sampler = createSystemSampler({ platform: 'darwin', env: { PATH: empty }, hostInfo });
    const s = await sampler.sampleOnce();
    expect(s.nvidia).toEqual({ state: 'disabled', message: 'NVIDIA GPUs are not supported on macOS' });
    expect(s.appleGpu).toBeNull();
    expect(s.gpus).toBeNull();
  });

  // The T4 XML says 0 % utilisation, the streamed rows 88 %: a snapshot at 88 % came from the stream.
  const T4_ROWS =
    '0, GPU-d37e67a5-91dd-3774-a5cb-99096249601a, Tesla T4, 00000000:00:1E.0, 88, 40, 9000, 15360, 61, 65.5, 70.00, [N/A], 1590, 1590, 5000';
  const streamed = (s: SystemSnapshot): boolean => s.gpus?.[0]?.utilizationGpuPct === 88;

  /** A running sampler at 10 Hz (the stream at the same rate) whose snapshots the test collects. */
  function running(env: NodeJS.ProcessEnv): { sampler: SystemSampler; seen: SystemSnapshot[] } {
    const procRoot = mkdtempSync(join(tmpdir(), 'rlwatch-noproc-'));
    dirs.push(procRoot);
    const sampler = createSystemSampler({
      platform: 'linux',
      env,
      hostInfo,
      procRoot,
      intervalMs: 100,
      // Not staleness tests (nvidia-stream.test.ts has those): a fake starved by CI beside other work must not
      // read stale between two sets and be restarted.
      nvidia: { detailIntervalMs: 1000, staleMs: 10_000 },
    });
    samplers.push(sampler);
    const seen: SystemSnapshot[] = [];
    sampler.subscribe((s) => seen.push(s));
    sampler.start();
    return { sampler, seen };
  }

  it('streams the fast fields from one long-lived nvidia-smi, XML details merged in; stop() kills it', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: readXml('tesla-t4.xml'), csv: T4_ROWS });
    const { sampler, seen } = running(fake.env);
    await vi.waitFor(() => expect(seen.filter(streamed).length).toBeGreaterThanOrEqual(15), {
      timeout: 20_000,
      interval: 50,
    });
    const last = seen.filter(streamed).at(-1)!;
    expect(last.nvidia).toEqual({ state: 'ok', gpuCount: 1, driverVersion: '515.105.01' });
    expect(last.gpus![0]).toMatchObject({ memoryUsedMiB: 9000, powerDrawW: 65.5, throttleReasonsActive: [] });
    expect(last.gpus![0]!.processes!.map((p) => p.pid)).toEqual([675, 5762]);
    expect(seen.filter((s) => s.nvidiaChanged)).toHaveLength(1);
    // One streaming process for all the fast ticks; the other launches are the XML detail queries.
    expect(fake.streamLaunches()).toBe(1);
    const xmlTicks = seen.filter((s) => s.gpus?.[0]?.utilizationGpuPct === 0).length;
    expect(fake.launches() - fake.streamLaunches()).toBeLessThanOrEqual(xmlTicks + 1);
    const [pid] = fake.streamPids();
    expect(isGone(pid!)).toBe(false);
    sampler.stop();
    await vi.waitFor(() => expect(isGone(pid!)).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('a mid-stream death is restarted and the values come back', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'stream',
      xml: readXml('tesla-t4.xml'),
      csv: T4_ROWS,
      firstRun: { sets: 5, then: 'exit', code: 1 },
    });
    const { seen } = running(fake.env);
    await vi.waitFor(() => expect(fake!.streamLaunches()).toBe(2), { timeout: 20_000, interval: 50 });
    const restartedAt = seen.length;
    await vi.waitFor(() => expect(seen.slice(restartedAt).filter(streamed).length).toBeGreaterThan(3), {
      timeout: 20_000,
      interval: 50,
    });
    expect(isGone(fake.streamPids()[0]!)).toBe(true);
    expect(fake.streamLaunches()).toBe(2);
  });

  it('stderr noise with every set does not lose the values', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'stream',
      xml: readXml('tesla-t4.xml'),
      csv: T4_ROWS,
      stderr: 'WARNING: infoROM is corrupted at gpu 0000:00:1E.0',
    });
    const { seen } = running(fake.env);
    await vi.waitFor(() => expect(seen.filter(streamed).length).toBeGreaterThan(3), {
      timeout: 20_000,
      interval: 50,
    });
    // Pending until nvidia-smi's first answer (a busy machine's first XML run can pass a tick), then ok throughout.
    const firstOk = seen.findIndex((s) => s.nvidia.state === 'ok');
    expect(seen.slice(0, firstOk).every((s) => s.nvidia.state === 'pending')).toBe(true);
    expect(seen.slice(firstOk).every((s) => s.nvidia.state === 'ok')).toBe(true);
  });

  it('nvidia-smi missing (exit 127): "no NVIDIA GPU found" once, one launch, no stream, no respawn storm', async () => {
    fake = installFakeNvidiaSmi({ kind: 'exit', code: 127 });
    const { seen } = running(fake.env);
    await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(20), { timeout: 20_000, interval: 50 });
    expect(seen.filter((s) => s.nvidiaChanged).map((s) => s.nvidia.state)).toEqual(['absent']);
    expect(seen.every((s) => s.gpus === null)).toBe(true);
    expect(fake.launches()).toBe(1);
    expect(fake.streamLaunches()).toBe(0);
  });

  it('nvidia-smi gone mid-run (the stream dies, restarts hit exit 127): absent once, then quiet', async () => {
    fake = installFakeNvidiaSmi({ kind: 'stream', xml: readXml('tesla-t4.xml'), csv: T4_ROWS });
    const { seen } = running(fake.env);
    await vi.waitFor(() => expect(seen.filter(streamed).length).toBeGreaterThan(3), {
      timeout: 20_000,
      interval: 50,
    });
    fake.replace({ kind: 'exit', code: 127 });
    process.kill(fake.streamPids()[0]!, 'SIGKILL');
    await vi.waitFor(() => expect(seen.at(-1)!.nvidia.state).toBe('absent'), {
      timeout: 20_000,
      interval: 50,
    });
    const launches = fake.launches();
    const at = seen.length;
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(at + 20), { timeout: 20_000, interval: 50 });
    expect(fake.launches()).toBe(launches);
    expect(seen.filter((s) => s.nvidiaChanged && s.nvidia.state === 'absent')).toHaveLength(1);
    expect(seen.slice(at).every((s) => s.gpus === null && !s.nvidiaChanged)).toBe(true);
  });

  it('an nvidia-smi without -lms: one refused stream, then a one-shot CSV each tick', async () => {
    const noLoop = installFakeNvidiaSmi({
      kind: 'stream',
      xml: readXml('tesla-t4.xml'),
      csv: T4_ROWS,
      noLoop: true,
    });
    fake = noLoop;
    const { seen } = running(noLoop.env);
    // Launches, not snapshots: on a loaded machine a one-shot's answer can outlive a tick and be shown twice.
    await vi.waitFor(
      () => {
        expect(seen.filter(streamed).length).toBeGreaterThan(5);
        expect(noLoop.launches()).toBeGreaterThan(5);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(noLoop.streamLaunches()).toBe(1);
    expect(seen.every((s) => s.nvidia.state !== 'failing')).toBe(true);
  });
});
