// A tiny protobuf encoder: just the wire types the event and W&B writers of this project need.

export class ProtoWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  varint(value: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(value));
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }

  tag(field: number, wireType: 0 | 1 | 2 | 5): this {
    return this.varint(field * 8 + wireType);
  }

  double(field: number, value: number): this {
    this.tag(field, 1).ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5).ensure(4);
    this.view.setFloat32(this.pos, value, true);
    this.pos += 4;
    return this;
  }

  int(field: number, value: number | bigint): this {
    return this.tag(field, 0).varint(value);
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2).varint(value.length).ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter(64);
    build(inner);
    return this.bytes(field, inner.finish());
  }

  packedDoubles(field: number, values: ArrayLike<number>): this {
    const b = new Uint8Array(values.length * 8);
    const dv = new DataView(b.buffer);
    for (let i = 0; i < values.length; i++) dv.setFloat64(i * 8, values[i]!, true);
    return this.bytes(field, b);
  }

  packedFloats(field: number, values: ArrayLike<number>): this {
    const b = new Uint8Array(values.length * 4);
    const dv = new DataView(b.buffer);
    for (let i = 0; i < values.length; i++) dv.setFloat32(i * 4, values[i]!, true);
    return this.bytes(field, b);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
