// Per-file tag interning keyed by the tag's UTF-8 bytes, so a repeated tag costs a hash, not a string decode.

import type { ScalarSeries } from '../series/scalar-series';

/** What a tag's first SummaryMetadata said it is; TF writes the plugin name only on a tag's first value. */
export const PLUGIN_UNSET = 0;
export const PLUGIN_SCALARS = 1;
export const PLUGIN_HISTOGRAMS = 2;
export const PLUGIN_OTHER = 3;
/** `text`: string tensors, kept in the source's TextStore. */
export const PLUGIN_TEXT = 4;
/** `hparams`: the session's hyperparameters in the metadata (Stable-Baselines3's HParam, add_hparams). */
export const PLUGIN_HPARAMS = 5;
export type PluginKind = 0 | 1 | 2 | 3 | 4 | 5;

/** The four series a histogram is summarised into. */
export interface HistogramColumns {
  count: ScalarSeries;
  min: ScalarSeries;
  max: ScalarSeries;
  mean: ScalarSeries;
}

export interface TagEntry {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The bytes as little-endian 32-bit words; when len % 4 != 0, one more word holds the last four
   * bytes (overlapping the previous word), so a comparison is whole words only. Empty below 4 bytes. */
  readonly words: Int32Array;
  readonly hash: number;
  plugin: PluginKind;
  /** A tag this read does not keep (`onlyScalars`): its values are skipped as they decode. */
  readonly ignored: boolean;
  /** Resolved lazily, the first time a point of that kind is stored. */
  scalar: ScalarSeries | null;
  histogram: HistogramColumns | null;
  /** The tag that followed this one last time: writers repeat the same tag order, so this is
   * usually right and turns a lookup into one byte comparison. */
  next: TagEntry | null;
}

const decoder = new TextDecoder('utf-8');

function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h >>> 0;
}

/** Compares a word at a time through the cursor's DataView: tags are 10–40 bytes and this runs per value. */
function sameBytes(
  e: TagEntry,
  buf: Uint8Array,
  start: number,
  end: number,
  view: DataView,
  base: number,
): boolean {
  const b = e.bytes;
  const len = end - start;
  if (b.length !== len) return false;
  if (len < 4) {
    for (let j = 0; j < len; j++) if (b[j] !== buf[start + j]) return false;
    return true;
  }
  const words = e.words;
  const at = base + start;
  // The last word first (it is the overlapping tail one): tags of one run share prefixes
  // (train/…, eval/…) and differ at the end.
  const last = words.length - 1;
  if (view.getInt32(at + len - 4, true) !== words[last]) return false;
  for (let w = last - 1; w >= 0; w--) if (view.getInt32(at + w * 4, true) !== words[w]) return false;
  return true;
}

function toWords(bytes: Uint8Array): Int32Array {
  const len = bytes.length;
  if (len < 4) return new Int32Array(0);
  const full = len >> 2;
  const words = new Int32Array(len % 4 === 0 ? full : full + 1);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let w = 0; w < full; w++) words[w] = dv.getInt32(w * 4, true);
  words[words.length - 1] = dv.getInt32(len - 4, true);
  return words;
}

export class TagTable {
  private last: TagEntry | null = null;
  private slots: (TagEntry | undefined)[] = new Array<TagEntry | undefined>(32).fill(undefined);
  private mask = 31;
  private count = 0;

  /** `keep`: the tags whose values are kept (null: every tag). */
  constructor(private readonly keep: ReadonlySet<string> | null = null) {}

  get size(): number {
    return this.count;
  }

  /** The entry for the tag at buf[start, end); `view` is a DataView of buf's ArrayBuffer, `base` buf's offset in it. */
  intern(buf: Uint8Array, start: number, end: number, view: DataView, base: number): TagEntry {
    const last = this.last;
    const predicted = last === null ? null : last.next;
    if (predicted !== null && sameBytes(predicted, buf, start, end, view, base))
      return (this.last = predicted);
    const e = this.lookup(buf, start, end, view, base);
    if (last !== null) last.next = e;
    return (this.last = e);
  }

  private lookup(buf: Uint8Array, start: number, end: number, view: DataView, base: number): TagEntry {
    const hash = hashBytes(buf, start, end);
    const slots = this.slots;
    let i = hash & this.mask;
    for (;;) {
      const e = slots[i];
      if (e === undefined) break;
      if (e.hash === hash && sameBytes(e, buf, start, end, view, base)) return e;
      i = (i + 1) & this.mask;
    }
    const bytes = buf.slice(start, end);
    const name = decoder.decode(bytes);
    const entry: TagEntry = {
      name,
      bytes,
      words: toWords(bytes),
      hash,
      plugin: PLUGIN_UNSET,
      ignored: this.keep !== null && !this.keep.has(name),
      scalar: null,
      histogram: null,
      next: null,
    };
    slots[i] = entry;
    if (++this.count * 2 > slots.length) this.grow();
    return entry;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Array<TagEntry | undefined>(old.length * 2).fill(undefined);
    this.mask = this.slots.length - 1;
    for (const e of old) {
      if (!e) continue;
      let i = e.hash & this.mask;
      while (this.slots[i] !== undefined) i = (i + 1) & this.mask;
      this.slots[i] = e;
    }
  }
}
