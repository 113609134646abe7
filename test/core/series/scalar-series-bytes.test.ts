// A scalar series' byte count (what the memory cap sums, every series every second while watching) is its columns'
// bytes after any change, and reading it costs no look at the columns.

import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ScalarSeries } from '../../../src/core/series/scalar-series';

const columnsBytes = (s: ScalarSeries): number => {
  const c = s.columns();
  return c.steps.byteLength + c.wall.byteLength + c.values.byteLength;
};

type Op =
  | { op: 'append'; step: number; value: number }
  | { op: 'reserve'; n: number }
  | { op: 'truncate'; n: number }
  | { op: 'keepEven' }
  | { op: 'compact' }
  | { op: 'batch'; id: number }
  | { op: 'undo'; id: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('append' as const),
    // Fractional and huge steps upgrade the steps column; non-float32 values the values column.
    step: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constant(0.5), fc.constant(2 ** 40)),
    value: fc.oneof(fc.constant(1), fc.constant(0.1), fc.constant(Number.NaN)),
  }),
  fc.record({ op: fc.constant('reserve' as const), n: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ op: fc.constant('truncate' as const), n: fc.integer({ min: 0, max: 50 }) }),
  fc.constant({ op: 'keepEven' as const }),
  fc.constant({ op: 'compact' as const }),
  fc.record({ op: fc.constant('batch' as const), id: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant('undo' as const), id: fc.integer({ min: 1, max: 3 }) }),
);

test('byteSize is the columns’ bytes after any appends, upgrades, reserves, truncations, thinning, undos and compaction', () => {
  fc.assert(
    fc.property(
      fc.constantFrom<'f32' | 'f64'>('f32', 'f64'),
      fc.array(op, { maxLength: 120 }),
      (precision, ops) => {
        const s = new ScalarSeries(16, precision);
        expect(s.byteSize).toBe(columnsBytes(s));
        for (const o of ops) {
          if (o.op === 'append')
            for (let i = 0; i < 20; i++) s.append(o.step + i, 1_700_000_000 + i, o.value);
          else if (o.op === 'reserve') s.reserve(s.length + o.n);
          else if (o.op === 'truncate') s.truncate(o.n);
          else if (o.op === 'keepEven') {
            const keep = Array.from({ length: Math.ceil(s.length / 2) }, (_, k) => 2 * k);
            s.keepOnly(keep, keep.length);
          } else if (o.op === 'compact') s.compact();
          else if (o.op === 'batch') s.beginBatch(o.id);
          else s.undoBatch(o.id);
          expect(s.byteSize).toBe(columnsBytes(s));
        }
        const moved = ScalarSeries.fromColumns(s.columns());
        expect(moved.byteSize).toBe(columnsBytes(s));
      },
    ),
    { numRuns: 300 },
  );
});

test('reading byteSize looks at no column (#36: the memory guard sums 2,500 series a second)', () => {
  const s = new ScalarSeries(16);
  for (let i = 0; i < 1000; i++) s.append(i, i, i);
  const typedArrayProto = Object.getPrototypeOf(Int32Array.prototype) as object;
  const real = Object.getOwnPropertyDescriptor(typedArrayProto, 'byteLength')!;
  let reads = 0;
  Object.defineProperty(typedArrayProto, 'byteLength', {
    ...real,
    get(this: ArrayBufferView) {
      reads++;
      return real.get!.call(this) as number;
    },
  });
  try {
    for (let i = 0; i < 10; i++) expect(s.byteSize).toBe(1024 * 16);
  } finally {
    Object.defineProperty(typedArrayProto, 'byteLength', real);
  }
  expect(reads).toBe(0);
});
