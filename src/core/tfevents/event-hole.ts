// Finds, from a large event's first bytes, the one field the decoder would skip (an image, audio, a graph, another
// plugin's tensor), and stitches the event without it: a bulk read jumps over those bytes instead of reading them.

/** A skippable field of an event payload (offsets into the payload) and the messages enclosing it. */
export interface EventHole {
  /** The field from its key to its end. */
  start: number;
  end: number;
  /** The enclosing length-delimited messages, outermost first: where each length varint starts, where its content
   * starts, and the length it declares. */
  lengthAt: number[];
  contentAt: number[];
  lengths: number[];
}

/** Whether a tensor of the tag buf[start, end) is skipped by the decoder (a plugin it does not read). */
export type TensorSkippable = (buf: Uint8Array, start: number, end: number) => boolean;

// Event fields the decoder reads (wall_time, step, file_version, summary); Summary.Value fields it reads (tag,
// simple_value, histo, node_name, tensor, metadata).
const EVENT_FILE_VERSION = 3;
const EVENT_SUMMARY = 5;
const SUMMARY_VALUE = 1;
const VALUE_TENSOR = 8;
const VALUE_READ = new Set([1, 2, 5, 7, 8, 9]);

/** A bounded walk over the prefix buf[base, base + have) of a payload of `total` bytes; -1 when a read runs past. */
class PrefixWalk {
  pos = 0;
  constructor(
    private readonly buf: Uint8Array,
    private readonly base: number,
    private readonly have: number,
  ) {}

  varint(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.have) return -1;
      const b = this.buf[this.base + this.pos++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
    return -1;
  }

  /** Skips a non-length-delimited value of wire type `wire`; false when it cannot (past the prefix, unknown wire). */
  skipScalar(wire: number): boolean {
    if (wire === 0) return this.varint() >= 0;
    const n = wire === 1 ? 8 : wire === 5 ? 4 : -1;
    if (n < 0 || this.pos + n > this.have) return false;
    this.pos += n;
    return true;
  }
}

/**
 * The hole of an event payload of `total` bytes of which the first `have` are at buf[base…]: a field reaching past
 * those bytes that the decoder skips whole. null when there is none, or the prefix is too short to tell.
 */
export function findEventHole(
  buf: Uint8Array,
  base: number,
  have: number,
  total: number,
  tensorSkippable: TensorSkippable,
): EventHole | null {
  const w = new PrefixWalk(buf, base, Math.min(have, total));
  const lengthAt: number[] = [];
  const contentAt: number[] = [];
  const lengths: number[] = [];
  // level 0: Event, 1: Summary, 2: Summary.Value.
  let level = 0;
  let end = total;
  let tagStart = -1;
  let tagEnd = -1;
  while (w.pos < end) {
    const keyAt = w.pos;
    const key = w.varint();
    if (key < 8) return null;
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire !== 2) {
      if (!w.skipScalar(wire)) return null;
      continue;
    }
    const lenAt = w.pos;
    const len = w.varint();
    if (len < 0) return null;
    const start = w.pos;
    const stop = start + len;
    if (stop > end) return null;
    if (level === 2 && field === 1) {
      if (stop > have) return null;
      tagStart = base + start;
      tagEnd = base + stop;
    }
    if (stop <= have) {
      // Read already: nothing to save here.
      w.pos = stop;
      continue;
    }
    const descend = (level === 0 && field === EVENT_SUMMARY) || (level === 1 && field === SUMMARY_VALUE);
    if (descend) {
      lengthAt.push(lenAt);
      contentAt.push(start);
      lengths.push(len);
      level++;
      end = stop;
      continue;
    }
    const skipped =
      level === 0
        ? field !== EVENT_FILE_VERSION
        : level === 1 ||
          !VALUE_READ.has(field) ||
          (field === VALUE_TENSOR && tagStart >= 0 && tensorSkippable(buf, tagStart, tagEnd));
    return skipped ? { start: keyAt, end: stop, lengthAt, contentAt, lengths } : null;
  }
  return null;
}

function varintSize(v: number): number {
  let n = 1;
  for (; v >= 0x80; n++) v = Math.floor(v / 128);
  return n;
}

function putVarint(out: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    out[p++] = v % 128 | 0x80;
    v = Math.floor(v / 128);
  }
  out[p++] = v;
  return p;
}

/**
 * The event without its hole: the prefix up to the hole (enclosing lengths shortened) and `suffix`, the payload's
 * bytes after it; written into `out` when it is large enough (else a new array). Returns the bytes and their length.
 */
export function stitchEvent(
  buf: Uint8Array,
  base: number,
  hole: EventHole,
  suffix: Uint8Array,
  out: Uint8Array,
): { bytes: Uint8Array; length: number } {
  // Each enclosing message loses the hole and what its inner length varints shrank by (innermost first).
  const levels = hole.lengthAt.length;
  const lengths: number[] = new Array<number>(levels);
  let removed = hole.end - hole.start;
  for (let i = levels - 1; i >= 0; i--) {
    const was = hole.lengths[i]!;
    lengths[i] = was - removed;
    removed += hole.contentAt[i]! - hole.lengthAt[i]! - varintSize(lengths[i]!);
  }
  const size = hole.start + suffix.length;
  const bytes = out.length >= size ? out : new Uint8Array(size * 2);
  let p = 0;
  let from = 0;
  for (let i = 0; i < levels; i++) {
    bytes.set(buf.subarray(base + from, base + hole.lengthAt[i]!), p);
    p += hole.lengthAt[i]! - from;
    p = putVarint(bytes, p, lengths[i]!);
    from = hole.contentAt[i]!;
  }
  bytes.set(buf.subarray(base + from, base + hole.start), p);
  p += hole.start - from;
  bytes.set(suffix, p);
  return { bytes, length: p + suffix.length };
}
