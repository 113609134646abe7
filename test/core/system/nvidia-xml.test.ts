// Every recorded `nvidia-smi -q -x` dump (DTD v10–v13, WDDM, vGPU, dual GPU, 13 processes) against values read from the files.

import { describe, expect, it } from 'vitest';
import { normaliseNvidiaLog, parseNvidiaXml } from '../../../src/core/system/nvidia-xml';
import { readXml, xmlDumps } from './fixtures';

type Row = [
  name: string,
  util: number,
  memUtil: number,
  memUsed: number,
  memTotal: number,
  temp: number,
  power: number | null,
  powerLimit: number | null,
  clockGr: number,
  clockSm: number,
  clockMem: number,
  throttle: string[] | null,
  processCount: number | null,
  processMiB: number | null,
  busId: string,
];

/** Expected values, extracted from the XML with Python's ElementTree (an independent parser), then checked by eye. */
const EXPECTED: Record<string, Row[]> = {
  '3090-v13.xml': [
    [
      'NVIDIA GeForce RTX 3090',
      0,
      1,
      7,
      24576,
      32,
      35.06,
      350,
      210,
      210,
      405,
      ['sw_power_cap'],
      0,
      0,
      '00000000:09:00.0',
    ],
  ],
  'a10g.xml': [
    ['NVIDIA A10G', 0, 0, 22, 23028, 17, 25.58, 300, 210, 210, 405, ['gpu_idle'], 1, 22, '00000000:00:1E.0'],
  ],
  'dual_2070-v13.xml': [
    [
      'NVIDIA GeForce RTX 2070',
      0,
      0,
      1,
      8192,
      14,
      9.23,
      175,
      300,
      300,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:01:00.0',
    ],
    [
      'NVIDIA GeForce RTX 2070',
      0,
      0,
      1,
      8192,
      13,
      11.82,
      175,
      300,
      300,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:02:00.0',
    ],
  ],
  'dual_2080-v13.xml': [
    [
      'NVIDIA GeForce RTX 2080',
      0,
      0,
      1,
      8192,
      15,
      1,
      215,
      300,
      300,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:01:00.0',
    ],
    [
      'NVIDIA GeForce RTX 2080',
      0,
      0,
      1,
      8192,
      15,
      1.62,
      215,
      300,
      300,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:02:00.0',
    ],
  ],
  'gt-1030.xml': [
    [
      'NVIDIA GeForce GT 1030',
      0,
      3,
      875,
      1998,
      36,
      null,
      30,
      1265,
      1265,
      3003,
      ['gpu_idle'],
      10,
      864,
      '00000000:2D:00.0',
    ],
  ],
  'gtx-1070-ti.xml': [
    [
      'GeForce GTX 1070 Ti',
      0,
      0,
      42,
      4096,
      39,
      null,
      null,
      135,
      135,
      405,
      null,
      null,
      null,
      '00000000:01:00.0',
    ],
  ],
  'gtx-1660-ti.xml': [
    ['Graphics Device', 0, 1, 0, 5912, 40, 8.93, 130, 300, 300, 405, ['gpu_idle'], 0, 0, '00000000:43:00.0'],
  ],
  'quadro-p2000-v12.xml': [
    ['Quadro P2000', 0, 0, 1, 5120, 34, 4.61, 75, 139, 139, 405, ['gpu_idle'], 0, 0, '00000000:17:00.0'],
  ],
  'quadro-p400.xml': [
    ['Quadro P400', 0, 3, 0, 1998, 33, null, null, 139, 139, 405, ['gpu_idle'], 0, 0, '00000000:43:00.0'],
  ],
  'rtx-3060-v12.xml': [
    [
      'NVIDIA GeForce RTX 3060',
      0,
      0,
      116,
      12288,
      42,
      11.6,
      170,
      210,
      210,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:2D:00.0',
    ],
  ],
  'rtx-3080-v12.xml': [
    [
      'NVIDIA GeForce RTX 3080',
      0,
      37,
      1128,
      10240,
      31,
      22.78,
      336,
      210,
      210,
      405,
      ['gpu_idle'],
      5,
      1347,
      '00000000:04:00.0',
    ],
  ],
  'rtx-3080-v13.xml': [
    [
      'NVIDIA GeForce RTX 3080',
      65,
      9,
      9184,
      10240,
      27,
      139.62,
      320,
      1950,
      1950,
      9251,
      [],
      0,
      0,
      '00000000:0C:00.0',
    ],
  ],
  'rtx-3090-v12.xml': [
    [
      'NVIDIA GeForce RTX 3090',
      0,
      0,
      1,
      24576,
      37,
      27.23,
      200,
      0,
      0,
      405,
      ['gpu_idle'],
      0,
      0,
      '00000000:00:10.0',
    ],
  ],
  'rtx-4000-sff-ada-v13.xml': [
    [
      'NVIDIA RTX 4000 SFF Ada Generation',
      0,
      37,
      3534,
      20475,
      38,
      8.81,
      70,
      210,
      210,
      405,
      ['gpu_idle'],
      4,
      1204,
      '00000000:06:00.0',
    ],
  ],
  'tesla-t4.xml': [
    ['Tesla T4', 0, 0, 1032, 15360, 40, 26.78, 70, 585, 585, 5000, [], 2, 1027, '00000000:00:1E.0'],
  ],
  'tesla_p4.xml': [['GRID P4-1Q', 0, 0, 807, 1024, 0, null, null, 0, 0, 0, null, 13, 0, '00000000:00:0B.0']],
};

describe('parseNvidiaXml on every recorded dump', () => {
  it('covers every dump in the fixture folder', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(xmlDumps());
  });

  it.each(Object.entries(EXPECTED))('%s: every GPU found, every number right', (file, rows) => {
    const r = parseNvidiaXml(readXml(file), 1234);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.gpus).toHaveLength(rows.length);
    rows.forEach((row, i) => {
      const g = r.value.gpus[i]!;
      const [
        name,
        util,
        memUtil,
        used,
        total,
        temp,
        power,
        limit,
        gr,
        sm,
        mem,
        throttle,
        nProc,
        procMiB,
        bus,
      ] = row;
      expect(g.index).toBe(i);
      expect(g.name).toBe(name);
      expect(g.utilizationGpuPct).toBe(util);
      expect(g.utilizationMemoryPct).toBe(memUtil);
      expect(g.memoryUsedMiB).toBe(used);
      expect(g.memoryTotalMiB).toBe(total);
      expect(g.temperatureC).toBe(temp);
      expect(g.powerDrawW).toBe(power);
      expect(g.powerLimitW).toBe(limit);
      expect(g.clocks).toEqual({ graphicsMHz: gr, smMHz: sm, memMHz: mem });
      expect(g.throttleReasonsActive).toEqual(throttle);
      expect(g.processes?.length ?? null).toBe(nProc);
      const sum = g.processes?.reduce((s, p) => s + (p.usedMemoryMiB ?? 0), 0) ?? null;
      expect(sum).toBe(procMiB);
      expect(g.pciBusId).toBe(bus);
      expect(g.detailAt).toBe(1234);
      expect(g.migMode).toBeNull();
    });
  });

  it('reads driver and CUDA versions, null in the hand-trimmed v10 fragment', () => {
    const v13 = parseNvidiaXml(readXml('3090-v13.xml'), 0);
    expect(v13.ok && [v13.value.driverVersion, v13.value.cudaVersion]).toEqual(['590.44.01', '13.1']);
    const v10 = parseNvidiaXml(readXml('gtx-1070-ti.xml'), 0);
    expect(v10.ok && [v10.value.driverVersion, v10.value.cudaVersion]).toEqual([null, null]);
  });

  it('reads the processes of the vGPU/WDDM guest: 13 C+G entries, empty names and N/A memory are null', () => {
    const r = parseNvidiaXml(readXml('tesla_p4.xml'), 0);
    if (!r.ok) throw new Error(r.message);
    const procs = r.value.gpus[0]!.processes!;
    expect(procs.map((p) => p.pid)).toEqual([
      1188, 2124, 3696, 3972, 7208, 7284, 7880, 8788, 9468, 9804, 11528, 12804, 15104,
    ]);
    expect(procs.every((p) => p.type === 'C+G' && p.usedMemoryMiB === null)).toBe(true);
    expect(procs[0]!.name).toBeNull();
    expect(procs[12]!.name).toBe('C:\\Windows\\explorer.exe');
  });

  it('reads a Linux compute process with its memory and type', () => {
    const r = parseNvidiaXml(readXml('rtx-4000-sff-ada-v13.xml'), 0);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.gpus[0]!.processes).toContainEqual({
      pid: 4937,
      name: 'python',
      type: 'C',
      usedMemoryMiB: 160,
    });
    expect(r.value.gpus[0]!.processes).toContainEqual({
      pid: 34626,
      name: '/usr/lib/chromium/chromium',
      type: 'C+G',
      usedMemoryMiB: 183,
    });
  });

  it('gives one GPU and many GPUs the same shape (object vs array from xml2js)', () => {
    const one = parseNvidiaXml(readXml('rtx-3060-v12.xml'), 0);
    const two = parseNvidiaXml(readXml('dual_2070-v13.xml'), 0);
    if (!one.ok || !two.ok) throw new Error('parse failed');
    expect(Object.keys(one.value.gpus[0]!).sort()).toEqual(Object.keys(two.value.gpus[1]!).sort());
  });

  it('reads MIG mode when the GPU reports one', () => {
    const xml = readXml('3090-v13.xml').replace(
      '<current_mig>N/A</current_mig>',
      '<current_mig>Enabled</current_mig>',
    );
    const r = parseNvidiaXml(xml, 0);
    expect(r.ok && r.value.gpus[0]!.migMode).toBe('Enabled');
  });

  it('turns "Unknown Error" and "[Not Supported]" values into null', () => {
    const xml = readXml('rtx-3060-v12.xml')
      .replace(/<gpu_temp>[^<]*<\/gpu_temp>/, '<gpu_temp>Unknown Error</gpu_temp>')
      .replace(/<gpu_util>[^<]*<\/gpu_util>/, '<gpu_util>[Not Supported]</gpu_util>');
    const r = parseNvidiaXml(xml, 0);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.gpus[0]!.temperatureC).toBeNull();
    expect(r.value.gpus[0]!.utilizationGpuPct).toBeNull();
    expect(r.value.gpus[0]!.memoryTotalMiB).toBe(12288);
  });

  it('reports truncated or garbled XML as a parse failure, not a throw', () => {
    const xml = readXml('a10g.xml');
    expect(parseNvidiaXml(xml.slice(0, xml.length / 2), 0).ok).toBe(false);
    expect(parseNvidiaXml('', 0).ok).toBe(false);
    expect(
      parseNvidiaXml('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.', 0).ok,
    ).toBe(false);
    expect(parseNvidiaXml('<html><body>nope</body></html>', 0).ok).toBe(false);
  });

  it('accepts a log with no GPU element as zero GPUs', () => {
    const r = parseNvidiaXml('<nvidia_smi_log><attached_gpus>0</attached_gpus></nvidia_smi_log>', 0);
    expect(r.ok && r.value.gpus).toEqual([]);
  });

  it('normalises the object node-nvidia-smi returns, whatever odd shapes it holds', () => {
    expect(normaliseNvidiaLog(null, 0).ok).toBe(false);
    expect(normaliseNvidiaLog({ nvidia_smi_log: 'text' }, 0).ok).toBe(false);
    const odd = normaliseNvidiaLog(
      { nvidia_smi_log: { gpu: ['junk', { product_name: ['A', 'B'], processes: '' }] } },
      0,
    );
    expect(odd.ok && odd.value.gpus.map((g) => [g.index, g.name, g.processes])).toEqual([[0, 'A', []]]);
  });
});
