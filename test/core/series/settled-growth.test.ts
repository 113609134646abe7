// A series whose bulk is read (settled: compacted, or trimmed after its file's first whole read) grows by an eighth,
// not by doubling: 2,500 live series doubling at once held ~40 MB of empty capacity in `serve` (#36 target 2).

import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ScalarSeries } from '../../../src/core/series/scalar-series';
import { packRead, unpackRead } from '../../../src/core/tfevents/read-message';
import { encodeScalarEvent, EventFileReader, frameRecord, readEventFile } from '../../../src/core/tfevents';
import { tempDir } from '../tfevents/helpers';

const tmp = tempDir();
afterAll(() => tmp.dispose());

const filled = (n: number): ScalarSeries => {
  const s = new ScalarSeries();
  for (let i = 0; i < n; i++) s.append(i, 1_700_000_000 + i, i / 4);
  return s;
};

/** Appends until the columns grow once; returns the capacity they grew to. */
const nextCapacity = (s: ScalarSeries): number => {
  const cap = s.capacity;
  while (s.capacity === cap) s.append(s.length, 1_700_000_000 + s.length, 0.5);
  return s.capacity;
};

test('a series still being read doubles; compacted or settled, it grows by an eighth (64 points at least)', () => {
  const reading = filled(1000);
  expect(nextCapacity(reading)).toBe(2048);

  const compacted = filled(1000);
  compacted.compact();
  expect(compacted.settled).toBe(true);
  expect(compacted.capacity).toBe(1000);
  expect(nextCapacity(compacted)).toBe(1000 + 125);
  expect(nextCapacity(compacted)).toBe(1125 + 140);

  const settled = filled(1024);
  settled.settle();
  expect(nextCapacity(settled)).toBe(1024 + 128);

  const small = filled(100);
  small.compact();
  expect(nextCapacity(small)).toBe(100 + 64);

  // Thinning (the memory cap) leaves the growth as it was: one thinned in the middle of a first read goes on doubling.
  const thinned = filled(1000);
  thinned.keepOnly(
    Array.from({ length: 500 }, (_, k) => 2 * k),
    500,
  );
  expect(nextCapacity(thinned)).toBe(1000);
  const thinnedSettled = filled(1000);
  thinnedSettled.settle();
  thinnedSettled.keepOnly(
    Array.from({ length: 500 }, (_, k) => 2 * k),
    500,
  );
  expect(nextCapacity(thinnedSettled)).toBe(500 + 64);
  // What was appended is kept, in order.
  expect(Array.from(compacted.steps())).toEqual(Array.from({ length: compacted.length }, (_, i) => i));
});

test('a followed event file, read whole, grows its series by an eighth as it is appended to; a pooled read keeps that', () => {
  const path = join(tmp.dir, 'events.out.tfevents.1');
  const ev = (step: number) =>
    frameRecord(encodeScalarEvent(1_700_000_000 + step, step, [{ tag: 'loss', value: step / 7 }]));
  // Past the 256 KiB a size hint is acted on: the series is reserved, then trimmed and settled at the end.
  writeFileSync(path, Buffer.concat(Array.from({ length: 20_000 }, (_, i) => ev(i))));
  const reader = new EventFileReader(path);
  reader.readMore();
  const loss = reader.scalars.get('loss');
  expect(loss.length).toBe(20_000);
  expect(loss.settled).toBe(true);
  for (let i = 20_000; i < 20_100; i++) appendFileSync(path, ev(i));
  reader.readMore();
  expect(loss.length).toBe(20_100);
  expect(loss.capacity).toBeLessThanOrEqual(20_000 + 20_000 / 8);

  const { read } = packRead(1, readEventFile(path));
  expect(unpackRead(read).series.get('loss').settled).toBe(true);
});
