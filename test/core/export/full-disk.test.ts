// Export onto a disk that fills up mid-file (ENOSPC from the file system, injected): the failed file is
// named with the reason, no partial or temp file is left, the other files are written, exit status partial.

import type { FileHandle } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, vi } from 'vitest';
import { EXIT_PARTIAL, runExport } from '../../../src/cli/export-command';
import { exportData } from '../../../src/core/export/export-run';
import { tempDirs } from '../../helpers/temp-dirs';

/** Files whose name contains `failing` get `room` bytes, then every write fails as a full disk does. */
const disk = vi.hoisted(() => ({ failing: '', room: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const open = async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => {
    const fh = await fs.open(...args);
    if (!disk.failing || !String(args[0]).includes(disk.failing)) return fh;
    let written = 0;
    return new Proxy(fh, {
      get(target, key) {
        if (key === 'write')
          return async (buf: Uint8Array) => {
            if (written + buf.length > disk.room)
              throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
                code: 'ENOSPC',
                errno: -28,
              });
            written += buf.length;
            return target.write(buf);
          };
        const v: unknown = Reflect.get(target, key);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  return { ...fs, default: { ...fs, open }, open };
});

const tmp = tempDirs();

function twoRuns(): string {
  const root = tmp('rlwatch-export-full-src-');
  for (const run of ['a', 'b']) {
    mkdirSync(join(root, run));
    const rows = Array.from({ length: 500 }, (_, i) => `${i},${i / 7}`).join('\n');
    writeFileSync(join(root, run, 'metrics.csv'), `step,loss\n${rows}\n`);
  }
  return root;
}

test('ENOSPC mid-file: that file is named with "the disk is full", nothing partial is left, the rest is written', async () => {
  const root = twoRuns();
  const out = tmp('rlwatch-export-full-out-');
  disk.failing = 'metrics_long.csv';
  disk.room = 100;
  try {
    const report = await exportData(root, { out, csv: true, json: true });
    expect(report.failed).toEqual(
      ['a', 'b'].map((run) => ({
        path: join(out, run, 'metrics_long.csv'),
        message: `cannot write ${join(out, run, 'metrics_long.csv')}: the disk is full`,
      })),
    );
    expect(report.written.map((w) => w.path.slice(out.length + 1)).sort()).toEqual([
      'a/metrics_wide.csv',
      'a/training_metrics.json',
      'b/metrics_wide.csv',
      'b/training_metrics.json',
    ]);
    for (const run of ['a', 'b'])
      expect(readdirSync(join(out, run)).sort()).toEqual(['metrics_wide.csv', 'training_metrics.json']);
  } finally {
    disk.failing = '';
  }
});

test('the CLI ends with the partial status and names each file the full disk refused', async () => {
  const root = twoRuns();
  const out = tmp('rlwatch-export-full-cli-');
  const err: string[] = [];
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  disk.failing = 'training_metrics.json';
  disk.room = 10;
  try {
    expect(await runExport([root, '--out', out])).toBe(EXIT_PARTIAL);
  } finally {
    disk.failing = '';
    stderr.mockRestore();
    stdout.mockRestore();
  }
  const full = err.filter((l) => /training_metrics\.json: the disk is full/.test(l));
  expect(full.some((l) => l.includes(join(out, 'a', 'training_metrics.json')))).toBe(true);
  expect(full.some((l) => l.includes(join(out, 'b', 'training_metrics.json')))).toBe(true);
  // Everything but the refused file was written (the figures too), and no temp file was left behind.
  const written = readdirSync(join(out, 'b'));
  expect(written).toEqual(expect.arrayContaining(['metrics_long.csv', 'metrics_wide.csv']));
  expect(written).not.toContain('training_metrics.json');
  expect(written.filter((n) => n.endsWith('.tmp'))).toEqual([]);
});
