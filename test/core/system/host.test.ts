// CPU and memory from injected systeminformation functions; each figure fails on its own.

import { describe, expect, it } from 'vitest';
import { readHost } from '../../../src/core/system/host';

const GiB = 1024 ** 3;

describe('readHost', () => {
  it('uses "active" memory (without page cache) for the percentage', async () => {
    const s = await readHost({
      currentLoad: async () => ({ currentLoad: 37.5 }),
      mem: async () => ({ total: 64 * GiB, active: 16 * GiB }),
    });
    expect(s).toEqual({ cpuPct: 37.5, memPct: 25, memUsedMiB: 16 * 1024, memTotalMiB: 64 * 1024 });
  });

  it('a failing call nulls only its own fields', async () => {
    const s = await readHost({
      currentLoad: async () => {
        throw new Error('no /proc/stat');
      },
      mem: async () => ({ total: 8 * GiB, active: 2 * GiB }),
    });
    expect(s).toEqual({ cpuPct: null, memPct: 25, memUsedMiB: 2048, memTotalMiB: 8192 });
    const t = await readHost({
      currentLoad: async () => ({ currentLoad: Number.NaN }),
      mem: async () => ({ total: 0, active: 0 }),
    });
    expect(t).toEqual({ cpuPct: null, memPct: null, memUsedMiB: null, memTotalMiB: null });
  });
});

describe('ProcStatCpuLoad', () => {
  it('computes the busy share between two reads of /proc/stat (iowait counts as idle)', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { ProcStatCpuLoad, parseProcStatCpu } = await import('../../../src/core/system/cpu-load');
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-stat-'));
    try {
      const write = (user: number, idle: number, iowait: number) =>
        writeFileSync(
          join(root, 'stat'),
          `cpu  ${user} 0 100 ${idle} ${iowait} 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n`,
        );
      const load = new ProcStatCpuLoad(root);
      write(1000, 5000, 100);
      expect(Number.isNaN((await load.currentLoad()).currentLoad)).toBe(true);
      write(1300, 5600, 200); // busy +300 of total +1000
      expect((await load.currentLoad()).currentLoad).toBe(30);
      expect(parseProcStatCpu('garbage')).toBeNull();
      expect(parseProcStatCpu('cpu  a b c d')).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
