// The WebSocket codec round-trips typed arrays and non-finite numbers exactly, and rejects malformed records.

import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { base64ToBytes, bytesToBase64, decodeWire, encodeWire } from '../../src/shared/wire-codec';

describe('wire codec', () => {
  it('base64 matches Node for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = bytesToBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect([...base64ToBytes(text)]).toEqual([...bytes]);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips typed arrays bit for bit, NaN and infinities included', () => {
    const values = new Float64Array([1.5, Number.NaN, Infinity, -Infinity, -0, 1e-310]);
    const f32 = new Float32Array([Math.fround(0.1), Number.NaN]);
    const back = decodeWire(encodeWire({ values, f32, n: Number.NaN, list: [Infinity, 2] })) as {
      values: Float64Array;
      f32: Float32Array;
      n: number;
      list: number[];
    };
    expect(back.values).toBeInstanceOf(Float64Array);
    expect(new Uint8Array(back.values.buffer)).toEqual(new Uint8Array(values.buffer));
    expect(back.f32).toBeInstanceOf(Float32Array);
    expect(back.f32[0]).toBe(Math.fround(0.1));
    expect(back.n).toBeNaN();
    expect(back.list).toEqual([Infinity, 2]);
  });

  it('encodes a subarray view, not its whole buffer', () => {
    const whole = new Float64Array([1, 2, 3, 4]);
    const back = decodeWire(encodeWire(whole.subarray(1, 3))) as Float64Array;
    expect([...back]).toEqual([2, 3]);
  });

  it('leaves look-alike objects alone and rejects corrupt base64', () => {
    expect(decodeWire('{"$n":"hello"}')).toEqual({ $n: 'hello' });
    expect(decodeWire('{"$t":"f64","b64":"AAAA","x":1}')).toEqual({ $t: 'f64', b64: 'AAAA', x: 1 });
    expect(() => decodeWire('{"$t":"f64","b64":"A!AA"}')).toThrow(/base64/);
    expect(() => decodeWire('{"$t":"f64","b64":"AAAA"}')).toThrow(/length/);
  });

  it('decodes small arrays into buffers of their own (not a shared pool), aligned for any typed array', () => {
    const back = decodeWire(encodeWire({ a: new Float64Array([1, 2]), b: new Int32Array([7]) })) as {
      a: Float64Array;
      b: Int32Array;
    };
    expect(back.a.buffer.byteLength).toBe(16);
    expect([...back.a]).toEqual([1, 2]);
    expect([...back.b]).toEqual([7]);
  });

  it('gives the same text and bytes through btoa/atob where there is no Buffer (the browser)', async () => {
    vi.stubGlobal('Buffer', undefined);
    vi.resetModules();
    try {
      const browser = await import('../../src/shared/wire-codec');
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 70_000 }), (bytes) => {
          const text = browser.bytesToBase64(bytes);
          expect(text).toBe(bytesToBase64(bytes));
          expect(browser.base64ToBytes(text)).toEqual(bytes);
        }),
        { numRuns: 200 },
      );
      expect(() => browser.base64ToBytes('A!AA')).toThrow(/base64 character at 1/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("uses Uint8Array's own base64 methods where present (Chromium), with the same text and bytes", async () => {
    const NodeBuffer = Buffer;
    const calls = { to: 0, from: 0 };
    const proto = Uint8Array.prototype as unknown as { toBase64?: () => string };
    const ctor = Uint8Array as unknown as { fromBase64?: (t: string) => Uint8Array };
    proto.toBase64 = function (this: Uint8Array) {
      calls.to++;
      return NodeBuffer.from(this.buffer, this.byteOffset, this.byteLength).toString('base64');
    };
    ctor.fromBase64 = (t: string) => {
      calls.from++;
      return new Uint8Array(NodeBuffer.from(t, 'base64'));
    };
    vi.stubGlobal('Buffer', undefined);
    vi.resetModules();
    try {
      const chromium = await import('../../src/shared/wire-codec');
      const values = new Float64Array([1.5, Number.NaN, -0]);
      const text = chromium.encodeWire({ values });
      expect(text).toBe(encodeWire({ values }));
      const back = chromium.decodeWire(text) as { values: Float64Array };
      expect(new Uint8Array(back.values.buffer)).toEqual(new Uint8Array(values.buffer));
      expect(calls).toEqual({ to: 1, from: 1 });
    } finally {
      vi.unstubAllGlobals();
      delete proto.toBase64;
      delete ctor.fromBase64;
    }
  });
  it('writes a message with no typed array and no non-finite number as plain JSON.stringify does, without a replacer (#36)', () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      fc.assert(
        fc.property(fc.jsonValue(), (v) => {
          stringify.mockClear();
          const text = encodeWire(v);
          expect(stringify.mock.calls.map((c) => c[1])).toEqual([undefined]);
          expect(text).toBe(JSON.stringify(v));
          expect(decodeWire(text)).toEqual(JSON.parse(JSON.stringify(v)));
        }),
        { numRuns: 300 },
      );
      // A run list as runs.changed carries it, a Date (its toJSON) and nulls: the same text either way.
      const runs = {
        type: 'runs.changed',
        runs: [{ name: 'run_000', points: 1000, freshAt: 1.5e12, tags: ['a'] }],
      };
      stringify.mockClear();
      expect(encodeWire(runs)).toBe(JSON.stringify(runs));
      expect(stringify.mock.calls[0]![1]).toBeUndefined();
      const at = new Date(0);
      expect(encodeWire({ at, none: null })).toBe('{"at":"1970-01-01T00:00:00.000Z","none":null}');
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('reads a message with no typed array and no non-finite number with plain JSON.parse, without a reviver (#36)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      // A run list as runs.changed carries it (10k of them: 2.8 MB, a reviver call per value).
      const list = {
        event: 'runs.changed',
        payload: Array.from({ length: 50 }, (_, i) => ({
          run: `run_${i}`,
          loaded: i < 3,
          tags: 2,
          lastStep: i,
        })),
      };
      parse.mockClear();
      expect(decodeWire(JSON.stringify(list))).toEqual(list);
      expect(parse.mock.calls.map((c) => c[1])).toEqual([undefined]);
      fc.assert(
        fc.property(fc.jsonValue(), (v) => {
          const text = encodeWire(v);
          parse.mockClear();
          expect(decodeWire(text)).toEqual(JSON.parse(text));
          const revived = parse.mock.calls[0]![1] !== undefined;
          // The reviver runs only where a key starting with $ (or an escape) may be.
          expect(revived).toBe(text.includes('"$') || text.includes('\\u'));
        }),
        { numRuns: 300 },
      );
      // A record whose key is escaped is still one.
      expect(decodeWire('{"x":{"\\u0024n":"NaN"}}')).toEqual({ x: Number.NaN });
      expect(decodeWire('{"x":{"$n":"-Infinity"}}')).toEqual({ x: -Infinity });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('round-trips typed arrays and non-finite numbers at any depth beside plain values; a cycle still throws', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.float64Array({ maxLength: 8 }), (v, xs) => {
        const message = { v, deep: [{ xs, n: [1, Number.NaN, -Infinity] }] };
        const back = decodeWire(encodeWire(message)) as typeof message;
        expect(back.v).toEqual(JSON.parse(JSON.stringify(v)));
        expect(back.deep[0]!.xs).toBeInstanceOf(Float64Array);
        expect(new Uint8Array(back.deep[0]!.xs.buffer)).toEqual(
          new Uint8Array(xs.buffer, xs.byteOffset, xs.byteLength),
        );
        expect(back.deep[0]!.n).toEqual([1, Number.NaN, -Infinity]);
      }),
      { numRuns: 300 },
    );
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => encodeWire(cycle)).toThrow(TypeError);
    expect(() => encodeWire({ view: new DataView(new ArrayBuffer(2)) })).toThrow(/cannot encode DataView/);
  });
});
