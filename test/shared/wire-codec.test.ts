// The WebSocket codec round-trips typed arrays and non-finite numbers exactly, and rejects malformed records.

import { describe, expect, it } from 'vitest';
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
});
