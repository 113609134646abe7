// Decodes a TensorProto's numeric values (typed *_val fields or tensor_content) into a reusable Float64Array.

import { ProtoError } from '../readers/proto-cursor';
import type { ProtoCursor } from '../readers/proto-cursor';

/** DataType enum values from tensorflow/core/framework/types.proto. */
const DT_FLOAT = 1;
const DT_DOUBLE = 2;
const DT_INT32 = 3;
const DT_UINT8 = 4;
const DT_INT16 = 5;
const DT_INT8 = 6;
const DT_INT64 = 9;
const DT_BOOL = 10;
const DT_BFLOAT16 = 14;
const DT_UINT16 = 17;
const DT_HALF = 19;
const DT_UINT32 = 22;
const DT_UINT64 = 23;

/** TensorProto field numbers of the typed value lists. */
const F_FLOAT = 5;
const F_DOUBLE = 6;
const F_INT = 7;
const F_INT64 = 10;
const F_BOOL = 11;
const F_HALF = 13;
const F_UINT32 = 16;
const F_UINT64 = 17;

/** Bigger broadcasts are refused: a tiny proto must not claim a huge dense tensor. */
const MAX_ELEMENTS = 1 << 20;
const TWO_32 = 4294967296;

/** Which typed list and element width each supported dtype uses; 0 means unsupported. */
function listField(dtype: number): number {
  switch (dtype) {
    case DT_FLOAT:
      return F_FLOAT;
    case DT_DOUBLE:
      return F_DOUBLE;
    case DT_INT32:
    case DT_UINT8:
    case DT_INT16:
    case DT_INT8:
    case DT_UINT16:
      return F_INT;
    case DT_INT64:
      return F_INT64;
    case DT_BOOL:
      return F_BOOL;
    case DT_HALF:
    case DT_BFLOAT16:
      return F_HALF;
    case DT_UINT32:
      return F_UINT32;
    case DT_UINT64:
      return F_UINT64;
    default:
      return 0;
  }
}

function elementSize(dtype: number): number {
  switch (dtype) {
    case DT_DOUBLE:
    case DT_INT64:
    case DT_UINT64:
      return 8;
    case DT_FLOAT:
    case DT_INT32:
    case DT_UINT32:
      return 4;
    case DT_INT16:
    case DT_UINT16:
    case DT_HALF:
    case DT_BFLOAT16:
      return 2;
    case DT_UINT8:
    case DT_INT8:
    case DT_BOOL:
      return 1;
    default:
      return 0;
  }
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

export function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export function bfloat16ToNumber(h: number): number {
  U32[0] = (h & 0xffff) << 16;
  return F32[0]!;
}

/** The decoded values of one tensor; `values` is reused between tensors (read it before the next decode). */
export class TensorValues {
  values = new Float64Array(16);
  count = 0;
  dtype = 0;
  rank = 0;
  /** The last dimension's size (3 for a histogram's [k, 3]); 1 for a scalar. */
  lastDim = 1;

  push(v: number): void {
    if (this.count === this.values.length) {
      const next = new Float64Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.count++] = v;
  }
}

/**
 * Decodes the TensorProto spanning c.pos..c.end into `out`. Malformed protobuf throws ProtoError;
 * a well-formed tensor that is not numeric or whose sizes disagree returns false (the value is skipped).
 */
export function decodeTensor(c: ProtoCursor, out: TensorValues): boolean {
  out.count = 0;
  out.dtype = 0;
  let listFrom = 0;
  let contentStart = -1;
  let contentEnd = -1;
  let shapeStart = -1;
  let shapeEnd = -1;
  const end = c.end;
  while (c.pos < end) {
    const key = c.key();
    // The usual keys first, as constants: dtype, shape, tensor_content, packed float_val / double_val.
    if (key === 8) {
      out.dtype = c.varint();
      continue;
    }
    if (key === 18 || key === 34) {
      const n = c.length();
      if (key === 18) {
        shapeStart = c.pos;
        shapeEnd = c.pos += n;
      } else {
        contentStart = c.pos;
        contentEnd = c.pos += n;
      }
      continue;
    }
    if (key === 42 || key === 50) {
      // Packed float_val / double_val: what TF2 writes for a scalar.
      const field = key === 42 ? F_FLOAT : F_DOUBLE;
      if (field !== listFrom) out.count = 0;
      listFrom = field;
      const n = c.length();
      const stop = c.pos + n;
      if (n % (key === 42 ? 4 : 8) !== 0) throw new ProtoError(`packed list of ${n} bytes`);
      while (c.pos < stop) out.push(key === 42 ? c.float() : c.double());
      continue;
    }
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (isListField(field) && (wire === 2 || wire === listWire(field))) {
      // A list from another field than the previous one starts over; mixed lists do not occur in practice.
      if (field !== listFrom) out.count = 0;
      listFrom = field;
      readList(c, field, wire, out);
    } else {
      c.skip(key);
    }
  }
  out.rank = 0;
  out.lastDim = 1;
  const elements =
    shapeStart < 0 || shapeStart === shapeEnd ? 1 : shapeElements(c, shapeStart, shapeEnd, out);
  c.pos = end;
  if (elements < 0 || elements > MAX_ELEMENTS) return false;
  const dtype = out.dtype;
  if (contentStart >= 0 && contentEnd > contentStart) {
    return decodeContent(c, contentStart, contentEnd, dtype, elements, out);
  }
  if (listFrom !== 0 && listFrom !== listField(dtype)) return false;
  if (listField(dtype) === 0) return false;
  if (out.count > elements) return false;
  // TensorFlow's rule: missing trailing values repeat the last one (zeros when none is given).
  const fill = out.count > 0 ? out.values[out.count - 1]! : 0;
  while (out.count < elements) out.push(fill);
  if (listFrom === F_HALF) {
    const v = out.values;
    for (let i = 0; i < out.count; i++)
      v[i] = dtype === DT_HALF ? halfToNumber(v[i]!) : bfloat16ToNumber(v[i]!);
  }
  return true;
}

function isListField(field: number): boolean {
  return listWire(field) >= 0;
}

/** The unpacked wire type of each typed list, -1 for other fields. */
function listWire(field: number): number {
  switch (field) {
    case F_FLOAT:
      return 5;
    case F_DOUBLE:
      return 1;
    case F_INT:
    case F_INT64:
    case F_BOOL:
    case F_HALF:
    case F_UINT32:
    case F_UINT64:
      return 0;
    default:
      return -1;
  }
}

function readList(c: ProtoCursor, field: number, wire: number, out: TensorValues): void {
  const outer = c.end;
  // A packed list (possibly empty) spans a length; an unpacked field is one value.
  let stop = c.pos;
  if (wire === 2) {
    const n = c.length();
    stop = c.pos + n;
    c.end = stop;
  }
  do {
    if (wire === 2 && c.pos >= stop) break;
    if (field === F_FLOAT) out.push(c.float());
    else if (field === F_DOUBLE) out.push(c.double());
    else {
      let v = c.varint();
      if (field === F_INT) v = v | 0;
      else if (field === F_UINT32) v = v >>> 0;
      else if (field === F_UINT64 && v < 0) v += TWO_32 * TWO_32;
      else if (field === F_HALF) v = v & 0xffff;
      else if (field === F_BOOL) v = v !== 0 ? 1 : 0;
      out.push(v);
    }
  } while (wire === 2);
  c.end = outer;
}

/** Product of the shape's dims (-1 for an unknown rank or negative dim); records rank and last dim. */
function shapeElements(c: ProtoCursor, start: number, end: number, out: TensorValues): number {
  const outer = c.end;
  c.pos = start;
  c.end = end;
  let elements = 1;
  let rank = 0;
  let last = 1;
  while (c.pos < end) {
    const key = c.key();
    if (key === 18) {
      const n = c.length();
      const dimEnd = c.pos + n;
      c.end = dimEnd;
      let size = 0;
      while (c.pos < dimEnd) {
        const k = c.key();
        if (k === 8) size = c.varint();
        else c.skip(k);
      }
      c.end = end;
      rank++;
      last = size;
      elements = size < 0 ? -1 : elements < 0 ? -1 : Math.min(elements * size, MAX_ELEMENTS + 1);
    } else if (key === 24) {
      if (c.varint() !== 0) elements = -1;
    } else {
      c.skip(key);
    }
  }
  c.end = outer;
  out.rank = rank;
  out.lastDim = last;
  return elements;
}

function decodeContent(
  c: ProtoCursor,
  start: number,
  end: number,
  dtype: number,
  elements: number,
  out: TensorValues,
): boolean {
  const size = elementSize(dtype);
  if (size === 0 || (end - start) / size !== elements) return false;
  out.count = 0;
  const b = c.buf;
  const outer = c.end;
  c.pos = start;
  c.end = end;
  for (let p = start; p < end; p += size) {
    let v: number;
    switch (dtype) {
      case DT_FLOAT:
        c.pos = p;
        v = c.float();
        break;
      case DT_DOUBLE:
        c.pos = p;
        v = c.double();
        break;
      case DT_INT32:
        v = b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);
        break;
      case DT_UINT32:
        v = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
        break;
      case DT_INT64:
      case DT_UINT64: {
        const lo = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
        const hi = b[p + 4]! | (b[p + 5]! << 8) | (b[p + 6]! << 16) | (b[p + 7]! << 24);
        v = (dtype === DT_INT64 ? hi : hi >>> 0) * TWO_32 + lo;
        break;
      }
      case DT_INT16:
        v = ((b[p]! | (b[p + 1]! << 8)) << 16) >> 16;
        break;
      case DT_UINT16:
        v = b[p]! | (b[p + 1]! << 8);
        break;
      case DT_HALF:
        v = halfToNumber(b[p]! | (b[p + 1]! << 8));
        break;
      case DT_BFLOAT16:
        v = bfloat16ToNumber(b[p]! | (b[p + 1]! << 8));
        break;
      case DT_INT8:
        v = (b[p]! << 24) >> 24;
        break;
      case DT_BOOL:
        v = b[p] !== 0 ? 1 : 0;
        break;
      default:
        v = b[p]!;
    }
    out.push(v);
  }
  c.pos = end;
  c.end = outer;
  return true;
}
