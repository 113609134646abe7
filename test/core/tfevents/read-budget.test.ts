// EventFileReader.readMore({maxBytes}) stops at its byte budget and resumes exactly; TfeventsReader paces those slices.

import { statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { EventFileReader, EventFileWriter, readEventFile } from '../../../src/core/tfevents';
import { TfeventsReader } from '../../../src/core/tfevents/tfevents-reader';
import { describe as digest, tempDir } from './helpers';

const tmp = tempDir();
afterAll(() => tmp.dispose());

test('a budgeted read stops after about maxBytes, reports more, and the sum of slices equals one full read', () => {
  const w = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.budget' });
  for (let s = 0; s < 4000; s++)
    w.scalars(
      s,
      [
        { tag: 'loss', value: s },
        { tag: 'kl', value: -s },
      ],
      'simple',
      1e9 + s,
    );
  w.close();
  const reader = new EventFileReader(join(tmp.dir, 'events.out.tfevents.budget'), { chunkBytes: 4096 });
  const slices: number[] = [];
  for (;;) {
    const r = reader.readMore({ maxBytes: 10_000 });
    slices.push(r.bytes);
    if (!r.more) break;
    expect(r.bytes).toBeGreaterThanOrEqual(10_000);
    expect(r.bytes).toBeLessThan(10_000 + 4096);
  }
  expect(slices.length).toBeGreaterThan(5);
  expect(reader.readMore({ maxBytes: 10_000 })).toMatchObject({ bytes: 0, more: false });
  expect(digest(reader.result(true))).toBe(
    digest(readEventFile(join(tmp.dir, 'events.out.tfevents.budget'))),
  );
  expect(reader.scalars.get('kl').length).toBe(4000);
});

test('readMoreAsync reads the same as readMore: slices, growth, truncation and a missing file', async () => {
  const name = join(tmp.dir, 'events.out.tfevents.async');
  const w = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.async' });
  for (let s = 0; s < 3000; s++) w.scalars(s, [{ tag: 'loss', value: s / 7 }], 'simple', 1e9 + s);
  w.flush();
  const sync = new EventFileReader(name, { chunkBytes: 4096 });
  const async = new EventFileReader(name, { chunkBytes: 4096 });
  while (sync.readMore({ maxBytes: 8192 }).more);
  let slices = 0;
  while ((await async.readMoreAsync({ maxBytes: 8192 })).more) slices++;
  expect(slices).toBeGreaterThan(3);
  expect(digest(async.result(true))).toBe(digest(sync.result(true)));

  // Appends are picked up from where the last call stopped.
  for (let s = 3000; s < 3100; s++) w.scalars(s, [{ tag: 'loss', value: s / 7 }], 'simple', 1e9 + s);
  w.close();
  expect(await async.readMoreAsync()).toMatchObject({ records: 100, reset: false, more: false });
  expect(async.scalars.get('loss').length).toBe(3100);
  expect(digest(async.result(true))).toBe(digest(readEventFile(name)));

  // A file truncated and rewritten shorter starts over.
  truncateSync(name, 0);
  const w2 = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.async' });
  w2.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', 1e9);
  w2.close();
  const again = await async.readMoreAsync();
  expect(again.reset).toBe(true);
  expect(async.scalars.get('loss').length).toBe(1);

  const missing = new EventFileReader(join(tmp.dir, 'nope.tfevents'));
  expect((await missing.readMoreAsync()).error).toMatchObject({ kind: 'io' });
});

test('TfeventsReader is an IncrementalReader: per-call record counts, paced slices, and a final read reports a cut record', async () => {
  const path = join(tmp.dir, 'events.out.tfevents.incremental');
  const w = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.incremental' });
  for (let s = 0; s < 3000; s++) w.scalars(s, [{ tag: 'loss', value: s }], 'simple', 1e9 + s);
  w.close();
  let pauses = 0;
  const reader = new TfeventsReader(path, {
    sliceBytes: 16 * 1024,
    pause: () => {
      pauses++;
      return Promise.resolve();
    },
  });
  const first = await reader.readMore();
  expect(first).toEqual({ records: 3001, errors: [] }); // the file_version event, then one per step
  expect(pauses).toBeGreaterThan(0);
  expect(reader.bytesRead).toBe(statSync(path).size);
  expect(await reader.readMore()).toEqual({ records: 0, errors: [] });
  expect(reader.series.get('loss').length).toBe(3000);

  truncateSync(path, statSync(path).size - 3);
  const cut = await reader.readMore({ final: true });
  expect(cut.errors.map((e) => e.kind)).toEqual(['truncated']);
  expect(reader.result().errors.map((e) => e.kind)).toEqual(['truncated']);
});
