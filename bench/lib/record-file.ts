// A file written through one large buffer as TFRecord frames (length, its masked CRC, payload, its masked CRC): the benches' fast event writers.

import { closeSync, openSync, writeSync } from 'node:fs';
import { maskedCrc32c } from '../../src/core/tfevents/crc32c';

export class RecordFile {
  private readonly fd: number;
  private buf: Buffer;
  private pos = 0;
  /** Bytes framed so far (written or still in the buffer). */
  bytes = 0;

  constructor(
    readonly path: string,
    bufferBytes: number,
  ) {
    this.fd = openSync(path, 'w');
    this.buf = Buffer.allocUnsafe(bufferBytes);
  }

  /** Frames a `len`-byte payload that `fill` writes into `b` from offset `at`; returns the record's size. */
  record(len: number, fill: (b: Buffer, at: number) => void): number {
    if (this.pos + len + 16 > this.buf.length) this.flush();
    if (len + 16 > this.buf.length) this.buf = Buffer.allocUnsafe(len + 16);
    const b = this.buf;
    const p = this.pos;
    b.writeUInt32LE(len, p);
    b.writeUInt32LE(0, p + 4);
    b.writeUInt32LE(maskedCrc32c(b, p, p + 8), p + 8);
    fill(b, p + 12);
    b.writeUInt32LE(maskedCrc32c(b, p + 12, p + 12 + len), p + 12 + len);
    this.pos = p + 16 + len;
    this.bytes += 16 + len;
    return 16 + len;
  }

  flush(): void {
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, this.buf, off, this.pos - off);
    this.pos = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
