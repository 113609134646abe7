// JSON text for the serve WebSocket that keeps what Electron's structured clone keeps: typed arrays, NaN, ±Infinity.

/** The platform's base64 codecs, found by feature check (shared code may not import Node built-ins). */
interface PlatformBase64 {
  Buffer?: {
    from(
      buffer: ArrayBufferLike,
      byteOffset: number,
      length: number,
    ): { toString(encoding: 'base64'): string };
    from(text: string, encoding: 'base64'): Uint8Array;
  };
  btoa?: (binary: string) => string;
  atob?: (text: string) => string;
}
const platform = globalThis as unknown as PlatformBase64;
const NodeBuffer = typeof platform.Buffer?.from === 'function' ? platform.Buffer : undefined;
/** ES2026's Uint8Array base64 methods (Chromium 140+), where present. */
const nativeFromBase64 = (Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
const nativeToBase64 = (Uint8Array.prototype as unknown as { toBase64?: (this: Uint8Array) => string })
  .toBase64;
const BINARY_CHUNK = 0x8000;
const BASE64_SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64 with padding (RFC 4648 §4): Node's Buffer, else Uint8Array.prototype.toBase64, else btoa. */
export function bytesToBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  if (typeof nativeToBase64 === 'function') return nativeToBase64.call(bytes);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += BINARY_CHUNK)
    parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + BINARY_CHUNK) as unknown as number[]));
  return platform.btoa!(parts.join(''));
}

/** The inverse of bytesToBase64, into an exactly sized buffer of its own; throws on malformed text. */
export function base64ToBytes(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error('base64 length is not a multiple of 4');
  if (!BASE64_SHAPE.test(text)) throw new Error(`invalid base64 character at ${firstInvalid(text)}`);
  if (NodeBuffer) {
    const view = NodeBuffer.from(text, 'base64');
    // Small Buffers share a pool: copy out unless the view is its buffer.
    return view.byteOffset === 0 && view.buffer.byteLength === view.byteLength ? view : new Uint8Array(view);
  }
  if (typeof nativeFromBase64 === 'function') return nativeFromBase64(text);
  const binary = platform.atob!(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function firstInvalid(text: string): number {
  const padFrom = text.length - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  for (let i = 0; i < text.length; i++) if (!/[A-Za-z0-9+/]/.test(text[i]!) && i < padFrom) return i;
  return padFrom;
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

/** Nesting past this depth is left to the replacer (which also meets a cycle, and throws as JSON.stringify does). */
const PLAIN_DEPTH = 64;

/** Whether plain JSON.stringify writes `v` as the replacer would: no typed array (or other view), no non-finite
 * number, and no toJSON (what it returns is not looked into) anywhere in it. */
function isPlain(v: unknown, depth: number): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || v === null) return true;
  if (
    depth > PLAIN_DEPTH ||
    ArrayBuffer.isView(v) ||
    typeof (v as { toJSON?: unknown }).toJSON === 'function'
  )
    return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isPlain(v[i], depth + 1)) return false;
    return true;
  }
  for (const key in v) {
    if (
      Object.prototype.hasOwnProperty.call(v, key) &&
      !isPlain((v as Record<string, unknown>)[key], depth + 1)
    )
      return false;
  }
  return true;
}

/** JSON.stringify that encodes typed arrays as {$t, b64} (little-endian bytes) and non-finite numbers as {$n}.
 * A value holding neither (most messages: a run list, a notice) is written by plain JSON.stringify: the same
 * text, without a replacer call per value (half the time for a 50-run list). */
export function encodeWire(value: unknown): string {
  if (isPlain(value, 0)) return JSON.stringify(value);
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

/** Whether `text` may hold a {$n} or {$t, b64} record: a key starting with `$`, written as it is or escaped (`\u0024`,
 * any `\u` escape to be safe). Without one, JSON.parse with the reviver gives what plain JSON.parse gives. */
const mayHoldRecord = (text: string): boolean => text.includes('"$') || text.includes('\\u');

/** The inverse of encodeWire. Throws on malformed JSON or a malformed typed-array record. A message with no record
 * (a run list, a notice) is parsed by plain JSON.parse: the reviver's call per value made a 10k-run list (2.8 MB)
 * take 3× as long to decode in the page (#36). */
export function decodeWire(text: string): unknown {
  if (!mayHoldRecord(text)) return JSON.parse(text);
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
