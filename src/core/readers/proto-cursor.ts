// Bounds-checked protobuf wire-format cursor, the one protobuf reader (event files, W&B records); no library, no allocation on the hot path.

/** Thrown for malformed protobuf; callers turn it into a typed `decode` error. */
export class ProtoError extends Error {
  override name = 'ProtoError';
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

// Floats are read through one DataView per underlying ArrayBuffer (cached: the file reader reuses one
// read buffer), which TurboFan inlines; no alignment requirement, explicit little-endian.
const EMPTY = new Uint8Array(0);
const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

function eof(): ProtoError {
  return new ProtoError('unexpected end of message');
}

/** Reads bytes [pos, end) of `buf`. Nested messages narrow `end` and restore it afterwards. */
export class ProtoCursor {
  buf: Uint8Array = EMPTY;
  pos = 0;
  end = 0;
  /** A DataView of buf's whole ArrayBuffer, and buf's offset in it. */
  view: DataView = EMPTY_VIEW;
  base = 0;

  reset(buf: Uint8Array, start: number, end: number): void {
    // Most records of a chunk share its array: skip the `.buffer` getter (costly per record) for them.
    if (buf !== this.buf) {
      if (buf.buffer !== this.view.buffer) this.view = new DataView(buf.buffer);
      this.base = buf.byteOffset;
      this.buf = buf;
    }
    this.pos = start;
    this.end = end;
  }

  /** A varint as a signed int64, exact up to 2^53 in magnitude (steps, enums, lengths, tags). */
  varint(): number {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    if (p >= end) throw eof();
    let b = buf[p++]!;
    if (b < 0x80) {
      this.pos = p;
      return b;
    }
    let lo = b & 0x7f;
    for (let shift = 7; shift < 28; shift += 7) {
      if (p >= end) throw eof();
      b = buf[p++]!;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = p;
        return lo;
      }
    }
    if (p >= end) throw eof();
    b = buf[p++]!;
    lo = (lo | ((b & 0x7f) << 28)) >>> 0;
    let hi = (b & 0x7f) >>> 4;
    if (b < 0x80) {
      this.pos = p;
      return hi * TWO_32 + lo;
    }
    for (let shift = 3; shift < 32; shift += 7) {
      if (p >= end) throw eof();
      b = buf[p++]!;
      hi = (hi | ((b & 0x7f) << shift)) >>> 0;
      if (b < 0x80) {
        this.pos = p;
        return (hi | 0) * TWO_32 + lo;
      }
    }
    throw new ProtoError('varint longer than 10 bytes');
  }

  /** A field key; field number 0 and the deprecated group wire types are rejected. */
  key(): number {
    const buf = this.buf;
    const p = this.pos;
    // One-byte keys (fields 1–15) are the common case.
    if (p < this.end) {
      const b = buf[p]!;
      if (b < 0x80 && b >= 8) {
        this.pos = p + 1;
        return b;
      }
    }
    const k = this.varint();
    if (k < 8 || k >= TWO_32) throw new ProtoError(`invalid field key ${k}`);
    return k;
  }

  /** The length of a length-delimited field, checked against the bytes left. */
  length(): number {
    const n = this.varint();
    if (n < 0 || n > this.end - this.pos)
      throw new ProtoError(`length ${n} exceeds ${this.end - this.pos} bytes left`);
    return n;
  }

  float(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw eof();
    this.pos = p + 4;
    return this.view.getFloat32(this.base + p, true);
  }

  double(): number {
    const p = this.pos;
    if (p + 8 > this.end) throw eof();
    this.pos = p + 8;
    return this.view.getFloat64(this.base + p, true);
  }

  /** Little-endian unsigned 32-bit integer (fixed32). */
  fixed32(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw eof();
    const b = this.buf;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  /** Skips the value of a field whose key was just read. */
  skip(key: number): void {
    switch (key & 7) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        if (this.pos + 8 > this.end) throw eof();
        this.pos += 8;
        return;
      case WIRE_LEN: {
        // Read the length first: `this.pos += this.length()` would add to the position before the varint.
        const n = this.length();
        this.pos += n;
        return;
      }
      case WIRE_FIXED32:
        if (this.pos + 4 > this.end) throw eof();
        this.pos += 4;
        return;
      default:
        throw new ProtoError(`unsupported wire type ${key & 7}`);
    }
  }
}
