// Decodes the `hparams` plugin's HParamsPluginData: a session_start_info's hyperparameters (google.protobuf.Value map) as plain values.

import type { ProtoCursor } from '../readers/proto-cursor';

// HParamsPluginData.session_start_info; SessionStartInfo.hparams (map entries: key, value).
const K_SESSION_START = (3 << 3) | 2;
const K_HPARAMS = (1 << 3) | 2;
const K_ENTRY_KEY = (1 << 3) | 2;
const K_ENTRY_VALUE = (2 << 3) | 2;
// google.protobuf.Value: null_value, number_value, string_value, bool_value.
const V_NULL = (1 << 3) | 0;
const V_NUMBER = (2 << 3) | 1;
const V_STRING = (3 << 3) | 2;
const V_BOOL = (4 << 3) | 0;
/** Hyperparameters kept at most (a config, not a data dump). */
const MAX_HPARAMS = 4096;
/** Longest string value kept, in bytes. */
const MAX_STRING_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: false });

function text(c: ProtoCursor, n: number): string {
  const s = utf8.decode(c.buf.subarray(c.pos, c.pos + Math.min(n, MAX_STRING_BYTES)));
  c.pos += n;
  return s;
}

/** A google.protobuf.Value's scalar (number, string, bool, null); structs and lists are left out (undefined). */
function value(c: ProtoCursor, end: number): unknown {
  let out: unknown = undefined;
  while (c.pos < end) {
    const key = c.key();
    if (key === V_NUMBER) out = c.double();
    else if (key === V_STRING) out = text(c, c.length());
    else if (key === V_BOOL) out = c.varint() !== 0;
    else if (key === V_NULL) {
      c.varint();
      out = null;
    } else c.skip(key);
  }
  return out;
}

/**
 * The hyperparameters of an HParamsPluginData at [start, end) that holds a session_start_info, in the
 * order written; null when it holds none (the experiment and session_end_info summaries). Throws
 * ProtoError when malformed. Moves the cursor and its `end` (the caller restores them).
 */
export function decodeSessionHparams(
  c: ProtoCursor,
  start: number,
  end: number,
): Record<string, unknown> | null {
  c.pos = start;
  c.end = end;
  let out: Record<string, unknown> | null = null;
  let kept = 0;
  while (c.pos < end) {
    const key = c.key();
    if (key !== K_SESSION_START) {
      c.skip(key);
      continue;
    }
    const n = c.length();
    const infoEnd = c.pos + n;
    out ??= {};
    c.end = infoEnd;
    while (c.pos < infoEnd) {
      const k = c.key();
      if (k !== K_HPARAMS) {
        c.skip(k);
        continue;
      }
      const en = c.length();
      const entryEnd = c.pos + en;
      c.end = entryEnd;
      let name: string | null = null;
      let v: unknown = undefined;
      while (c.pos < entryEnd) {
        const ek = c.key();
        if (ek === K_ENTRY_KEY) name = text(c, c.length());
        else if (ek === K_ENTRY_VALUE) {
          const vn = c.length();
          const valueEnd = c.pos + vn;
          c.end = valueEnd;
          v = value(c, valueEnd);
          c.end = entryEnd;
        } else c.skip(ek);
      }
      c.end = infoEnd;
      if (name !== null && v !== undefined && kept < MAX_HPARAMS) {
        if (!Object.hasOwn(out, name)) kept++;
        // defineProperty: a key named `__proto__` is an own key, not the object's prototype.
        Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
      }
    }
    c.end = end;
  }
  return out;
}
