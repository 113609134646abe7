// The wired sampler end to end: systeminformation stand-ins, a fake nvidia-smi on PATH, an empty /proc.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemSampler } from '../../../src/core/system/create-sampler';
import { installFakeNvidiaSmi } from './fake-nvidia-smi';
import type { FakeNvidiaSmi } from './fake-nvidia-smi';
import { readXml } from './fixtures';

const hostInfo = {
  currentLoad: async () => ({ currentLoad: 5 }),
  mem: async () => ({ total: 1024 * 1024 * 1024, active: 512 * 1024 * 1024 }),
};
let fake: FakeNvidiaSmi | null = null;
const dirs: string[] = [];
afterEach(() => {
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
    // pid 5762 (python, type C) is on the GPU; it does not exist in this empty proc root, so no figures.
    expect(s.trainingProcess).toEqual({ pids: [5762], foundVia: 'gpu', cpuPct: null, rssMiB: null });
    expect(fake.launches()).toBe(1);
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
});
