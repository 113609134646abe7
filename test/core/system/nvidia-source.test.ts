// The NVIDIA source's schedule and status: XML then CSV (one-shot or streamed) with merged details, fallbacks, back-off, transitions.

import { describe, expect, it } from 'vitest';
import type { NvidiaQueryError } from '../../../src/shared/system-types';
import { parseQueryGpuCsv } from '../../../src/core/system/nvidia-csv';
import type { NvidiaQueryKind, NvidiaQueryResult } from '../../../src/core/system/nvidia-smi';
import { parseNvidiaXml } from '../../../src/core/system/nvidia-xml';
import { NvidiaSource } from '../../../src/core/system/nvidia-source';
import type { StreamRead } from '../../../src/core/system/nvidia-stream';
import { readXml } from './fixtures';

type Answer = NvidiaQueryResult | NvidiaQueryError;

/** Answers queries from a script; records which kinds were asked. */
function scripted(answer: (kind: NvidiaQueryKind, call: number) => Answer) {
  const asked: NvidiaQueryKind[] = [];
  return {
    asked,
    query: async (kind: NvidiaQueryKind): Promise<NvidiaQueryResult> => {
      asked.push(kind);
      const a = answer(kind, asked.length);
      return 'ok' in a ? a : { ok: false, kind, error: a };
    },
  };
}

const xmlOk = (file: string, now = 0): NvidiaQueryResult => {
  const r = parseNvidiaXml(readXml(file), now);
  if (!r.ok) throw new Error(r.message);
  return { ok: true, kind: 'xml', report: r.value, warnings: [] };
};
const T4_CSV =
  '0, GPU-d37e67a5-91dd-3774-a5cb-99096249601a, Tesla T4, 00000000:00:1E.0, 88, 40, 9000, 15360, 61, 65.5, 70.00, [N/A], 1590, 1590, 5000';
const csvOk = (text: string): NvidiaQueryResult => {
  const r = parseQueryGpuCsv(text);
  if (!r.ok) throw new Error(r.message);
  return {
    ok: true,
    kind: 'fast',
    report: { driverVersion: null, cudaVersion: null, gpus: r.value },
    warnings: [],
  };
};

describe('NvidiaSource', () => {
  it('reads XML first, then the CSV each second with the XML details merged in, XML again after the detail interval', async () => {
    let now = 0;
    const smi = scripted((kind) => (kind === 'xml' ? xmlOk('tesla-t4.xml', now) : csvOk(T4_CSV)));
    const source = new NvidiaSource(smi, { now: () => now, detailIntervalMs: 10_000 });
    const first = await source.sample();
    expect(first.status).toEqual({ state: 'ok', gpuCount: 1, driverVersion: '515.105.01' });
    expect(first.changed).toBe(true);
    now += 1000;
    const second = await source.sample();
    expect(second.changed).toBe(false);
    expect(second.gpus![0]).toMatchObject({
      utilizationGpuPct: 88,
      memoryUsedMiB: 9000,
      temperatureC: 61,
      throttleReasonsActive: [],
      detailAt: 0,
    });
    expect(second.gpus![0]!.processes!.map((p) => p.pid)).toEqual([675, 5762]);
    for (let i = 0; i < 9; i++) {
      now += 1000;
      await source.sample();
    }
    expect(smi.asked).toEqual(['xml', ...Array(9).fill('fast'), 'xml']);
  });

  it('falls back to XML for good when the CSV query is rejected by the driver', async () => {
    let now = 0;
    const smi = scripted((kind) =>
      kind === 'xml'
        ? xmlOk('a10g.xml')
        : { kind: 'exit', code: 2, signal: null, stderr: 'Field "clocks.gr" is not a valid field to query.' },
    );
    const source = new NvidiaSource(smi, { now: () => now });
    await source.sample();
    now += 1000;
    const s = await source.sample();
    expect(s.gpus![0]!.name).toBe('NVIDIA A10G');
    now += 1000;
    await source.sample();
    expect(smi.asked).toEqual(['xml', 'fast', 'xml', 'xml']);
  });

  it('a timeout is "failing" once, backs off (2 s, 4 s, …), and recovery is announced', async () => {
    let now = 0;
    let hung = true;
    const smi = scripted(() => (hung ? { kind: 'timeout', timeoutMs: 5000 } : xmlOk('rtx-3060-v12.xml')));
    const source = new NvidiaSource(smi, { now: () => now, failureRetryMs: 2000 });
    const changes: string[] = [];
    for (let s = 0; s < 10; s++) {
      const sample = await source.sample();
      if (sample.changed) changes.push(sample.status.state);
      now += 1000;
    }
    // Tries at t=0, 2 (after 2 s), 6 (after 4 s): three launches in ten seconds, not ten.
    expect(smi.asked).toHaveLength(3);
    expect(source.currentStatus).toMatchObject({
      state: 'failing',
      message: 'nvidia-smi did not answer within 5000 ms (killed)',
    });
    hung = false;
    now += 60_000;
    const back = await source.sample();
    expect(back.status.state).toBe('ok');
    expect(changes.concat(back.changed ? [back.status.state] : [])).toEqual(['failing', 'ok']);
  });

  it('zero GPUs in a valid report is "no NVIDIA GPU found"', async () => {
    const smi = scripted(() => ({
      ok: true,
      kind: 'xml',
      report: { driverVersion: '550.1', cudaVersion: null, gpus: [] },
      warnings: [],
    }));
    const s = await new NvidiaSource(smi, { now: () => 0 }).sample();
    expect(s.status).toMatchObject({ state: 'absent', message: 'no NVIDIA GPU found' });
  });

  it('keeps the details of each GPU apart on a dual-GPU box (keyed by bus id, UUIDs may repeat)', async () => {
    let now = 0;
    const csv = [
      '0, GPU-12345678-aaaa-bbbb-cccc-0123456789ab, NVIDIA GeForce RTX 2080, 00000000:01:00.0, 50, 1, 100, 8192, 60, 150, 215, 40, 1800, 1800, 7000',
      '1, GPU-12345678-aaaa-bbbb-cccc-0123456789ab, NVIDIA GeForce RTX 2080, 00000000:02:00.0, 70, 1, 200, 8192, 65, 180, 216, 45, 1800, 1800, 7000',
    ].join('\n');
    const smi = scripted((kind) => (kind === 'xml' ? xmlOk('dual_2080-v13.xml') : csvOk(csv)));
    const source = new NvidiaSource(smi, { now: () => now });
    await source.sample();
    now += 1000;
    const s = await source.sample();
    expect(
      s.gpus!.map((g) => [g.index, g.utilizationGpuPct, g.powerLimitW, g.throttleReasonsActive]),
    ).toEqual([
      [0, 50, 215, ['gpu_idle']],
      [1, 70, 216, ['gpu_idle']],
    ]);
  });
});

/** A stream stand-in: answers reads from a script, records stops, GPU-count hints and disabling. */
function scriptedStream(answer: (read: number) => StreamRead) {
  const s = {
    reads: 0,
    stops: 0,
    expected: [] as number[],
    disabled: null as string | null,
    noDataRuns: 0,
    read(): StreamRead {
      s.reads += 1;
      return s.disabled !== null ? { kind: 'unsupported', reason: s.disabled } : answer(s.reads);
    },
    whenReady: async (): Promise<void> => undefined,
    expectGpus(n: number): void {
      s.expected.push(n);
    },
    disable(reason: string): void {
      s.disabled = reason;
    },
    stop(): void {
      s.stops += 1;
    },
  };
  return s;
}

const streamRows = (text: string): StreamRead => {
  const r = parseQueryGpuCsv(text);
  if (!r.ok) throw new Error(r.message);
  return { kind: 'rows', gpus: r.value, at: 0, warnings: [] };
};

describe('NvidiaSource with a stream', () => {
  it('XML first, then the fast fields from the stream (no one-shot CSV spawned), details merged, XML again after the interval', async () => {
    let now = 0;
    const smi = scripted((kind) => (kind === 'xml' ? xmlOk('tesla-t4.xml', now) : csvOk(T4_CSV)));
    const stream = scriptedStream(() => streamRows(T4_CSV));
    const source = new NvidiaSource(smi, { now: () => now, detailIntervalMs: 10_000, stream });
    await source.sample();
    expect(stream.expected).toEqual([1]);
    now += 1000;
    const second = await source.sample();
    expect(second.changed).toBe(false);
    expect(second.gpus![0]).toMatchObject({ utilizationGpuPct: 88, throttleReasonsActive: [], detailAt: 0 });
    expect(second.gpus![0]!.processes!.map((p) => p.pid)).toEqual([675, 5762]);
    for (let i = 0; i < 9; i++) {
      now += 1000;
      await source.sample();
    }
    expect(smi.asked).toEqual(['xml', 'xml']);
    expect(stream.reads).toBe(9);
  });

  it('stale stream data after rows (timeout, hadData) → fields null, "failing" announced once, recovery announced', async () => {
    let now = 0;
    let state: 'rows' | 'stale' = 'rows';
    const smi = scripted(() => xmlOk('tesla-t4.xml'));
    const stream = scriptedStream(() =>
      state === 'rows'
        ? streamRows(T4_CSV)
        : { kind: 'failed', error: { kind: 'timeout', timeoutMs: 3000 }, hadData: true },
    );
    const source = new NvidiaSource(smi, { now: () => now, stream, failureRetryMs: 1000 });
    const changes: string[] = [];
    const record = (s: { changed: boolean; status: { state: string } }) => {
      if (s.changed) changes.push(s.status.state);
    };
    record(await source.sample());
    now += 1000;
    record(await source.sample());
    state = 'stale';
    for (let i = 0; i < 5; i++) {
      now += 1000;
      const s = await source.sample();
      record(s);
      expect(s.gpus).toBeNull();
    }
    expect(source.currentStatus).toMatchObject({
      state: 'failing',
      message: 'nvidia-smi did not answer within 3000 ms (killed)',
    });
    state = 'rows';
    now += 60_000;
    record(await source.sample()); // the details are due again: XML
    now += 1000;
    const back = await source.sample();
    record(back);
    expect(back.gpus![0]!.utilizationGpuPct).toBe(88);
    expect(changes).toEqual(['ok', 'failing', 'ok']);
  });

  it('stream says not-found → "no NVIDIA GPU found" once, stream stopped, nothing asked until the back-off ends', async () => {
    let now = 0;
    const smi = scripted(() => xmlOk('tesla-t4.xml'));
    const stream = scriptedStream(() => ({
      kind: 'failed',
      error: { kind: 'not-found', message: 'nvidia-smi could not be run (exit status 127)' },
      hadData: true,
    }));
    const source = new NvidiaSource(smi, { now: () => now, stream, absentRetryMs: 60_000 });
    await source.sample();
    const samples = [];
    for (let i = 0; i < 30; i++) {
      now += 1000;
      samples.push(await source.sample());
    }
    expect(samples.filter((s) => s.changed).map((s) => s.status.state)).toEqual(['absent']);
    expect(stream.reads).toBe(1);
    expect(stream.stops).toBe(1);
    expect(smi.asked).toEqual(['xml']);
  });

  it('a stream that never gives a row → the one-shot CSV that tick; after 3 such runs (one-shot working) streaming is off for good', async () => {
    let now = 0;
    const smi = scripted((kind) => (kind === 'xml' ? xmlOk('tesla-t4.xml', now) : csvOk(T4_CSV)));
    const stream = scriptedStream(() => {
      stream.noDataRuns += 1;
      return { kind: 'failed', error: { kind: 'exit', code: 2, signal: null, stderr: '' }, hadData: false };
    });
    const source = new NvidiaSource(smi, { now: () => now, stream });
    await source.sample();
    for (let i = 0; i < 6; i++) {
      now += 1000;
      const s = await source.sample();
      expect(s.status.state).toBe('ok');
      expect(s.gpus![0]!.utilizationGpuPct).toBe(88);
    }
    expect(stream.disabled).toMatch(/gave no rows 3 times/);
    expect(stream.reads).toBe(6);
    expect(smi.asked).toEqual(['xml', ...Array(6).fill('fast')]);
  });

  it('a paused stream (hidden window) is stopped; one-shot queries answer until it resumes', async () => {
    let now = 0;
    const smi = scripted((kind) => (kind === 'xml' ? xmlOk('tesla-t4.xml', now) : csvOk(T4_CSV)));
    const stream = scriptedStream(() => streamRows(T4_CSV));
    const source = new NvidiaSource(smi, { now: () => now, detailIntervalMs: 60_000, stream });
    await source.sample();
    now += 1000;
    await source.sample();
    expect(stream.reads).toBe(1);
    source.pauseStream(true);
    expect(stream.stops).toBe(1);
    now += 5000;
    const hidden = await source.sample();
    expect(hidden.gpus![0]).toMatchObject({ utilizationGpuPct: 88 });
    expect(stream.reads).toBe(1);
    expect(smi.asked).toEqual(['xml', 'fast']);
    source.pauseStream(false);
    now += 1000;
    await source.sample();
    expect(stream.reads).toBe(2);
    expect(smi.asked).toEqual(['xml', 'fast']);
  });

  it('stop() stops the stream', () => {
    const stream = scriptedStream(() => ({ kind: 'waiting' }));
    const source = new NvidiaSource(
      scripted(() => xmlOk('a10g.xml')),
      { now: () => 0, stream },
    );
    source.stop();
    expect(stream.stops).toBe(1);
  });
});
