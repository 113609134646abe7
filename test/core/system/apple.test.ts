// Apple GPU parsers on reconstructed ioreg and macmon outputs (not captured on a Mac: see fixtures/apple/ORIGIN.md).

import { describe, expect, it } from 'vitest';
import { parseIoregAccelerators, parseIoregGpu } from '../../../src/core/system/apple-ioreg';
import { mergeAppleGpu, parseMacmonLine, parseMacmonOutput } from '../../../src/core/system/apple-macmon';
import { readApple } from './fixtures';

const MiB = 1024 * 1024;

describe('parseIoregGpu', () => {
  it('reads PerformanceStatistics of a busy M2 Pro', () => {
    expect(parseIoregGpu(readApple('ioreg-m2pro-busy.txt'))).toEqual({
      source: 'ioreg',
      name: 'Apple M2 Pro',
      utilizationPct: 87,
      rendererUtilizationPct: 83,
      tilerUtilizationPct: 12,
      inUseMemoryMiB: 9663676416 / MiB,
      allocatedMemoryMiB: 21474836480 / MiB,
      powerW: null,
      temperatureC: null,
      frequencyMHz: null,
    });
  });

  it('reads an idle M1: zero is a value, not a missing one', () => {
    const g = parseIoregGpu(readApple('ioreg-m1-idle.txt'));
    expect(g).toMatchObject({ name: 'Apple M1', utilizationPct: 0, inUseMemoryMiB: 395034624 / MiB });
  });

  it('lists both GPUs of an Intel Mac and takes the first with a utilisation figure', () => {
    const text = readApple('ioreg-intel-two-gpus.txt');
    const all = parseIoregAccelerators(text);
    expect(all.map((a) => [a.model, a.stats.get('GPU Activity(%)')])).toEqual([
      ['Intel UHD Graphics 630', 3],
      ['AMD Radeon Pro 5500M', 11],
    ]);
    expect(parseIoregGpu(text)).toMatchObject({
      name: 'Intel UHD Graphics 630',
      utilizationPct: 3,
      inUseMemoryMiB: null,
    });
  });

  it('reads what is there in a truncated dump and nothing from garbage', () => {
    const g = parseIoregGpu(readApple('ioreg-truncated.txt'));
    expect(g).toMatchObject({ name: 'Apple M1 Max', utilizationPct: null, inUseMemoryMiB: null });
    expect(parseIoregGpu('')).toBeNull();
    expect(parseIoregGpu('ioreg: command failed')).toBeNull();
    expect(
      parseIoregGpu('"PerformanceStatistics" = {"Device Utilization %"=250}')?.utilizationPct,
    ).toBeNull();
  });
});

describe('parseMacmonOutput', () => {
  it('takes the last complete line and skips the half-written one', () => {
    expect(parseMacmonOutput(readApple('macmon-pipe.jsonl'))).toEqual({
      source: 'macmon',
      name: null,
      utilizationPct: 2.1497859,
      rendererUtilizationPct: null,
      tilerUtilizationPct: null,
      inUseMemoryMiB: null,
      allocatedMemoryMiB: null,
      powerW: 0.017451683,
      temperatureC: 36.95167,
      frequencyMHz: 461,
    });
  });

  it('a busy GPU with an unreadable temperature sensor (0.0) gives null temperature', () => {
    const g = parseMacmonOutput(readApple('macmon-busy-gpu.json'));
    expect(g?.utilizationPct).toBeCloseTo(97.12836, 5);
    expect(g).toMatchObject({ powerW: 18.643902, temperatureC: null, frequencyMHz: 1398 });
  });

  it('rejects non-objects and wrong types without throwing', () => {
    expect(parseMacmonLine('[1,2]')?.utilizationPct ?? null).toBeNull();
    expect(parseMacmonLine('{"gpu_usage":"fast","gpu_power":"x"}')).toMatchObject({
      utilizationPct: null,
      powerW: null,
    });
    expect(parseMacmonOutput('garbage\n{not json')).toBeNull();
  });

  it('merges ioreg (utilisation, memory) with macmon (power, temperature)', () => {
    const merged = mergeAppleGpu(
      parseIoregGpu(readApple('ioreg-m2pro-busy.txt')),
      parseMacmonOutput(readApple('macmon-busy-gpu.json')),
    );
    expect(merged).toMatchObject({
      source: 'ioreg+macmon',
      utilizationPct: 87,
      powerW: 18.643902,
      frequencyMHz: 1398,
    });
    expect(mergeAppleGpu(null, null)).toBeNull();
  });
});
