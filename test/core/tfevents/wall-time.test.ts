// Wall times are kept exactly: every corpus event file against an independent decoder of the records' double wall_time.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longCsvOf } from '../../../src/core/export/tables';
import { readEventFile } from '../../../src/core/tfevents';
import { corpusFiles, FIXTURES } from './helpers';

/** (step, wall_time) of each scalar-like summary value, per tag, in file order: a decoder written from
 * event.proto / summary.proto for this test alone (TFRecord framing, protobuf wire format), sharing no
 * code with the reader. Histograms, images and audio are left out (the reader keeps them elsewhere). */
function decodeWallTimes(bytes: Uint8Array): Map<string, { step: number; wall: number }[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Map<string, { step: number; wall: number }[]>();
  const varint = (p: { i: number }): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[p.i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
    }
  };
  /** Visits the fields of a message in [start, end): field number, wire type, payload bounds / value. */
  const fields = (
    start: number,
    end: number,
    f: (field: number, wire: number, at: number, len: number, v: bigint) => void,
  ): void => {
    const p = { i: start };
    while (p.i < end) {
      const key = Number(varint(p));
      const field = key >>> 3;
      const wire = key & 7;
      if (wire === 0) f(field, wire, p.i, 0, varint(p));
      else if (wire === 1) {
        f(field, wire, p.i, 8, 0n);
        p.i += 8;
      } else if (wire === 2) {
        const len = Number(varint(p));
        f(field, wire, p.i, len, 0n);
        p.i += len;
      } else if (wire === 5) {
        f(field, wire, p.i, 4, 0n);
        p.i += 4;
      } else throw new Error(`wire type ${wire}`);
    }
  };
  let off = 0;
  while (off + 12 <= bytes.length) {
    const len = Number(view.getBigUint64(off, true));
    const data = off + 12;
    off = data + len + 4;
    let wall = Number.NaN;
    let step = 0;
    const values: { tag: string; scalar: boolean }[] = [];
    fields(data, data + len, (field, _w, at, n, v) => {
      if (field === 1) wall = view.getFloat64(at, true);
      else if (field === 2) step = Number(BigInt.asIntN(64, v));
      else if (field === 5)
        fields(at, at + n, (vf, _w2, vat, vlen) => {
          if (vf !== 1) return;
          let tag = '';
          let scalar = false;
          let other = false;
          fields(vat, vat + vlen, (ff, _w3, fat, flen) => {
            if (ff === 1) tag = new TextDecoder().decode(bytes.subarray(fat, fat + flen));
            else if (ff === 2 || ff === 8) scalar = true;
            else if (ff === 4 || ff === 5 || ff === 6) other = true;
          });
          values.push({ tag, scalar: scalar && !other });
        });
    });
    for (const v of values) {
      if (!v.scalar) continue;
      let list = out.get(v.tag);
      if (!list) out.set(v.tag, (list = []));
      list.push({ step, wall });
    }
  }
  return out;
}

describe('wall times are exact', () => {
  it.each(corpusFiles())('%s: every point has the double the file holds', (rel) => {
    const r = readEventFile(join(FIXTURES, rel));
    const decoded = decodeWallTimes(new Uint8Array(readFileSync(join(FIXTURES, rel))));
    let compared = 0;
    for (const tag of r.series.tags()) {
      const s = r.series.get(tag);
      const want = decoded.get(tag) ?? [];
      expect(want.length, tag).toBe(s.length);
      for (let i = 0; i < s.length; i++) {
        expect(s.step(i)).toBe(want[i]!.step);
        // Exact: the double as written, not a float32 offset from the first point.
        if (s.wallTime(i) !== want[i]!.wall)
          expect(`${tag}[${i}] ${s.wallTime(i)}`).toBe(`${tag}[${i}] ${want[i]!.wall}`);
        compared++;
      }
    }
    expect(compared).toBe(r.series.pointCount());
  });

  it('metrics_long.csv writes them exactly', () => {
    const rel = 'kubeflow__katib/events.out.tfevents.1637681485.2d662933d616.19.0.v2';
    const r = readEventFile(join(FIXTURES, rel));
    const decoded = decodeWallTimes(new Uint8Array(readFileSync(join(FIXTURES, rel))));
    const rows = [...longCsvOf('run', new Map(r.series.tags().map((t) => [t, [r.series.get(t)]])), () => [])]
      .join('')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const seen = new Map<string, number>();
    for (const [, tag, step, wall] of rows) {
      const i = seen.get(tag!) ?? 0;
      seen.set(tag!, i + 1);
      expect([Number(step), Number(wall)]).toEqual([
        decoded.get(tag!)![i]!.step,
        decoded.get(tag!)![i]!.wall,
      ]);
    }
    expect(rows.length).toBe(r.series.pointCount());
  });
});
