// The --query-gpu / --query-compute-apps CSV captures (Linux H100, L40S, RTX 4080 SUPER, Windows RTX 2080 SUPER).

import { describe, expect, it } from 'vitest';
import {
  FAST_QUERY_FIELDS,
  parseComputeAppsCsv,
  parseQueryGpuCsv,
} from '../../../src/core/system/nvidia-csv';
import { readCsv } from './fixtures';

const H100 = 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01';
const L40S = 'linux-x86_64__nvidia-l40s__595.80';
const RTX4080 = 'linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05';
const WIN2080 = 'windows-x86_64__nvidia-geforce-rtx-2080-super__610.62';

// [name, util, memUtil, memUsed, memTotal, temp, power, limit, clocks gr/sm/mem, fan, mig], read from the files.
type Row = [
  string,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  string | null,
];
const QUERY_GPU: Record<string, Row> = {
  [`${H100}.query-gpu.idle.csv`]: [
    'NVIDIA H100 80GB HBM3',
    0,
    0,
    0,
    81559,
    41,
    69.85,
    700,
    345,
    345,
    2619,
    null,
    'Disabled',
  ],
  [`${H100}.query-gpu.load.csv`]: [
    'NVIDIA H100 80GB HBM3',
    100,
    11,
    19818,
    81559,
    59,
    631.95,
    700,
    1980,
    1980,
    2619,
    null,
    'Disabled',
  ],
  [`${L40S}.query-gpu.idle.csv`]: [
    'NVIDIA L40S',
    100,
    9,
    0,
    46068,
    63,
    144.97,
    350,
    2520,
    2520,
    9001,
    null,
    null,
  ],
  [`${L40S}.query-gpu.load.csv`]: [
    'NVIDIA L40S',
    9,
    2,
    1235,
    46068,
    54,
    110.23,
    350,
    2520,
    2520,
    9001,
    null,
    null,
  ],
  [`${RTX4080}.query-gpu.idle.csv`]: [
    'NVIDIA GeForce RTX 4080 SUPER',
    0,
    23,
    596,
    16376,
    43,
    26.2,
    320,
    210,
    210,
    405,
    0,
    null,
  ],
  [`${RTX4080}.query-gpu.load.csv`]: [
    'NVIDIA GeForce RTX 4080 SUPER',
    7,
    2,
    1474,
    16376,
    46,
    84.24,
    320,
    2805,
    2805,
    11251,
    0,
    null,
  ],
  [`${WIN2080}.query-gpu.idle.csv`]: [
    'NVIDIA GeForce RTX 2080 SUPER',
    0,
    10,
    797,
    8192,
    40,
    39.25,
    250,
    300,
    300,
    405,
    38,
    null,
  ],
  [`${WIN2080}.query-gpu.load.csv`]: [
    'NVIDIA GeForce RTX 2080 SUPER',
    7,
    3,
    1366,
    8192,
    44,
    97.99,
    250,
    2040,
    2040,
    7500,
    38,
    null,
  ],
};

describe('parseQueryGpuCsv on the captures (header with units, ~280 columns)', () => {
  it.each(Object.entries(QUERY_GPU))('%s', (file, row) => {
    const r = parseQueryGpuCsv(readCsv(file));
    if (!r.ok) throw new Error(r.message);
    expect(r.value).toHaveLength(1);
    const g = r.value[0]!;
    const [name, util, memUtil, used, total, temp, power, limit, gr, sm, mem, fan, mig] = row;
    expect([
      g.index,
      g.name,
      g.utilizationGpuPct,
      g.utilizationMemoryPct,
      g.memoryUsedMiB,
      g.memoryTotalMiB,
    ]).toEqual([0, name, util, memUtil, used, total]);
    expect([g.temperatureC, g.powerDrawW, g.powerLimitW, g.fanSpeedPct, g.migMode]).toEqual([
      temp,
      power,
      limit,
      fan,
      mig,
    ]);
    expect(g.clocks).toEqual({ graphicsMHz: gr, smMHz: sm, memMHz: mem });
    expect(g.processes).toBeNull();
    expect(g.detailAt).toBeNull();
  });

  it('reads the exporter test file: two GPUs, absent columns null, "[N/A]" null', () => {
    const r = parseQueryGpuCsv(readCsv('query.txt'));
    if (!r.ok) throw new Error(r.message);
    expect(
      r.value.map((g) => [g.index, g.name, g.uuid, g.memoryUsedMiB, g.fanSpeedPct, g.temperatureC]),
    ).toEqual([
      [0, 'NVIDIA GeForce RTX 2080 SUPER', 'GPU-df6e7a7c-7314-46f8-abc4-b88b36dcf3aa', 575, 38, null],
      [1, 'Some Other GPU', 'GPU-04757e3e-3077-4e2e-b988-7e2d647b52e9', 1234, 50, null],
    ]);
  });

  it('reads our own light query (noheader, nounits) in FAST_QUERY_FIELDS order', () => {
    const text = [
      '0, GPU-aaa, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 100, 11, 19818, 81559, 59, 631.95, 700.00, [N/A], 1980, 1980, 2619',
      '1, GPU-bbb, NVIDIA H100 80GB HBM3, 00000000:00:0A.0, [N/A], [N/A], 3, 81559, 33, 70.10, 700.00, [N/A], 345, 345, 2619',
    ].join('\r\n');
    const r = parseQueryGpuCsv(text, FAST_QUERY_FIELDS);
    if (!r.ok) throw new Error(r.message);
    expect(r.value[0]).toMatchObject({
      index: 0,
      uuid: 'GPU-aaa',
      utilizationGpuPct: 100,
      powerDrawW: 631.95,
      fanSpeedPct: null,
    });
    expect(r.value[1]).toMatchObject({
      index: 1,
      pciBusId: '00000000:00:0A.0',
      utilizationGpuPct: null,
      memoryUsedMiB: 3,
    });
  });

  it('rejects rows with the wrong number of columns when there is no header', () => {
    expect(parseQueryGpuCsv('0, GPU-a, name').ok).toBe(false);
    expect(parseQueryGpuCsv('')).toEqual({ ok: true, value: [] });
  });
});

describe('parseComputeAppsCsv on the captures', () => {
  it('H100 under load: the burn process and two memory hogs with their MiB', () => {
    const r = parseComputeAppsCsv(readCsv(`${H100}.query-compute-apps.load.csv`));
    expect(r.ok && r.value.map((p) => [p.pid, p.name, p.usedMemoryMiB])).toEqual([
      [11327, '/root/tools/memhog', 2566],
      [11328, '/root/tools/memhog', 1542],
      [11345, './gpu_burn', 15690],
    ]);
  });

  it('Windows WDDM: memory per process is [N/A] → null, paths kept', () => {
    const r = parseComputeAppsCsv(readCsv(`${WIN2080}.query-compute-apps.load.csv`));
    if (!r.ok) throw new Error(r.message);
    expect(r.value.length).toBeGreaterThan(5);
    expect(r.value[0]).toEqual({
      gpuUuid: 'GPU-00000000-0000-0000-0000-000000000000',
      pid: 2140,
      name: 'C:\\Windows\\System32\\dwm.exe',
      type: 'C',
      usedMemoryMiB: null,
    });
    expect(r.value.every((p) => p.usedMemoryMiB === null)).toBe(true);
  });

  it('L40S and RTX 4080 SUPER: every process and its memory', () => {
    const l40 = parseComputeAppsCsv(readCsv(`${L40S}.query-compute-apps.load.csv`));
    expect(l40.ok && l40.value.map((p) => [p.pid, p.usedMemoryMiB])).toEqual([
      [20037, 538],
      [20038, 681],
    ]);
    const rtx = parseComputeAppsCsv(readCsv(`${RTX4080}.query-compute-apps.load.csv`));
    expect(rtx.ok && rtx.value.map((p) => [p.pid, p.name, p.usedMemoryMiB])).toEqual([
      [2165, '/usr/bin/kwin_wayland', 25],
      [5022, 'ffmpeg', 503],
      [5021, 'ffmpeg', 360],
    ]);
  });
});
