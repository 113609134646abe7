// Test helper: writes .wandb files the way wandb's datastore does (header, blocks, CRC'd chunks).

import { crc32 } from 'node:zlib';
import { ProtoWriter } from '../../../src/core/tfevents/protobuf-writer';

const BLOCK = 32768;

export function frameLog(records: Uint8Array[]): Uint8Array {
  const out: number[] = [0x3a, 0x57, 0x26, 0x42, 0xe1, 0xbe, 0];
  const chunk = (type: number, data: Uint8Array) => {
    const crc = crc32(data, crc32(Uint8Array.of(type)));
    out.push(
      crc & 255,
      (crc >>> 8) & 255,
      (crc >>> 16) & 255,
      crc >>> 24,
      data.length & 255,
      data.length >> 8,
      type,
    );
    for (const b of data) out.push(b);
  };
  for (const rec of records) {
    let left = BLOCK - (out.length % BLOCK);
    if (left < 7) {
      for (let i = 0; i < left; i++) out.push(0);
      left = BLOCK;
    }
    if (rec.length + 7 <= left) {
      chunk(1, rec);
      continue;
    }
    let used = left - 7;
    chunk(2, rec.subarray(0, used));
    while (rec.length - used > BLOCK - 7) {
      chunk(3, rec.subarray(used, used + BLOCK - 7));
      used += BLOCK - 7;
    }
    chunk(4, rec.subarray(used));
  }
  return Uint8Array.from(out);
}

type Kv = [string, string];

const items = (w: ProtoWriter, field: number, kvs: Kv[], nested = false) => {
  for (const [k, v] of kvs) {
    w.message(field, (i) => {
      if (nested) for (const part of k.split('/')) i.string(2, part);
      else i.string(1, k);
      i.string(16, v);
    });
  }
};

export const rec = {
  run: (id: string, start: number) =>
    new ProtoWriter()
      .message(17, (r) =>
        r
          .string(1, id)
          .string(3, 'proj')
          .message(4, (c) => items(c, 1, [['lr', '0.001']]))
          .message(17, (t) => t.int(1, start)),
      )
      .finish(),
  history: (kvs: Kv[], nested = false) =>
    new ProtoWriter().message(2, (h) => items(h, 1, kvs, nested)).finish(),
  stats: (ts: number, kvs: Kv[]) =>
    new ProtoWriter()
      .message(7, (s) => {
        s.message(2, (t) => t.int(1, ts));
        items(s, 3, kvs);
      })
      .finish(),
  summary: (kvs: Kv[]) => new ProtoWriter().message(3, (s) => items(s, 1, kvs)).finish(),
  exit: (code: number) => new ProtoWriter().message(18, (e) => e.int(1, code).int(2, 42)).finish(),
  output: (line: string) => new ProtoWriter().message(13, (o) => o.string(3, line)).finish(),
};
