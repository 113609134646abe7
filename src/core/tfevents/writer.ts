// TensorBoard event-file writer: encodes Event protos and frames them as TFRecords (demo, tests, bench).

import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { maskedCrc32c } from './crc32c';
import { ProtoWriter } from './protobuf-writer';

/** How a scalar is encoded: `simple` = Summary.Value.simple_value (PyTorch, tensorboardX); `tensor` =
 * a scalar TensorProto with plugin `scalars` (TF2 tf.summary, Keras). */
export type ScalarEncoding = 'simple' | 'tensor-float' | 'tensor-double';

/** DataType enum values from tensorflow/core/framework/types.proto. */
export const DT_FLOAT = 1;
export const DT_DOUBLE = 2;
export const DT_INT32 = 3;
export const DT_INT64 = 9;
export const DT_HALF = 19;

export interface ScalarPoint {
  tag: string;
  value: number;
}

export interface HistogramData {
  min: number;
  max: number;
  num: number;
  sum: number;
  sumSquares: number;
  bucketLimit: number[];
  bucket: number[];
}

/** Frames one payload as a TFRecord: u64 length, masked CRC of the length, payload, masked CRC of payload. */
export function frameRecord(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length + 4);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(payload.length), true);
  dv.setUint32(8, maskedCrc32c(out, 0, 8), true);
  out.set(payload, 12);
  dv.setUint32(12 + payload.length, maskedCrc32c(payload), true);
  return out;
}

export function encodeFileVersionEvent(wallTime: number, version = 'brain.Event:2'): Uint8Array {
  return new ProtoWriter().double(1, wallTime).string(3, version).finish();
}

/** One Event with several scalar values at one step. `withPluginName` mirrors TF, which writes the
 * plugin metadata only on a tag's first value in a file. */
export function encodeScalarEvent(
  wallTime: number,
  step: number,
  points: readonly ScalarPoint[],
  encoding: ScalarEncoding = 'simple',
  withPluginName: (tag: string) => boolean = () => true,
): Uint8Array {
  return new ProtoWriter()
    .double(1, wallTime)
    .int(2, step)
    .message(5, (summary) => {
      for (const p of points) {
        summary.message(1, (v) => {
          v.string(1, p.tag);
          if (encoding === 'simple') {
            v.float(2, p.value);
            return;
          }
          if (withPluginName(p.tag)) {
            v.message(9, (meta) => meta.message(1, (pd) => pd.string(1, 'scalars')).int(4, 1));
          }
          v.message(8, (t) => {
            t.int(1, encoding === 'tensor-float' ? DT_FLOAT : DT_DOUBLE).message(2, () => {});
            if (encoding === 'tensor-float') t.packedFloats(5, [p.value]);
            else t.packedDoubles(6, [p.value]);
          });
        });
      }
    })
    .finish();
}

export function encodeHistogramEvent(
  wallTime: number,
  step: number,
  tag: string,
  h: HistogramData,
): Uint8Array {
  return new ProtoWriter()
    .double(1, wallTime)
    .int(2, step)
    .message(5, (summary) =>
      summary.message(1, (v) =>
        v
          .string(1, tag)
          .message(5, (histo) =>
            histo
              .double(1, h.min)
              .double(2, h.max)
              .double(3, h.num)
              .double(4, h.sum)
              .double(5, h.sumSquares)
              .packedDoubles(6, h.bucketLimit)
              .packedDoubles(7, h.bucket),
          ),
      ),
    )
    .finish();
}

/** A `text` plugin value as tensorboardX, PyTorch and tf.summary.text write it. */
export interface TextValue {
  /** The tag as stored (`add_text("x", …)` stores `x/text_summary`). */
  tag: string;
  /** The string tensor's cells, raw bytes allowed (to write invalid UTF-8). */
  cells: readonly (string | Uint8Array)[];
  /** The tensor's shape: [] a scalar string, [n] a list, [rows, columns] a table; absent: [cells.length]. */
  shape?: readonly number[];
  /** Write the SummaryMetadata naming the plugin (TF writes it on a tag's first value only). */
  withPluginName?: boolean;
}

/** An Event with one summary value per text: a DT_STRING tensor and (by default) the `text` plugin's metadata. */
export function encodeTextEvent(wallTime: number, step: number, texts: readonly TextValue[]): Uint8Array {
  const enc = new TextEncoder();
  return new ProtoWriter()
    .double(1, wallTime)
    .int(2, step)
    .message(5, (summary) => {
      for (const t of texts) {
        summary.message(1, (v) => {
          v.string(1, t.tag);
          if (t.withPluginName !== false)
            v.message(9, (meta) => meta.message(1, (plugin) => plugin.string(1, 'text')));
          v.message(8, (tensor) => {
            tensor.int(1, 7);
            tensor.message(2, (shape) => {
              for (const d of t.shape ?? [t.cells.length]) shape.message(2, (dim) => dim.int(1, d));
            });
            for (const c of t.cells) tensor.bytes(8, typeof c === 'string' ? enc.encode(c) : c);
          });
        });
      }
    })
    .finish();
}

let fileCounter = 0;

/** The file name TensorBoard writers use: events.out.tfevents.<secs>.<host>.<pid>.<n>. */
export function eventFileName(wallTimeSeconds = Date.now() / 1000): string {
  return `events.out.tfevents.${Math.floor(wallTimeSeconds)}.${hostname()}.${process.pid}.${fileCounter++}`;
}

/** Appends framed events to one file. Each `flush` makes the bytes visible to readers. */
export class EventFileWriter {
  readonly path: string;
  private fd: number;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private taggedOnce = new Set<string>();

  constructor(dir: string, opts: { fileName?: string; wallTime?: number } = {}) {
    this.path = join(dir, opts.fileName ?? eventFileName(opts.wallTime));
    this.fd = openSync(this.path, 'a');
    this.append(encodeFileVersionEvent(opts.wallTime ?? Date.now() / 1000));
  }

  append(eventPayload: Uint8Array): void {
    const rec = frameRecord(eventPayload);
    this.pending.push(rec);
    this.pendingBytes += rec.length;
    if (this.pendingBytes > 1 << 20) this.flush();
  }

  scalars(
    step: number,
    points: readonly ScalarPoint[],
    encoding: ScalarEncoding = 'simple',
    wallTime = Date.now() / 1000,
  ): void {
    this.append(
      encodeScalarEvent(wallTime, step, points, encoding, (tag) => {
        if (this.taggedOnce.has(tag)) return false;
        this.taggedOnce.add(tag);
        return true;
      }),
    );
  }

  histogram(step: number, tag: string, h: HistogramData, wallTime = Date.now() / 1000): void {
    this.append(encodeHistogramEvent(wallTime, step, tag, h));
  }

  texts(step: number, texts: readonly TextValue[], wallTime = Date.now() / 1000): void {
    this.append(encodeTextEvent(wallTime, step, texts));
  }

  flush(sync = false): void {
    if (this.pending.length === 0) return;
    const all = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    let off = 0;
    while (off < all.length) off += writeSync(this.fd, all, off, all.length - off);
    if (sync) fsyncSync(this.fd);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

export const DT_BFLOAT16 = 14;

/** A scalar tensor in any numeric dtype, in the typed value list or as raw `tensor_content` bytes
 * (both occur in real files; tests use this to cover every decoder path). */
export interface TensorScalarOptions {
  dtype:
    | typeof DT_FLOAT
    | typeof DT_DOUBLE
    | typeof DT_INT32
    | typeof DT_INT64
    | typeof DT_HALF
    | typeof DT_BFLOAT16;
  content?: boolean;
  withPluginName?: boolean;
}

function float16Bits(value: number): number {
  // Round-to-nearest-even float16, good enough for test values (normals, zero, inf, nan).
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -24) return sign;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);
  let exp = Math.floor(Math.log2(a));
  let frac = Math.round((a / 2 ** exp - 1) * 1024);
  if (frac === 1024) {
    frac = 0;
    exp++;
  }
  return sign | ((exp + 15) << 10) | frac;
}

function bfloat16Bits(value: number): number {
  const f = new Float32Array([value]);
  return new Uint32Array(f.buffer)[0]! >>> 16;
}

export function encodeTensorScalarEvent(
  wallTime: number,
  step: number,
  tag: string,
  value: number,
  opts: TensorScalarOptions,
): Uint8Array {
  return new ProtoWriter()
    .double(1, wallTime)
    .int(2, step)
    .message(5, (summary) =>
      summary.message(1, (v) => {
        v.string(1, tag);
        if (opts.withPluginName ?? true)
          v.message(9, (meta) => meta.message(1, (pd) => pd.string(1, 'scalars')));
        v.message(8, (t) => {
          t.int(1, opts.dtype).message(2, () => {});
          tensorValues(t, opts.dtype, [value], opts.content ?? false);
        });
      }),
    )
    .finish();
}

/** A TF2-style histogram: a [k, 3] double tensor of (left, right, count) with plugin `histograms`. */
export function encodeTensorHistogramEvent(
  wallTime: number,
  step: number,
  tag: string,
  buckets: readonly (readonly [number, number, number])[],
  opts: { content?: boolean; withPluginName?: boolean } = {},
): Uint8Array {
  return new ProtoWriter()
    .double(1, wallTime)
    .int(2, step)
    .message(5, (summary) =>
      summary.message(1, (v) => {
        v.string(1, tag);
        if (opts.withPluginName ?? true)
          v.message(9, (meta) => meta.message(1, (pd) => pd.string(1, 'histograms')));
        v.message(8, (t) => {
          t.int(1, DT_DOUBLE).message(2, (shape) => {
            shape.message(2, (d) => d.int(1, buckets.length));
            shape.message(2, (d) => d.int(1, 3));
          });
          tensorValues(t, DT_DOUBLE, buckets.flat(), opts.content ?? true);
        });
      }),
    )
    .finish();
}

function tensorValues(t: ProtoWriter, dtype: number, values: readonly number[], content: boolean): void {
  if (content) {
    const size =
      dtype === DT_DOUBLE || dtype === DT_INT64 ? 8 : dtype === DT_HALF || dtype === DT_BFLOAT16 ? 2 : 4;
    const b = new Uint8Array(values.length * size);
    const dv = new DataView(b.buffer);
    values.forEach((x, i) => {
      const p = i * size;
      if (dtype === DT_FLOAT) dv.setFloat32(p, x, true);
      else if (dtype === DT_DOUBLE) dv.setFloat64(p, x, true);
      else if (dtype === DT_INT32) dv.setInt32(p, x, true);
      else if (dtype === DT_INT64) dv.setBigInt64(p, BigInt(x), true);
      else if (dtype === DT_HALF) dv.setUint16(p, float16Bits(x), true);
      else dv.setUint16(p, bfloat16Bits(x), true);
    });
    t.bytes(4, b);
    return;
  }
  if (dtype === DT_FLOAT) t.packedFloats(5, values);
  else if (dtype === DT_DOUBLE) t.packedDoubles(6, values);
  else {
    const field = dtype === DT_INT32 ? 7 : dtype === DT_INT64 ? 10 : 13;
    const packed = new ProtoWriter();
    for (const x of values)
      packed.varint(dtype === DT_HALF ? float16Bits(x) : dtype === DT_BFLOAT16 ? bfloat16Bits(x) : x);
    t.bytes(field, packed.finish());
  }
}
