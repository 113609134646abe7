// Decodes a DT_STRING TensorProto (the `text` plugin's value) into bounded UTF-8 cells and its shape; never trusts sizes.

import type { ProtoCursor } from '../readers/proto-cursor';
import type { TextLimits } from './text-store';

const DT_STRING = 7;
// TensorProto field keys: dtype, tensor_shape, string_val; TensorShapeProto: dim; Dim: size.
const K_DTYPE = (1 << 3) | 0;
const K_SHAPE = (2 << 3) | 2;
const K_STRING_VAL = (8 << 3) | 2;
const K_DIM = (2 << 3) | 2;
const K_DIM_SIZE = (1 << 3) | 0;
/** Deeper shapes are refused (TensorFlow allows 254; no text summary comes close). */
const MAX_RANK = 32;

const utf8 = new TextDecoder('utf-8', { fatal: false });

export interface DecodedText {
  cells: string[];
  shape: number[];
  truncated: boolean;
  /** UTF-8 bytes of the cells kept. */
  bytes: number;
}

/**
 * The string tensor at [start, end) of the cursor's buffer, cut to the item limits: cells past the byte or
 * cell cap are left out (the one crossing the byte cap is cut), and `truncated` says so. Missing trailing
 * cells repeat the last one (TensorFlow's rule for short value lists). Returns null for a well-formed tensor
 * that is not text: another dtype, more strings than its shape holds, a negative or too deep shape. Throws
 * ProtoError when the protobuf is malformed. Leaves the cursor at `end` (its `end` is restored too).
 */
export function decodeTextTensor(
  c: ProtoCursor,
  start: number,
  end: number,
  limits: TextLimits,
): DecodedText | null {
  const outerEnd = c.end;
  c.pos = start;
  c.end = end;
  let dtype = 0;
  let shape: number[] | null = null;
  let badShape = false;
  // The strings as byte ranges first: sizes are checked before anything is decoded.
  const starts: number[] = [];
  const ends: number[] = [];
  let given = 0;
  let budget = limits.itemBytes;
  let truncated = false;
  while (c.pos < end) {
    const key = c.key();
    if (key === K_STRING_VAL) {
      const n = c.length();
      given++;
      if (starts.length < limits.itemCells && budget > 0) {
        const keep = Math.min(n, budget);
        starts.push(c.pos);
        ends.push(c.pos + keep);
        budget -= keep;
        if (keep < n) truncated = true;
      } else {
        truncated = true;
      }
      c.pos += n;
    } else if (key === K_DTYPE) {
      dtype = c.varint();
    } else if (key === K_SHAPE) {
      const n = c.length();
      const shapeEnd = c.pos + n;
      shape = [];
      c.end = shapeEnd;
      while (c.pos < shapeEnd) {
        const k = c.key();
        if (k !== K_DIM) {
          c.skip(k);
          continue;
        }
        const dn = c.length();
        const dimEnd = c.pos + dn;
        c.end = dimEnd;
        let size = 0;
        while (c.pos < dimEnd) {
          const dk = c.key();
          if (dk === K_DIM_SIZE) size = c.varint();
          else c.skip(dk);
        }
        c.end = shapeEnd;
        if (size < 0 || !Number.isSafeInteger(size) || shape.length >= MAX_RANK) badShape = true;
        else shape.push(size);
      }
      c.end = end;
    } else {
      c.skip(key);
    }
  }
  c.pos = end;
  c.end = outerEnd;
  if (dtype !== DT_STRING || badShape) return null;
  const dims = shape ?? [];
  let elements = 1;
  for (const d of dims) elements = Math.min(elements * d, Number.MAX_SAFE_INTEGER);
  if (given > elements) return null;
  const cells: string[] = [];
  let bytes = 0;
  const buf = c.buf;
  for (let i = 0; i < starts.length; i++) {
    cells.push(utf8.decode(buf.subarray(starts[i], ends[i])));
    bytes += ends[i]! - starts[i]!;
  }
  // Fewer strings than the shape holds: the last repeats (none given: empty strings), within the caps.
  if (elements > given && !truncated) {
    const fillBytes = given > 0 ? ends[starts.length - 1]! - starts[starts.length - 1]! : 0;
    const fill = given > 0 ? cells[cells.length - 1]! : '';
    for (let i = given; i < elements; i++) {
      if (cells.length >= limits.itemCells || bytes + fillBytes > limits.itemBytes) {
        truncated = true;
        break;
      }
      cells.push(fill);
      bytes += fillBytes;
    }
  }
  return { cells, shape: dims, truncated, bytes };
}
