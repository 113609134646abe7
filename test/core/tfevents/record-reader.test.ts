// TFRecord framing: resumable reads, length/data CRCs, absurd lengths, and what each costs.

import { describe, expect, it } from 'vitest';
import { frameRecord, maskedCrc32c, RecordReader, recordCrcMatches } from '../../../src/core/tfevents';
import type { RecordStep } from '../../../src/core/tfevents';

const enc = new TextEncoder();

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Drains the reader: every step until it needs more bytes or stops. */
function drain(r: RecordReader): RecordStep[] {
  const out: RecordStep[] = [];
  for (;;) {
    const s = r.next();
    out.push(s.kind === 'record' ? { ...s, payload: s.payload.slice() } : s);
    if (s.kind === 'need-more' || s.kind === 'stopped') return out;
  }
}

function payloads(steps: RecordStep[]): string[] {
  return steps.flatMap((s) => (s.kind === 'record' ? [new TextDecoder().decode(s.payload)] : []));
}

/** A header claiming `length` bytes with a valid length CRC. */
function header(length: bigint): Uint8Array {
  const h = new Uint8Array(12);
  const dv = new DataView(h.buffer);
  dv.setBigUint64(0, length, true);
  dv.setUint32(8, maskedCrc32c(h, 0, 8), true);
  return h;
}

const A = frameRecord(enc.encode('alpha'));
const B = frameRecord(enc.encode('bravo-bravo'));
const EMPTY = frameRecord(new Uint8Array(0));

describe('RecordReader', () => {
  it('returns complete records with their offsets and waits at the boundary', () => {
    const r = new RecordReader();
    r.push(concat(A, EMPTY, B));
    const steps = drain(r);
    expect(payloads(steps)).toEqual(['alpha', '', 'bravo-bravo']);
    expect(steps.map((s) => (s.kind === 'record' ? s.offset : -1))).toEqual([
      0,
      A.length,
      A.length + EMPTY.length,
      -1,
    ]);
    expect(steps.at(-1)).toEqual({
      kind: 'need-more',
      offset: A.length + EMPTY.length + B.length,
      pending: 0,
    });
  });

  it('returns views into the pushed chunk when a record is whole (no copy)', () => {
    const chunk = concat(A, B);
    const r = new RecordReader();
    r.push(chunk);
    const s = r.next();
    expect(s.kind).toBe('record');
    if (s.kind === 'record') expect(s.payload.buffer).toBe(chunk.buffer);
  });

  it('keeps a partial record across pushes and reports how much it holds', () => {
    const bytes = concat(A, B);
    const r = new RecordReader();
    r.push(bytes.subarray(0, A.length + 5));
    const first = drain(r);
    expect(payloads(first)).toEqual(['alpha']);
    expect(first.at(-1)).toEqual({ kind: 'need-more', offset: A.length, pending: 5 });
    r.push(bytes.subarray(A.length + 5, A.length + 14));
    expect(drain(r).at(-1)).toEqual({ kind: 'need-more', offset: A.length, pending: 14 });
    r.push(bytes.subarray(A.length + 14));
    expect(payloads(drain(r))).toEqual(['bravo-bravo']);
    expect(r.pendingBytes).toBe(0);
  });

  it('accepts several pushes before draining', () => {
    const bytes = concat(A, B, A);
    const r = new RecordReader();
    for (let i = 0; i < bytes.length; i += 3) r.push(bytes.subarray(i, i + 3));
    expect(payloads(drain(r))).toEqual(['alpha', 'bravo-bravo', 'alpha']);
  });

  it('stops the file on a bad length CRC, even when more bytes arrive', () => {
    const bad = B.slice();
    bad[9]! ^= 0x01;
    const r = new RecordReader();
    r.push(concat(A, bad, A));
    const steps = drain(r);
    expect(payloads(steps)).toEqual(['alpha']);
    expect(steps.at(-1)).toMatchObject({
      kind: 'stopped',
      error: { kind: 'bad-length-crc', offset: A.length },
    });
    r.push(A);
    expect(r.next()).toMatchObject({ kind: 'stopped' });
    expect(r.stopped?.kind).toBe('bad-length-crc');
  });

  it('a flipped length bit is caught by the length CRC', () => {
    const bad = B.slice();
    bad[0]! ^= 0x04;
    const r = new RecordReader();
    r.push(bad);
    expect(r.next()).toMatchObject({ kind: 'stopped', error: { kind: 'bad-length-crc', offset: 0 } });
  });

  it('skips a record with a bad data CRC when checking, and continues', () => {
    const bad = B.slice();
    bad[14]! ^= 0xff;
    const checked = new RecordReader({ checkDataCrc: true });
    checked.push(concat(A, bad, A));
    const steps = drain(checked);
    expect(payloads(steps)).toEqual(['alpha', 'alpha']);
    expect(steps[1]).toMatchObject({ kind: 'skipped', error: { kind: 'bad-data-crc', offset: A.length } });
  });

  it('without checking, passes the corrupt record on with its stored CRC for a later check', () => {
    const bad = B.slice();
    bad[14]! ^= 0xff;
    const r = new RecordReader();
    r.push(concat(A, bad));
    const steps = drain(r);
    expect(steps.map((s) => s.kind)).toEqual(['record', 'record', 'need-more']);
    const [good, corrupt] = steps as [RecordStep & { kind: 'record' }, RecordStep & { kind: 'record' }];
    expect(good.crcChecked).toBe(false);
    expect(recordCrcMatches(good)).toBe(true);
    expect(recordCrcMatches(corrupt)).toBe(false);
  });

  it('a bad stored data CRC (not the payload) is also caught', () => {
    const bad = A.slice();
    bad[bad.length - 1]! ^= 0x80;
    const r = new RecordReader({ checkDataCrc: true });
    r.push(bad);
    expect(r.next()).toMatchObject({ kind: 'skipped', error: { kind: 'bad-data-crc' } });
  });

  it.each([
    [2n ** 40n, 'above 4 GiB'],
    [2n ** 64n - 1n, 'u64 max'],
    [BigInt(0xffffffff), 'u32 max'],
    [257n * 1024n * 1024n, 'just above the 256 MiB cap'],
  ])('an absurd length (%s, %s) stops the file as too-large without allocating', (length) => {
    const r = new RecordReader();
    r.push(concat(A, header(length), new Uint8Array(100)));
    const steps = drain(r);
    expect(payloads(steps)).toEqual(['alpha']);
    expect(steps.at(-1)).toMatchObject({ kind: 'stopped', error: { kind: 'too-large', offset: A.length } });
    expect(r.bufferedBytes).toBeLessThan(1024);
  });

  it('a large but allowed length in a short file allocates only what has arrived', () => {
    const r = new RecordReader();
    r.push(concat(header(200n * 1024n * 1024n), new Uint8Array(1000)));
    expect(r.next()).toEqual({ kind: 'need-more', offset: 0, pending: 1012 });
    expect(r.bufferedBytes).toBeLessThan(4096);
    for (let i = 0; i < 100; i++) r.push(new Uint8Array(1000));
    r.next();
    // Geometric growth: at most twice the bytes held.
    expect(r.bufferedBytes).toBeLessThanOrEqual(2 * 101_000 + 12);
    expect(r.pendingBytes).toBe(101_012);
  });

  it('honours a custom size cap', () => {
    const r = new RecordReader({ maxRecordBytes: 8 });
    r.push(concat(A, B));
    const steps = drain(r);
    expect(payloads(steps)).toEqual(['alpha']);
    expect(steps.at(-1)).toMatchObject({ kind: 'stopped', error: { kind: 'too-large' } });
  });

  it('assembling a record byte by byte costs O(bytes): the buffer grows geometrically, not per byte', () => {
    const big = frameRecord(new Uint8Array(100_000).fill(7));
    const r = new RecordReader();
    const sizes = new Set<number>();
    for (let i = 0; i < big.length; i++) {
      r.push(big.subarray(i, i + 1));
      const s = r.next();
      if (s.kind === 'record') expect(s.payload.every((b) => b === 7)).toBe(true);
      sizes.add(r.bufferedBytes);
    }
    // 256 → 512 → … → 100 004: about 10 reallocations for 100 kB, not 100 000.
    expect(sizes.size).toBeLessThan(16);
  });
});
