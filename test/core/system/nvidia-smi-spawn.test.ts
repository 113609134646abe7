// The real spawning path against a fake nvidia-smi on PATH: replay, stderr warnings, hang + kill, exit 127, single-flight.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { NvidiaSmi } from '../../../src/core/system/nvidia-smi';
import { NO_GPU_MESSAGE, NvidiaSource } from '../../../src/core/system/nvidia-source';
import { installFakeNvidiaSmi, isGone } from './fake-nvidia-smi';
import type { FakeNvidiaSmi } from './fake-nvidia-smi';
import { readXml } from './fixtures';

const posix = process.platform !== 'win32';
let fake: FakeNvidiaSmi | null = null;
afterEach(() => {
  fake?.cleanup();
  fake = null;
});

describe.runIf(posix)('NvidiaSmi with a fake nvidia-smi on PATH', () => {
  it('replays a recorded dual-GPU dump through the real spawn', async () => {
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: readXml('dual_2080-v13.xml') });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 }).query('xml');
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.report.gpus.map((g) => g.powerDrawW)).toEqual([1, 1.62]);
    expect(r.warnings).toEqual([]);
  });

  it('keeps valid XML that came with a warning on stderr (node-nvidia-smi would discard it)', async () => {
    const warning = 'WARNING: infoROM is corrupted at gpu 0000:01:00.0';
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: readXml('tesla-t4.xml'), stderr: warning });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 }).query('xml');
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.report.gpus[0]!.name).toBe('Tesla T4');
    expect(r.warnings).toEqual([warning]);
  });

  it('runs the light CSV query with the fast fields', async () => {
    const csv =
      '0, GPU-x, Tesla T4, 00000000:00:1E.0, 45, 12, 1032, 15360, 40, 26.78, 70.00, [N/A], 585, 585, 5000\n';
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: '', csv });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 }).query('fast');
    expect(r.ok && r.report.gpus[0]).toMatchObject({
      utilizationGpuPct: 45,
      memoryUsedMiB: 1032,
      fanSpeedPct: null,
    });
  });

  it('kills a hung nvidia-smi at the timeout and abandons the query', async () => {
    fake = installFakeNvidiaSmi({ kind: 'hang' });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 300 }).query('xml');
    expect(r).toEqual({ ok: false, kind: 'xml', error: { kind: 'timeout', timeoutMs: 300 } });
    const [pid] = fake.hungPids();
    expect(pid).toBeGreaterThan(0);
    await vi.waitFor(() => expect(isGone(pid!)).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('kills the whole process group: a wrapper script and the child it waits on', async () => {
    fake = installFakeNvidiaSmi({ kind: 'hang', viaChild: true });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 300 }).query('xml');
    expect(r.ok).toBe(false);
    await vi.waitFor(() => expect(fake!.hungPids()).toHaveLength(2), { timeout: 5000, interval: 20 });
    for (const pid of fake.hungPids()) {
      await vi.waitFor(() => expect(isGone(pid)).toBe(true), { timeout: 5000, interval: 20 });
    }
  });

  it('single-flight: concurrent callers share one process', async () => {
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: readXml('a10g.xml') });
    const smi = new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 });
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => smi.query('xml')));
    expect(fake.launches()).toBe(1);
    expect(smi.launches).toBe(1);
    expect(new Set(results).size).toBe(1);
    await smi.query('xml');
    expect(fake.launches()).toBe(2);
  });

  it('never runs two nvidia-smi at once, even for different queries', async () => {
    fake = installFakeNvidiaSmi({ kind: 'replay', xml: readXml('a10g.xml'), csv: '' });
    const smi = new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 });
    await Promise.all([smi.query('xml'), smi.query('fast'), smi.query('xml'), smi.query('fast')]);
    const log = fake.log();
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]!.replace('start', 'end')).toBe(log[i + 1]);
    }
    expect(fake.launches()).toBeGreaterThanOrEqual(2);
  });

  it('exit 127 → "no NVIDIA GPU found" once, then quiet, re-probed after the back-off', async () => {
    fake = installFakeNvidiaSmi({ kind: 'exit', code: 127 });
    let now = 1_000_000;
    const source = new NvidiaSource(new NvidiaSmi({ env: fake.env, timeoutMs: 10_000, now: () => now }), {
      now: () => now,
      absentRetryMs: 60_000,
    });
    const samples = [];
    for (let s = 0; s < 10; s++) {
      samples.push(await source.sample());
      now += 1000;
    }
    expect(samples[0]!.status).toMatchObject({ state: 'absent', message: NO_GPU_MESSAGE });
    expect(samples.filter((s) => s.changed)).toHaveLength(1);
    expect(samples.every((s) => s.gpus === null && s.status.state === 'absent')).toBe(true);
    expect(fake.launches()).toBe(1);
    now += 60_000;
    const later = await source.sample();
    expect(fake.launches()).toBe(2);
    expect(later.changed).toBe(false);
  });

  it('"NVIDIA-SMI has failed…" and a missing binary are both "no GPU"', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'exit',
      code: 9,
      stdout:
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    });
    const failed = await new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 }).query('xml');
    expect(!failed.ok && failed.error.kind).toBe('not-found');
    const missing = await new NvidiaSmi({ env: { PATH: fake.dir + '/nowhere' }, timeoutMs: 10_000 }).query(
      'xml',
    );
    expect(!missing.ok && missing.error).toMatchObject({ kind: 'not-found' });
  });

  it('a crash with garbage output is a failure with the exit status, not an exception', async () => {
    fake = installFakeNvidiaSmi({
      kind: 'exit',
      code: 4,
      stdout: '<nvidia_smi_log><gpu>',
      stderr: 'Segmentation fault',
    });
    const r = await new NvidiaSmi({ env: fake.env, timeoutMs: 10_000 }).query('xml');
    expect(r).toMatchObject({ ok: false, error: { kind: 'exit', code: 4, stderr: 'Segmentation fault\n' } });
  });
});
