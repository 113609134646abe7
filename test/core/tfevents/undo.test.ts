// Values are appended while an event decodes; a malformed event must leave no trace of its values.

import { describe, expect, test } from 'vitest';
import { EventStream } from '../../../src/core/tfevents/event-stream';
import { ProtoWriter } from '../../../src/core/tfevents/protobuf-writer';
import { encodeScalarEvent, frameRecord } from '../../../src/core/tfevents/writer';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** An event whose step/wall/summary decode fine and then hits an invalid wire type (7). */
function malformedAfterSummary(step: number, tags: [string, number][], double = false): Uint8Array {
  const good = new ProtoWriter()
    .double(1, 1000 + step)
    .int(2, step)
    .message(5, (s) => {
      for (const [tag, value] of tags) {
        s.message(1, (v) => {
          v.string(1, tag);
          if (!double) v.float(2, value);
          else
            v.message(9, (m) => m.message(1, (pd) => pd.string(1, 'scalars'))).message(8, (t) =>
              t
                .int(1, 2)
                .message(2, () => {})
                .packedDoubles(6, [value]),
            );
        });
      }
    })
    .finish();
  return concat([good, new Uint8Array([0x7f, 0x01])]);
}

function read(records: Uint8Array[]): EventStream {
  const stream = new EventStream();
  stream.push(concat(records.map(frameRecord)));
  return stream;
}

describe('direct append with undo', () => {
  test('a malformed event adds no points, and a series it alone created disappears', () => {
    const stream = read([
      encodeScalarEvent(1000, 0, [{ tag: 'a', value: 1 }]),
      malformedAfterSummary(1, [
        ['a', 2],
        ['only_in_bad_event', 3],
      ]),
      encodeScalarEvent(1002, 2, [{ tag: 'a', value: 4 }]),
    ]);
    const r = stream.result(true);
    expect(r.series.has('only_in_bad_event')).toBe(false);
    expect([...r.series.get('a').steps()]).toEqual([0, 2]);
    expect([...r.series.get('a').values()]).toEqual([1, 4]);
    expect(r.errors.map((e) => e.kind)).toEqual(['decode']);
  });

  test('a float64 upgrade caused by a malformed event is undone', () => {
    const stream = read([
      encodeScalarEvent(1000, 0, [{ tag: 'a', value: 1 }]),
      malformedAfterSummary(1, [['a', 0.1]], true),
    ]);
    const a = stream.result(true).series.get('a');
    expect(a.length).toBe(1);
    expect(a.isDouble).toBe(false);
  });

  test('step and wall time written after the summary still label the values', () => {
    const payload = new ProtoWriter()
      .message(5, (s) => s.message(1, (v) => v.string(1, 'late').float(2, 0.5)))
      .int(2, 7)
      .double(1, 1234.5)
      .finish();
    const r = read([payload]).result(true);
    const late = r.series.get('late');
    expect([late.step(0), late.wallTime(0), late.value(0)]).toEqual([7, 1234.5, 0.5]);
    expect(r.errors).toEqual([]);
  });
});
