// A bulk read jumps over the bytes of large events the decoder skips (images, other plugins' tensors): they are never
// read, the values around them are right, and a corrupt or half-written record is still read whole and reported.

import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  EventFileReader,
  frameRecord,
  readEventFile,
} from '../../../src/core/tfevents';
import { ProtoWriter } from '../../../src/core/tfevents/protobuf-writer';

// Counts the bytes the reader's synchronous reads ask the file for.
let readBytes = 0;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof Fs>();
  return {
    ...real,
    readSync: (...args: Parameters<typeof real.readSync>): number => {
      const n = real.readSync(...args);
      readBytes += n;
      return n;
    },
  };
});

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-jump-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function varint(v: number): number[] {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push(v % 128 | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field holding `parts`, concatenated once. */
function field(n: number, ...parts: Uint8Array[]): Uint8Array {
  const len = parts.reduce((a, p) => a + p.length, 0);
  const head = Uint8Array.from([...varint(n * 8 + 2), ...varint(len)]);
  const out = new Uint8Array(head.length + len);
  out.set(head);
  let p = head.length;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** An event as PyTorch's add_image writes it: Summary.Value { tag, image: Image { height, width, colorspace, png } }. */
function imageEvent(step: number, bytes: number): Uint8Array {
  const png = new Uint8Array(bytes).fill(0x5a);
  const dims = new ProtoWriter().int(1, 64).int(2, 64).int(3, 3).finish();
  return frameEvent(step, field(1, utf8('samples/frame')), field(4, dims, field(4, png)));
}

/** An event as tf.summary.image writes it: a string tensor [width, height, png], plugin `images` on the first. */
function tensorImageEvent(
  step: number,
  bytes: number,
  withPlugin: boolean,
  after: Uint8Array[] = [],
): Uint8Array {
  const png = new Uint8Array(bytes).fill(0x33);
  const tensor = field(
    8,
    new ProtoWriter().int(1, 7).finish(),
    field(8, utf8('64')),
    field(8, utf8('64')),
    field(8, png),
  );
  const meta = withPlugin ? [field(9, field(1, field(1, utf8('images'))))] : [];
  return frameEvent(step, field(1, utf8('images/grid')), tensor, ...meta, ...after);
}

function frameEvent(step: number, ...valueFields: Uint8Array[]): Uint8Array {
  const head = new ProtoWriter()
    .double(1, 1000 + step)
    .int(2, step)
    .finish();
  const summary = field(5, field(1, ...valueFields));
  const out = new Uint8Array(head.length + summary.length);
  out.set(head);
  out.set(summary, head.length);
  return frameRecord(out);
}

const scalar = (step: number, value: number): Uint8Array =>
  frameRecord(encodeScalarEvent(1000 + step, step, [{ tag: 'loss', value }]));

function write(name: string, records: Uint8Array[]): string {
  const path = join(tmp, name);
  writeFileSync(path, frameRecord(encodeFileVersionEvent(1000)));
  for (const r of records) appendFileSync(path, r);
  return path;
}

const MB = 1 << 20;

describe('jumping over skipped bytes (#36)', () => {
  const path = write('images', [
    scalar(1, 0.5),
    imageEvent(1, 50 * MB),
    scalar(2, 0.25),
    tensorImageEvent(2, 300_000, true),
    tensorImageEvent(3, 400_000, false),
    scalar(3, 0.125),
  ]);
  const size = statSync(path).size;

  test('a 50 MB image between scalars is never read; the scalars around it are right', () => {
    readBytes = 0;
    const r = readEventFile(path);
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(7);
    expect(r.bytes).toBe(size);
    expect([...r.series.get('loss').values()]).toEqual([0.5, 0.25, 0.125]);
    expect([...r.series.get('loss').steps()]).toEqual([1, 2, 3]);
    // The first tf.summary.image (its plugin named after its tensor) is read whole; the rest are jumped over.
    expect(readBytes).toBeLessThan(3 * MB);
  });

  test('the asynchronous read jumps alike', async () => {
    const reader = new EventFileReader(path);
    const res = await reader.readMoreAsync();
    const r = reader.result(true);
    expect(res.error).toBeNull();
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(7);
    expect([...r.series.get('loss').values()]).toEqual([0.5, 0.25, 0.125]);
    expect(reader.bytesRead).toBe(size);
    expect(reader.bytesFetched).toBeLessThan(3 * MB);
  });

  test('with data CRCs checked every byte is read (the CRC covers them)', () => {
    readBytes = 0;
    const r = readEventFile(path, { checkDataCrc: true });
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(7);
    expect(readBytes).toBeGreaterThanOrEqual(size);
  });

  test('a corrupt scalar record is still caught; a corrupt or undecodable image is read whole and reported', () => {
    const bad = scalar(2, 0.25);
    // The summary's length claims more than the record holds: the decode fails and the data CRC tells.
    bad[12 + 9 + 2 + 1] = 0x7f;
    // The image's summary length claims more than the record holds: no jump, the record is read whole.
    const badImage = imageEvent(3, 200_000);
    badImage.set([0xff, 0xff, 0x7f], 12 + 12);
    // After a jumped-over tensor, a field of a wire type protobuf refuses: the stitched event does not decode, the
    // record is read whole and fails the same way (its CRC holds: a `decode` error).
    const undecodable = tensorImageEvent(5, 300_000, false, [Uint8Array.from([0x4b, 0x00])]);
    const p = write('corrupt', [
      scalar(1, 0.5),
      imageEvent(1, 300_000),
      bad,
      badImage,
      tensorImageEvent(4, 300_000, true),
      undecodable,
      imageEvent(6, 300_000),
      scalar(7, 2),
    ]);
    for (const checkDataCrc of [false, true]) {
      const r = readEventFile(p, { checkDataCrc });
      expect(r.errors.map((e) => e.kind)).toEqual(['bad-data-crc', 'bad-data-crc', 'decode']);
      expect(r.records).toBe(6);
      expect([...r.series.get('loss').steps()]).toEqual([1, 7]);
    }
  });

  test('an image still being written is not jumped past the end of the file: the read waits, then goes on', () => {
    const image = imageEvent(2, 2 * MB);
    const p = write('growing', [scalar(1, 1)]);
    appendFileSync(p, image.subarray(0, MB));
    const reader = new EventFileReader(p);
    reader.readMore();
    expect(reader.state).toBe('pending');
    expect(reader.bytesRead).toBe(statSync(p).size);
    appendFileSync(p, image.subarray(MB));
    appendFileSync(p, scalar(3, 3));
    reader.readMore();
    const r = reader.result(true);
    expect(reader.resets).toBe(0);
    expect(r.errors).toEqual([]);
    expect([...r.series.get('loss').values()]).toEqual([1, 3]);
    expect(reader.bytesRead).toBe(statSync(p).size);
  });
});
