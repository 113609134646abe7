// JSON text for the serve WebSocket that keeps what Electron's structured clone keeps: typed arrays, NaN, ±Infinity.

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  const n = bytes.length;
  for (let i = 0; i < n; i += 3) {
    const a = bytes[i]!;
    const b = i + 1 < n ? bytes[i + 1]! : 0;
    const c = i + 2 < n ? bytes[i + 2]! : 0;
    chunk +=
      B64[a >> 2]! +
      B64[((a & 3) << 4) | (b >> 4)]! +
      (i + 1 < n ? B64[((b & 15) << 2) | (c >> 6)]! : '=') +
      (i + 2 < n ? B64[c & 63]! : '=');
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

export function base64ToBytes(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error('base64 length is not a multiple of 4');
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const q = [0, 1, 2, 3].map((k) => {
      const ch = text.charCodeAt(i + k);
      if (ch === 61 /* = */ && i + k >= text.length - pad) return 0;
      const v = ch < 128 ? B64_INDEX[ch]! : -1;
      if (v < 0) throw new Error(`invalid base64 character at ${i + k}`);
      return v;
    }) as [number, number, number, number];
    const triple = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
    if (o < out.length) out[o++] = (triple >> 16) & 255;
    if (o < out.length) out[o++] = (triple >> 8) & 255;
    if (o < out.length) out[o++] = triple & 255;
  }
  return out;
}

type TypedKind = 'f64' | 'f32' | 'i32' | 'u8';
const CTORS = { f64: Float64Array, f32: Float32Array, i32: Int32Array, u8: Uint8Array } as const;

function kindOf(v: object): TypedKind | null {
  if (v instanceof Float64Array) return 'f64';
  if (v instanceof Float32Array) return 'f32';
  if (v instanceof Int32Array) return 'i32';
  if (v instanceof Uint8Array) return 'u8';
  return null;
}

/** JSON.stringify that encodes typed arrays as {$t, b64} (little-endian bytes) and non-finite numbers as {$n}. */
export function encodeWire(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number') return Number.isFinite(v) ? v : { $n: String(v) };
    if (typeof v === 'object' && v !== null && ArrayBuffer.isView(v)) {
      const kind = kindOf(v);
      if (!kind) throw new Error(`cannot encode ${v.constructor.name}`);
      return { $t: kind, b64: bytesToBase64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) };
    }
    return v;
  });
}

/** The inverse of encodeWire. Throws on malformed JSON or a malformed typed-array record. */
export function decodeWire(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    if (typeof o.$n === 'string' && Object.keys(o).length === 1) {
      if (o.$n === 'NaN' || o.$n === 'Infinity' || o.$n === '-Infinity') return Number(o.$n);
      return v;
    }
    if (typeof o.$t === 'string' && typeof o.b64 === 'string' && Object.keys(o).length === 2) {
      const ctor = CTORS[o.$t as TypedKind];
      if (!ctor) return v;
      const bytes = base64ToBytes(o.b64);
      if (bytes.byteLength % ctor.BYTES_PER_ELEMENT !== 0) throw new Error('typed array length mismatch');
      // Copy into an aligned buffer (the bytes' buffer is exactly sized, so this is the view itself).
      return new ctor(bytes.buffer as ArrayBuffer, 0, bytes.byteLength / ctor.BYTES_PER_ELEMENT);
    }
    return v;
  });
}
