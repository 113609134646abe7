// Fuzzing the event reader with fast-check: >100k mutated, truncated and random inputs, each in random chunks.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadErrorKindName } from '../../../src/shared/formats';
import {
  DT_HALF,
  DT_INT64,
  encodeFileVersionEvent,
  encodeHistogramEvent,
  encodeScalarEvent,
  encodeTensorHistogramEvent,
  encodeTensorScalarEvent,
  frameRecord,
  RecordReader,
} from '../../../src/core/tfevents';
import type { TfEventsReadResult } from '../../../src/core/tfevents';
import { corpusFiles, describe as digest, fixture, readInPieces, readWhole } from './helpers';

const WALL = 1_700_000_000;
const KINDS: ReadErrorKindName[] = ['truncated', 'bad-length-crc', 'bad-data-crc', 'decode', 'too-large'];

function cat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Small valid event payloads covering every decoder path. */
const PAYLOADS: Uint8Array[] = [
  encodeFileVersionEvent(WALL),
  encodeScalarEvent(WALL, 1, [
    { tag: 'a', value: 1 },
    { tag: 'b/c', value: -2 },
  ]),
  encodeScalarEvent(WALL, 2, [{ tag: 'tf', value: 0.5 }], 'tensor-float'),
  encodeScalarEvent(WALL, 3, [{ tag: 'td', value: 0.25 }], 'tensor-double', () => false),
  encodeTensorScalarEvent(WALL, 4, 'i64', -7, { dtype: DT_INT64, content: true }),
  encodeTensorScalarEvent(WALL, 5, 'h', 1.5, { dtype: DT_HALF }),
  encodeHistogramEvent(WALL, 6, 'w', {
    min: 0,
    max: 2,
    num: 3,
    sum: 3,
    sumSquares: 5,
    bucketLimit: [1, 2],
    bucket: [1, 2],
  }),
  encodeTensorHistogramEvent(WALL, 7, 'th', [
    [0, 1, 2],
    [1, 2, 3],
  ]),
];

/** Seeds: files built from the payloads, and the small real files of the corpus. */
const SEEDS: Uint8Array[] = [
  cat(PAYLOADS.map(frameRecord)),
  cat(PAYLOADS.slice(0, 4).map(frameRecord)),
  cat(PAYLOADS.slice(4).map(frameRecord)),
  ...corpusFiles()
    .map(fixture)
    .filter((b) => b.length <= 1400),
];

type Edit =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'set'; at: number; byte: number }
  | { op: 'truncate'; at: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'delete'; at: number; len: number }
  | { op: 'duplicate'; at: number; len: number; to: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({
    op: fc.constant('set' as const),
    at: fc.nat(),
    byte: fc.constantFrom(0, 0x7f, 0x80, 0xff, 8, 10, 18),
  }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }),
  }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    op: fc.constant('duplicate' as const),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 64 }),
    to: fc.nat(),
  }),
);

function apply(base: Uint8Array, edits: Edit[]): Uint8Array {
  let b = base;
  for (const e of edits) {
    if (b.length === 0) break;
    const at = e.at % b.length;
    switch (e.op) {
      case 'flip':
        b = b.slice();
        b[at]! ^= 1 << e.bit;
        break;
      case 'set':
        b = b.slice();
        b[at] = e.byte;
        break;
      case 'truncate':
        b = b.subarray(0, at);
        break;
      case 'insert':
        b = cat([b.subarray(0, at), e.bytes, b.subarray(at)]);
        break;
      case 'delete':
        b = cat([b.subarray(0, at), b.subarray(at + e.len)]);
        break;
      case 'duplicate':
        b = cat([b.subarray(0, e.to % b.length), b.subarray(at, at + e.len), b.subarray(e.to % b.length)]);
        break;
    }
  }
  return b;
}

function cutsFor(len: number, raw: number[]): number[] {
  return raw.map((c) => (len === 0 ? 0 : c % len)).sort((a, b) => a - b);
}

/** What every result must satisfy, whatever the input. */
function checkShape(r: TfEventsReadResult, len: number): void {
  for (const e of r.errors) {
    expect(KINDS).toContain(e.kind);
    expect(e.offset).toBeGreaterThanOrEqual(0);
    expect(e.offset).toBeLessThanOrEqual(len);
  }
  // Fatal errors come last: nothing is read after the framing broke.
  const fatal = r.errors.findIndex((e) => e.kind === 'bad-length-crc' || e.kind === 'too-large');
  if (fatal >= 0) expect(fatal).toBe(r.errors.length - 1);
  // A record is at least 16 bytes.
  expect(r.records * 16).toBeLessThanOrEqual(len);
  expect(r.bytes).toBe(len);
}

describe('fuzzing the event reader', () => {
  it('mutated files: typed errors only, and any chunking gives the one-shot result (45k inputs)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SEEDS),
        fc.array(edit, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (base, edits, rawCuts, checkDataCrc) => {
          const bytes = apply(base, edits);
          const whole = readWhole(bytes, { checkDataCrc });
          checkShape(whole, bytes.length);
          expect(digest(readInPieces(bytes, cutsFor(bytes.length, rawCuts), { checkDataCrc }))).toBe(
            digest(whole),
          );
        },
      ),
      { numRuns: 45_000 },
    );
  });

  it('valid framing around mutated payloads: only `decode` errors, and never half an event stored (20k inputs)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PAYLOADS),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        (payload, edits) => {
          const mutated = apply(payload, edits);
          const bytes = cat([frameRecord(mutated), frameRecord(PAYLOADS[1]!)]);
          const r = readWhole(bytes);
          checkShape(r, bytes.length);
          expect(r.errors.every((e) => e.kind === 'decode')).toBe(true);
          // The good record after it is always read.
          expect(r.series.get('a').length).toBeGreaterThanOrEqual(1);
          // A mutated event either decodes fully or stores nothing.
          if (r.errors.length > 0) expect(r.records).toBe(1);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('random bytes: typed errors, no throw (35k inputs)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (bytes, rawCuts) => {
          const r = readInPieces(bytes, cutsFor(bytes.length, rawCuts));
          checkShape(r, bytes.length);
        },
      ),
      { numRuns: 35_000 },
    );
  });

  it('the record reader never holds more memory than about twice the bytes pushed (10k inputs)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SEEDS),
        fc.array(edit, { maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (base, edits, sizes) => {
          const bytes = apply(base, edits);
          const r = new RecordReader();
          let pushed = 0;
          for (let i = 0; pushed < bytes.length; i++) {
            const n = sizes[i % sizes.length]!;
            r.push(bytes.subarray(pushed, pushed + n));
            pushed = Math.min(bytes.length, pushed + n);
            let steps = 0;
            for (let s = r.next(); s.kind !== 'need-more' && s.kind !== 'stopped'; s = r.next()) steps++;
            // Plain checks in the inner loop: expect() per chunk would dominate the run time.
            if (steps > pushed / 16) throw new Error(`${steps} records from ${pushed} bytes`);
            if (r.bufferedBytes > 2 * pushed + 256 + 12)
              throw new Error(`${r.bufferedBytes} bytes held for ${pushed} pushed`);
          }
        },
      ),
      { numRuns: 10_000 },
    );
  });
});
