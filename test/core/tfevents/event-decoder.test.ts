// Event decoding round-trips with our writer: every scalar encoding, histograms, plugin memory, odd protos.

import { describe, expect, it } from 'vitest';
import { ProtoWriter } from '../../../src/core/tfevents/protobuf-writer';
import {
  DT_BFLOAT16,
  DT_DOUBLE,
  DT_FLOAT,
  DT_HALF,
  DT_INT32,
  DT_INT64,
  encodeFileVersionEvent,
  encodeHistogramEvent,
  encodeScalarEvent,
  encodeTensorHistogramEvent,
  encodeTensorScalarEvent,
  EventStream,
  frameRecord,
} from '../../../src/core/tfevents';
import type { ScalarEncoding, TensorScalarOptions, TfEventsReadResult } from '../../../src/core/tfevents';

function read(payloads: Uint8Array[], opts = {}): TfEventsReadResult {
  const s = new EventStream(opts);
  for (const p of payloads) s.push(frameRecord(p));
  return s.result(true);
}

function points(
  r: TfEventsReadResult,
  tag: string,
  set: 'series' | 'histograms' = 'series',
): [number, number, number][] {
  const s = r[set].get(tag);
  return Array.from({ length: s.length }, (_, i) => [s.step(i), s.wallTime(i), s.value(i)]);
}

const WALL = 1_700_000_000.25;

describe('scalars', () => {
  it.each<ScalarEncoding>(['simple', 'tensor-float', 'tensor-double'])(
    '%s: values, steps and wall times',
    (encoding) => {
      const values = [0.5, -1.25, 3.0e-8, 1e30, Math.fround(Math.PI)];
      const r = read([
        encodeFileVersionEvent(WALL),
        ...values.map((v, i) =>
          encodeScalarEvent(
            WALL + i,
            i * 10,
            [
              { tag: 'loss', value: v },
              { tag: 'kl', value: -v },
            ],
            encoding,
          ),
        ),
      ]);
      expect(r.errors).toEqual([]);
      expect(r.records).toBe(values.length + 1);
      expect(r.fileVersion).toBe('brain.Event:2');
      expect(r.series.tags()).toEqual(['kl', 'loss']);
      const stored = (v: number) => (encoding === 'tensor-double' ? v : Math.fround(v));
      expect(points(r, 'loss')).toEqual(values.map((v, i) => [i * 10, WALL + i, stored(v)]));
      expect(points(r, 'kl').map((p) => p[2])).toEqual(values.map((v) => stored(-v)));
    },
  );

  it('tensor-double keeps full float64 precision', () => {
    const r = read([encodeScalarEvent(WALL, 1, [{ tag: 'x', value: 0.1 }], 'tensor-double')]);
    expect(r.series.get('x').value(0)).toBe(0.1);
  });

  it('TF writes the plugin name only on a tag’s first value; later values are still scalars', () => {
    const seen = new Set<string>();
    const once = (tag: string): boolean => !seen.has(tag) && seen.add(tag) !== undefined;
    const r = read(
      [1, 2, 3].map((step) =>
        encodeScalarEvent(
          WALL,
          step,
          [
            { tag: 'a', value: step },
            { tag: 'b', value: -step },
          ],
          'tensor-float',
          once,
        ),
      ),
    );
    expect(points(r, 'a').map((p) => p[2])).toEqual([1, 2, 3]);
    expect(points(r, 'b').map((p) => p[2])).toEqual([-1, -2, -3]);
  });

  it('a tensor with no plugin metadata at all is not a scalar (as in TensorBoard)', () => {
    const r = read([encodeScalarEvent(WALL, 1, [{ tag: 'x', value: 1 }], 'tensor-float', () => false)]);
    expect(r.series.size).toBe(0);
    expect(r.errors).toEqual([]);
  });

  const dtypes: [string, TensorScalarOptions['dtype'], number[]][] = [
    ['float', DT_FLOAT, [1.5, -2.25, Math.fround(0.1)]],
    ['double', DT_DOUBLE, [0.1, -1e300, 2 ** -1000]],
    ['int32', DT_INT32, [0, 7, -3, 2 ** 31 - 1, -(2 ** 31)]],
    ['int64', DT_INT64, [0, -1, 2 ** 40 + 3, -(2 ** 52)]],
    ['half', DT_HALF, [0, 1, -2.5, 0.0999755859375, 65504, 2 ** -24, Infinity]],
    ['bfloat16', DT_BFLOAT16, [0, 1, -2.5, 0.10009765625, 3.3895313892515355e38]],
  ];
  describe.each(dtypes)('dtype %s', (_name, dtype, values) => {
    it.each([false, true])('tensor_content=%s decodes exactly', (content) => {
      const r = read(
        values.map((v, i) =>
          encodeTensorScalarEvent(WALL, i, 'v', v, { dtype, content, withPluginName: i === 0 }),
        ),
      );
      expect(r.errors).toEqual([]);
      expect(points(r, 'v').map((p) => p[2])).toEqual(values);
    });
  });

  it('half NaN stays NaN', () => {
    const r = read([encodeTensorScalarEvent(WALL, 0, 'v', NaN, { dtype: DT_HALF, content: true })]);
    expect(r.series.get('v').value(0)).toBeNaN();
  });

  it('float_val written unpacked (one fixed32 per value) is read too', () => {
    const payload = new ProtoWriter()
      .double(1, WALL)
      .int(2, 4)
      .message(5, (s) =>
        s.message(1, (v) =>
          v
            .string(1, 'u')
            .message(9, (m) => m.message(1, (pd) => pd.string(1, 'scalars')))
            .message(8, (t) => t.int(1, DT_FLOAT).float(5, 2.5)),
        ),
      )
      .finish();
    expect(points(read([payload]), 'u')).toEqual([[4, WALL, 2.5]]);
  });

  it('a scalars-plugin tensor with several elements is skipped and counted, not stored', () => {
    const payload = new ProtoWriter()
      .message(5, (s) =>
        s.message(1, (v) =>
          v
            .string(1, 'vec')
            .message(9, (m) => m.message(1, (pd) => pd.string(1, 'scalars')))
            .message(8, (t) =>
              t
                .int(1, DT_FLOAT)
                .message(2, (sh) => sh.message(2, (d) => d.int(1, 2)))
                .packedFloats(5, [1, 2]),
            ),
        ),
      )
      .finish();
    const r = read([payload]);
    expect(r.series.pointCount()).toBe(0);
    expect(r.skippedValues).toBe(1);
    expect(r.errors).toEqual([]);
  });

  it('steps: missing is 0, negative and beyond 2^32 are exact', () => {
    const r = read([
      new ProtoWriter()
        .double(1, WALL)
        .message(5, (s) => s.message(1, (v) => v.string(1, 's').float(2, 1)))
        .finish(),
      encodeScalarEvent(WALL, -5, [{ tag: 's', value: 2 }]),
      encodeScalarEvent(WALL, 2 ** 40 + 1, [{ tag: 's', value: 3 }]),
    ]);
    expect(points(r, 's').map((p) => p[0])).toEqual([0, -5, 2 ** 40 + 1]);
  });

  it('fields in any order: step and wall time after the summary', () => {
    const payload = new ProtoWriter()
      .message(5, (s) => s.message(1, (v) => v.float(2, 9).string(1, 'late')))
      .int(2, 77)
      .double(1, WALL)
      .finish();
    expect(points(read([payload]), 'late')).toEqual([[77, WALL, 9]]);
  });

  it('a TF1 value without a tag is named by its node_name', () => {
    const payload = new ProtoWriter()
      .message(5, (s) => s.message(1, (v) => v.string(7, 'node/x').float(2, 1)))
      .finish();
    expect(read([payload]).series.tags()).toEqual(['node/x']);
  });

  it('images, audio, text, graphs, session logs and unknown fields are skipped', () => {
    const payload = new ProtoWriter()
      .double(1, WALL)
      .int(2, 3)
      .bytes(4, new Uint8Array(500).fill(1))
      .message(7, (l) => l.int(1, 1))
      .bytes(99, new Uint8Array(3))
      .message(5, (s) =>
        s
          .message(1, (v) =>
            v.string(1, 'img').message(4, (im) => im.int(1, 10).int(2, 10).bytes(4, new Uint8Array(100))),
          )
          .message(1, (v) =>
            v.string(1, 'snd').message(6, (a) => a.float(1, 16000).bytes(4, new Uint8Array(50))),
          )
          .message(1, (v) =>
            v
              .string(1, 'txt')
              .message(9, (m) => m.message(1, (pd) => pd.string(1, 'text')))
              .message(8, (t) => t.int(1, 7).bytes(8, new TextEncoder().encode('hello'))),
          )
          .message(1, (v) => v.string(1, 'ok').float(2, 1)),
      )
      .finish();
    const r = read([payload]);
    expect(r.errors).toEqual([]);
    expect(r.series.tags()).toEqual(['ok']);
    expect(r.skippedValues).toBe(0);
  });

  it('tags are interned: one series per tag however many events', () => {
    const r = read(
      Array.from({ length: 100 }, (_, i) => encodeScalarEvent(WALL, i, [{ tag: 'train/loss', value: i }])),
    );
    expect(r.series.size).toBe(1);
    expect(r.series.get('train/loss').length).toBe(100);
  });

  it('non-ASCII tags round-trip', () => {
    const r = read([encodeScalarEvent(WALL, 1, [{ tag: 'récompense/μ', value: 1 }])]);
    expect(r.series.tags()).toEqual(['récompense/μ']);
  });
});

describe('histograms', () => {
  it('classic HistogramProto → count/min/max/mean', () => {
    const h = { min: -1, max: 3, num: 4, sum: 2, sumSquares: 11, bucketLimit: [0, 1, 3], bucket: [1, 2, 1] };
    const r = read([
      encodeHistogramEvent(WALL, 5, 'w', h),
      encodeScalarEvent(WALL, 5, [{ tag: 'loss', value: 1 }]),
    ]);
    expect(r.series.tags()).toEqual(['loss']);
    expect(r.histograms.tags()).toEqual(['w/count', 'w/max', 'w/mean', 'w/min']);
    expect(points(r, 'w/count', 'histograms')).toEqual([[5, WALL, 4]]);
    expect(points(r, 'w/min', 'histograms')[0]![2]).toBe(-1);
    expect(points(r, 'w/max', 'histograms')[0]![2]).toBe(3);
    expect(points(r, 'w/mean', 'histograms')[0]![2]).toBe(0.5);
  });

  it('an empty classic histogram has count 0 and NaN min/max/mean', () => {
    const h = { min: 0, max: 0, num: 0, sum: 0, sumSquares: 0, bucketLimit: [], bucket: [] };
    const r = read([encodeHistogramEvent(WALL, 1, 'e', h)]);
    expect(r.histograms.get('e/count').value(0)).toBe(0);
    expect(r.histograms.get('e/mean').value(0)).toBeNaN();
  });

  it.each([true, false])(
    'tensor-encoded [k,3] histogram (tensor_content=%s), plugin only on the first value',
    (content) => {
      const buckets: [number, number, number][] = [
        [-1, 0, 0],
        [0, 1, 2],
        [1, 3, 2],
        [3, 4, 0],
      ];
      const r = read([
        encodeTensorHistogramEvent(WALL, 1, 'act', buckets, { content }),
        encodeTensorHistogramEvent(WALL, 2, 'act', [[2, 2, 5]], { content, withPluginName: false }),
        encodeTensorHistogramEvent(WALL, 3, 'act', [], { content, withPluginName: false }),
      ]);
      expect(r.errors).toEqual([]);
      expect(r.series.size).toBe(0);
      const col = (stat: string) => points(r, `act/${stat}`, 'histograms').map((p) => p[2]);
      expect(col('count')).toEqual([4, 5, 0]);
      expect(col('min')).toEqual([0, 2, NaN]);
      expect(col('max')).toEqual([3, 2, NaN]);
      expect(col('mean')).toEqual([(2 * 0.5 + 2 * 2) / 4, 2, NaN]);
    },
  );
});

describe('records that do not decode', () => {
  const good = encodeScalarEvent(WALL, 1, [{ tag: 'a', value: 1 }]);
  // A summary whose length runs past the event: valid framing and CRC, invalid protobuf.
  const malformed = new Uint8Array([0x2a, 0x7f, 0x0a, 0x00]);

  it('a malformed event with a valid CRC is a `decode` error; the record is skipped, reading continues', () => {
    const r = read([good, malformed, good]);
    expect(r.records).toBe(2);
    expect(r.errors).toEqual([
      { kind: 'decode', offset: frameRecord(good).length, message: expect.any(String) },
    ]);
    expect(r.series.get('a').length).toBe(2);
  });

  it('a half-decoded event stores nothing (values are staged until the record is whole)', () => {
    const half = new ProtoWriter()
      .message(5, (s) => s.message(1, (v) => v.string(1, 'a').float(2, 99)))
      .finish();
    const broken = new Uint8Array([...half, 0x12, 0x05]);
    const r = read([broken, good]);
    expect(points(r, 'a').map((p) => p[2])).toEqual([1]);
  });

  it('corruption that breaks decoding is told apart by the data CRC, even with checking off', () => {
    const framed = frameRecord(good);
    // Corrupt the summary length inside the payload, keep the stored CRC.
    const corrupt = framed.slice();
    const at = 12 + good.indexOf(0x2a) + 1;
    corrupt[at] = 0x7f;
    const s = new EventStream();
    s.push(corrupt);
    s.push(framed);
    const r = s.result(true);
    expect(r.errors).toEqual([{ kind: 'bad-data-crc', offset: 0, message: expect.any(String) }]);
    expect(r.records).toBe(1);
  });

  it('corruption that still decodes is only caught with data CRC checking on', () => {
    const framed = frameRecord(encodeScalarEvent(WALL, 1, [{ tag: 'a', value: 1 }]));
    const corrupt = framed.slice();
    corrupt[corrupt.length - 5]! ^= 0x01; // last byte of the float value
    const off = new EventStream();
    off.push(corrupt);
    expect(off.result(true).errors).toEqual([]);
    expect(off.scalars.get('a').value(0)).not.toBe(1);
    const on = new EventStream({ checkDataCrc: true });
    on.push(corrupt);
    expect(on.result(true).errors.map((e) => e.kind)).toEqual(['bad-data-crc']);
    expect(on.scalars.size).toBe(0);
  });
});
