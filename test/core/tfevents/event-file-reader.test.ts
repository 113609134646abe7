// Following event files on disk: appends, partial records, restarts (shrink, replace), IO errors, garbage.

import { appendFileSync, mkdirSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  EventFileReader,
  EventFileWriter,
  frameRecord,
  readEventFile,
} from '../../../src/core/tfevents';
import { tempDir } from './helpers';

const tmp = tempDir();
afterAll(() => tmp.dispose());
let n = 0;
const newPath = () => join(tmp.dir, `events.out.tfevents.${n++}`);

const WALL = 1_700_000_000;
const ev = (step: number, value = step) =>
  frameRecord(encodeScalarEvent(WALL + step, step, [{ tag: 'loss', value }]));
const header = frameRecord(encodeFileVersionEvent(WALL));

function steps(reader: EventFileReader): number[] {
  return Array.from(reader.scalars.get('loss').steps());
}

describe('EventFileReader on a live file', () => {
  it('reads only what was appended, and waits on a half-written record without an error', () => {
    const path = newPath();
    writeFileSync(path, header);
    const r = new EventFileReader(path);
    expect(r.readMore()).toMatchObject({
      bytes: header.length,
      records: 1,
      reset: false,
      state: 'idle',
      error: null,
    });
    const e1 = ev(1);
    appendFileSync(path, e1.subarray(0, 20));
    expect(r.readMore()).toMatchObject({ bytes: 20, records: 0, state: 'pending' });
    expect(r.result().errors).toEqual([]);
    // Asked for a final result now, the partial record is `truncated`.
    expect(r.result(true).errors).toEqual([
      { kind: 'truncated', offset: header.length, message: expect.any(String) },
    ]);
    appendFileSync(path, e1.subarray(20));
    appendFileSync(path, ev(2));
    expect(r.readMore()).toMatchObject({ bytes: e1.length - 20 + ev(2).length, records: 2, state: 'idle' });
    expect(steps(r)).toEqual([1, 2]);
    expect(r.readMore()).toMatchObject({ bytes: 0, records: 0 });
    expect(r.bytesRead).toBe(header.length + e1.length + ev(2).length);
  });

  it('readTailSync reads a small append to a file already read; anything else is left to readMoreAsync', async () => {
    const path = newPath();
    writeFileSync(path, header);
    const r = new EventFileReader(path);
    // Nothing read yet: the first read is asynchronous (a cold file may be large, or on a slow disk).
    expect(r.readTailSync(1 << 16)).toBeNull();
    await r.readMoreAsync();
    appendFileSync(path, ev(1));
    expect(r.readTailSync(1 << 16)).toMatchObject({
      bytes: ev(1).length,
      records: 1,
      reset: false,
      error: null,
    });
    expect(r.readTailSync(1 << 16)).toMatchObject({ bytes: 0, records: 0 });
    // More than the limit appended: nothing read, nothing lost; the asynchronous read takes it all.
    appendFileSync(path, Buffer.concat([ev(2), ev(3)]));
    expect(r.readTailSync(ev(2).length)).toBeNull();
    expect(steps(r)).toEqual([1]);
    expect(await r.readMoreAsync()).toMatchObject({ records: 2, reset: false });
    expect(steps(r)).toEqual([1, 2, 3]);
    // Shorter (rewritten), or another file at the path: left to the asynchronous read, which starts over.
    truncateSync(path, header.length);
    expect(r.readTailSync(1 << 16)).toBeNull();
    expect(await r.readMoreAsync()).toMatchObject({ reset: true });
    const other = `${path}.new`;
    writeFileSync(other, Buffer.concat([header, ev(7)]));
    renameSync(other, path);
    expect(r.readTailSync(1 << 16)).toBeNull();
    expect(await r.readMoreAsync()).toMatchObject({ reset: true, records: 2 });
    expect(steps(r)).toEqual([7]);
    rmSync(path);
    expect(r.readTailSync(1 << 16)).toBeNull();
  });

  it('a file that shrinks (rewritten by a restarted run) is re-read from the start, and says so', () => {
    const path = newPath();
    writeFileSync(path, Buffer.concat([header, ev(1), ev(2), ev(3)]));
    const r = new EventFileReader(path);
    r.readMore();
    const before = r.scalars;
    expect(steps(r)).toEqual([1, 2, 3]);
    truncateSync(path, header.length + ev(1).length);
    appendFileSync(path, ev(10));
    // Same length as before? No: shorter, so the reader notices.
    const res = r.readMore();
    expect(res).toMatchObject({ reset: true, records: 3 });
    expect(r.resets).toBe(1);
    expect(r.scalars).not.toBe(before);
    expect(steps(r)).toEqual([1, 10]);
  });

  it('a file replaced by another one (new inode) is re-read even when it is longer', () => {
    const path = newPath();
    writeFileSync(path, Buffer.concat([header, ev(1)]));
    const r = new EventFileReader(path);
    r.readMore();
    const other = `${path}.new`;
    writeFileSync(other, Buffer.concat([header, ev(5), ev(6), ev(7)]));
    renameSync(other, path);
    expect(r.readMore().reset).toBe(true);
    expect(steps(r)).toEqual([5, 6, 7]);
  });

  it('a missing or vanished file is an `io` error, never an exception; the series read stay', () => {
    const missing = readEventFile(join(tmp.dir, 'nope'));
    expect(missing.errors).toEqual([{ kind: 'io', offset: 0, message: expect.stringContaining('ENOENT') }]);
    expect(missing.records).toBe(0);

    const path = newPath();
    writeFileSync(path, Buffer.concat([header, ev(1)]));
    const r = new EventFileReader(path);
    r.readMore();
    rmSync(path);
    const res = r.readMore();
    expect(res.error?.kind).toBe('io');
    expect(steps(r)).toEqual([1]);
    expect(r.result().errors.map((e) => e.kind)).toEqual(['io']);
    // It comes back: the io error clears (new inode, so re-read from the start).
    writeFileSync(path, Buffer.concat([header, ev(1), ev(2)]));
    expect(r.readMore().error).toBeNull();
    expect(r.result().errors).toEqual([]);
    expect(steps(r)).toEqual([1, 2]);
  });

  it('a directory is an `io` error', () => {
    expect(readEventFile(tmp.dir).errors.map((e) => e.kind)).toEqual(['io']);
  });

  it('a bad length CRC stops the file; later appends are not read', () => {
    const path = newPath();
    const bad = ev(2).slice();
    bad[3]! ^= 0x10;
    writeFileSync(path, Buffer.concat([header, ev(1), bad, ev(3)]));
    const r = new EventFileReader(path);
    expect(r.readMore().state).toBe('stopped');
    appendFileSync(path, ev(4));
    expect(r.readMore()).toMatchObject({ bytes: 0, records: 0, state: 'stopped' });
    expect(steps(r)).toEqual([1]);
    expect(r.result(true).errors).toEqual([
      { kind: 'bad-length-crc', offset: header.length + ev(1).length, message: expect.any(String) },
    ]);
  });

  it('bad data CRCs: found on request; otherwise only when decoding fails', () => {
    const path = newPath();
    const flipped = ev(2, 0.5).slice();
    flipped[flipped.length - 6]! ^= 0x01; // inside the float: still decodes
    writeFileSync(path, Buffer.concat([header, ev(1), flipped, ev(3)]));
    expect(readEventFile(path).errors).toEqual([]);
    const checked = readEventFile(path, { checkDataCrc: true });
    expect(checked.errors).toEqual([
      { kind: 'bad-data-crc', offset: header.length + ev(1).length, message: expect.any(String) },
    ]);
    expect(Array.from(checked.series.get('loss').steps())).toEqual([1, 3]);
  });

  it('small read chunks give the same result as one big read', () => {
    const path = newPath();
    writeFileSync(path, Buffer.concat([header, ...Array.from({ length: 200 }, (_, i) => ev(i))]));
    const small = readEventFile(path, { chunkBytes: 7 });
    expect(small.errors).toEqual([]);
    expect(Array.from(small.series.get('loss').steps())).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('a whole read trims its size-hint reservation to 16 B per point; a short-lived one keeps a small overshoot', () => {
    const path = newPath();
    // Past the 256 KiB the reservation is estimated from.
    writeFileSync(path, Buffer.concat([header, ...Array.from({ length: 20_000 }, (_, i) => ev(i, i / 7))]));
    // Read in 64 KiB chunks: the reservation is made after the first 256 KiB, from the points per byte so far.
    const kept = readEventFile(path, { chunkBytes: 1 << 16 }).series.get('loss');
    const shortLived = readEventFile(path, { chunkBytes: 1 << 16, shortLived: true }).series.get('loss');
    expect(kept.length).toBe(20_000);
    expect(kept.capacity).toBe(kept.length);
    expect(shortLived.capacity).toBeGreaterThan(shortLived.length);
    expect(shortLived.capacity).toBeLessThanOrEqual(shortLived.length * (1 + 1 / 16) + 64);
    expect(shortLived.values()).toEqual(kept.values());
    expect(shortLived.steps()).toEqual(kept.steps());
  });

  it('round-trips a live EventFileWriter with every encoding, flush by flush', () => {
    const dir = join(tmp.dir, 'writer');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const w = new EventFileWriter(dir, { wallTime: WALL });
    const r = new EventFileReader(w.path);
    for (let step = 0; step < 30; step++) {
      w.scalars(step, [{ tag: 's', value: step / 3 }], 'simple', WALL + step);
      w.scalars(step, [{ tag: 'tf', value: step / 3 }], 'tensor-float', WALL + step);
      w.scalars(step, [{ tag: 'td', value: step / 3 }], 'tensor-double', WALL + step);
      if (step % 7 === 0) {
        w.flush();
        r.readMore();
      }
    }
    w.close();
    r.readMore();
    const res = r.result(true);
    expect(res.errors).toEqual([]);
    expect(res.records).toBe(91);
    const vals = (tag: string) => Array.from(res.series.get(tag).values());
    expect(vals('s')).toEqual(Array.from({ length: 30 }, (_, i) => Math.fround(i / 3)));
    expect(vals('tf')).toEqual(vals('s'));
    expect(vals('td')).toEqual(Array.from({ length: 30 }, (_, i) => i / 3));
  });
});

describe('garbage files', () => {
  it.each([
    ['empty', new Uint8Array(0), []],
    ['a few bytes', new Uint8Array([1, 2, 3]), ['truncated']],
    ['text', new TextEncoder().encode('step,loss\n1,0.5\n2,0.25\n'), ['bad-length-crc']],
    ['zeros', new Uint8Array(4096), ['bad-length-crc']],
    ['0xff', new Uint8Array(4096).fill(0xff), ['bad-length-crc']],
  ])('%s: typed errors, no throw', (_name, bytes, kinds) => {
    const path = newPath();
    writeFileSync(path, bytes);
    const r = readEventFile(path);
    expect(r.records).toBe(0);
    expect(r.errors.map((e) => e.kind)).toEqual(kinds);
  });
});
