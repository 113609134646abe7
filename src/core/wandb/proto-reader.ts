// A minimal, bounds-checked protobuf wire reader: just what decoding W&B records needs.

/** Thrown inside decoding only; decodeRecord turns it into a typed error. */
export class ProtoError extends Error {}

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

const utf8 = new TextDecoder('utf-8', { fatal: false });

export class ProtoReader {
  pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** Unsigned varint as a JS number (exact to 2^53; larger values lose precision, never wrap). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtoError('varint runs past the end');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw new ProtoError('varint longer than 10 bytes');
  }

  /** A signed int64/int32 varint: two's complement values above 2^63 are negative. */
  int64(): number {
    const v = this.varint();
    return v >= 2 ** 63 ? v - 2 ** 64 : v;
  }

  /** Field number and wire type of the next field. */
  tag(): { field: number; wire: number } {
    const t = this.varint();
    const field = Math.floor(t / 8);
    if (field === 0) throw new ProtoError('field number 0');
    return { field, wire: t & 7 };
  }

  /** The bounds of a length-delimited field, as a sub-reader (no copy). */
  message(): ProtoReader {
    const [s, e] = this.lenBounds();
    return new ProtoReader(this.buf, s, e);
  }

  bytes(): Uint8Array {
    const [s, e] = this.lenBounds();
    return this.buf.subarray(s, e);
  }

  string(): string {
    return utf8.decode(this.bytes());
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_I64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.lenBounds();
        return;
      case WIRE_I32:
        this.advance(4);
        return;
      default:
        throw new ProtoError(`unsupported wire type ${wire}`);
    }
  }

  private lenBounds(): [number, number] {
    const len = this.varint();
    const s = this.pos;
    if (len > this.end - s) throw new ProtoError('length-delimited field runs past the end');
    this.pos = s + len;
    return [s, s + len];
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw new ProtoError('fixed-width field runs past the end');
    this.pos += n;
  }
}
