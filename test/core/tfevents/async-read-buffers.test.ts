// readMoreAsync's cost per call: a check of an unchanged file issues no read, and a small append is read into
// buffers its size, not the pool's 1 MiB ones (fifty live runs swept at once allocated 100 MiB a second).

import type * as FsPromises from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { EventFileReader, EventFileWriter } from '../../../src/core/tfevents';
import { tempDir } from './helpers';

/** The size of the buffer each read on a file handle was given. */
const reads = vi.hoisted(() => [] as number[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const fh = await fs.open(...args);
      const read = fh.read.bind(fh) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
      (fh as { read: unknown }).read = (buf: Uint8Array, ...rest: unknown[]) => {
        reads.push(buf.length);
        return read(buf, ...rest);
      };
      return fh;
    },
  };
});

const tmp = tempDir();
afterAll(() => tmp.dispose());

test('an unchanged file is checked without a read; a small append is read into small buffers, every point kept', async () => {
  const w = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.checks' });
  for (let s = 0; s < 100; s++) w.scalars(s, [{ tag: 'loss', value: s }], 'simple', 1e9 + s);
  w.flush();
  const r = new EventFileReader(join(tmp.dir, 'events.out.tfevents.checks'));
  expect(await r.readMoreAsync()).toMatchObject({ records: 101, reset: false });

  reads.length = 0;
  for (let i = 0; i < 5; i++)
    expect(await r.readMoreAsync()).toMatchObject({ records: 0, bytes: 0, reset: false });
  expect(reads).toEqual([]);

  for (let s = 100; s < 150; s++) w.scalars(s, [{ tag: 'loss', value: s }], 'simple', 1e9 + s);
  w.flush();
  expect(await r.readMoreAsync()).toMatchObject({ records: 50, reset: false });
  expect(reads.length).toBeGreaterThan(0);
  expect(Math.max(...reads)).toBeLessThanOrEqual(64 * 1024);
  w.close();
  const loss = r.result().series.get('loss');
  expect(Array.from(loss.steps())).toEqual(Array.from({ length: 150 }, (_, s) => s));
});
