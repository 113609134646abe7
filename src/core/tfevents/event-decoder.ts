// Decodes TensorFlow Event protos into columnar scalar and histogram series (hand-written, no per-point objects).

import type { ScalarSeries } from '../series/scalar-series';
import type { SeriesSet } from '../series/series-set';
import { ProtoCursor, ProtoError } from '../readers/proto-cursor';
import { decodeTensor, TensorValues } from './tensor-decoder';
import {
  PLUGIN_HISTOGRAMS,
  PLUGIN_HPARAMS,
  PLUGIN_OTHER,
  PLUGIN_SCALARS,
  PLUGIN_TEXT,
  PLUGIN_UNSET,
  TagTable,
} from './tag-table';
import type { HistogramColumns, PluginKind, TagEntry } from './tag-table';
import { decodeTextTensor, type DecodedText } from './text-decoder';
import { decodeSessionHparams } from './hparams-decoder';
import type { TextStore } from './text-store';
import type { HistogramStore } from '../readers/histogram-store';

/** Histogram tags are stored as four series named `TAG/<stat>` in the histogram SeriesSet. */
export const HISTOGRAM_STATS = ['count', 'min', 'max', 'mean'] as const;
export type HistogramStat = (typeof HISTOGRAM_STATS)[number];

export function histogramSeriesName(tag: string, stat: HistogramStat): string {
  return `${tag}/${stat}`;
}

// Field keys (field number << 3 | wire type) of the messages we read.
const EVENT_WALL_TIME = (1 << 3) | 1;
const EVENT_STEP = (2 << 3) | 0;
const EVENT_FILE_VERSION = (3 << 3) | 2;
const EVENT_SUMMARY = (5 << 3) | 2;
const SUMMARY_VALUE = (1 << 3) | 2;
const VALUE_TAG = (1 << 3) | 2;
const VALUE_SIMPLE = (2 << 3) | 5;
const VALUE_HISTO = (5 << 3) | 2;
const VALUE_NODE_NAME = (7 << 3) | 2;
const VALUE_TENSOR = (8 << 3) | 2;
const VALUE_METADATA = (9 << 3) | 2;
const META_PLUGIN_DATA = (1 << 3) | 2;
const PLUGIN_NAME = (1 << 3) | 2;
const PLUGIN_CONTENT = (2 << 3) | 2;
const HISTO_MIN = (1 << 3) | 1;
const HISTO_MAX = (2 << 3) | 1;
const HISTO_NUM = (3 << 3) | 1;
const HISTO_SUM = (4 << 3) | 1;
const HISTO_LIMIT = (6 << 3) | 1;
const HISTO_LIMITS_PACKED = (6 << 3) | 2;
const HISTO_BUCKET = (7 << 3) | 1;
const HISTO_BUCKETS_PACKED = (7 << 3) | 2;

/** Undos (each scans every series) before a file is decoded staged only. */
const MAX_UNDOS = 16;

const KIND_SCALAR = 0;
const KIND_HISTOGRAM = 1;

const SCALARS = new TextEncoder().encode('scalars');
const HISTOGRAMS = new TextEncoder().encode('histograms');
const TEXT = new TextEncoder().encode('text');
const HPARAMS = new TextEncoder().encode('hparams');

function bytesEqual(buf: Uint8Array, start: number, end: number, want: Uint8Array): boolean {
  if (end - start !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (buf[start + i] !== want[i]) return false;
  return true;
}

/**
 * One decoder per file: it remembers each tag's plugin (TF writes it only on the first value). An
 * event's values go straight into their series when its step and wall time come first (the field
 * order every writer uses), as one undoable batch (ScalarSeries.beginBatch) that is taken back if
 * the event turns out malformed, so a record that fails half-way stores nothing. Events with a step
 * or wall time after the summary are decoded again with their values staged until the end.
 */
export class EventDecoder {
  /** The file's `file_version` string (e.g. "brain.Event:2"), once seen. */
  fileVersion: string | null = null;
  /** Values that were well-formed but not storable (string tensors, non-scalar `scalars` tensors…). */
  skippedValues = 0;
  /** The hyperparameters of the newest `hparams` session_start_info (SB3's HParam), once seen. */
  hparams: Record<string, unknown> | null = null;

  private readonly c = new ProtoCursor();
  private readonly tags: TagTable;
  private readonly tensor = new TensorValues();
  // Direct mode: the event's step and wall time are known, values are appended as they decode.
  private direct = false;
  private step = 0;
  private wallTime = 0;
  // Direct appends form one undoable ScalarSeries batch per event; series created by the event are
  // listed so an undo can remove them again. Each undo scans every series, so after a few the file
  // is decoded staged only.
  private batch = 0;
  private batchDirty = false;
  private created: TagEntry[] = [];
  // Tags whose plugin the current event set: a second (staged) pass must start from the same state.
  private pluginsSet: TagEntry[] = [];
  private undos = 0;
  // Staged values of the event being decoded: entry, kind and four numbers per value.
  private stagedEntries: TagEntry[] = [];
  private stagedKinds = new Uint8Array(16);
  private stagedValues = new Float64Array(64);
  private staged = 0;
  private stagedSkips = 0;
  // Text values and hparams of the event being decoded: kept once the event decoded whole.
  private pendingTexts: { entry: TagEntry; text: DecodedText }[] = [];
  private pendingHparams: Record<string, unknown> | null = null;
  // Histogram buckets of the event being decoded (only with a histogram store): kept once the event decoded whole.
  // The i-th is the first pendingLengths[i] values of histoScratch[i], arrays reused event after event (the store
  // copies what it keeps): a histogram costs no allocation of its own.
  private pendingHistos: TagEntry[] = [];
  private readonly pendingLengths: number[] = [];
  private readonly histoScratch: Float64Array[] = [];
  // A legacy HistogramProto's bucket limits and counts, reused.
  private limits = new Float64Array(64);
  private counts = new Float64Array(64);
  // Any of them is set: one check per event (scalar-only files never set it).
  private pendingExtras = false;

  constructor(
    private readonly scalars: SeriesSet,
    private readonly histograms: SeriesSet,
    private readonly texts: TextStore | null = null,
    private readonly histos: HistogramStore | null = null,
    onlyScalars: readonly string[] | null = null,
  ) {
    this.tags = new TagTable(onlyScalars === null ? null : new Set(onlyScalars));
  }

  /** Whether a tensor of the tag buf[start, end) is skipped whole: its plugin, known from an earlier value, is one the
   * decoder does not read (images, audio, pr_curves…), or the tag is not one this read keeps. */
  readonly tensorSkippable = (buf: Uint8Array, start: number, end: number): boolean => {
    const entry = this.tags.intern(buf, start, end, new DataView(buf.buffer, buf.byteOffset), 0);
    return entry.plugin === PLUGIN_OTHER || entry.ignored;
  };

  /** Decodes one Event payload; throws ProtoError (storing nothing) when it is malformed. */
  decode(payload: Uint8Array): void {
    this.decodeRange(payload, 0, payload.length);
  }

  /** Decodes the Event payload buf[start, end); throws ProtoError (storing nothing) when it is malformed. */
  decodeRange(buf: Uint8Array, start: number, end: number): void {
    this.batch++;
    this.batchDirty = false;
    // (Guarded: setting an array's length is a runtime call, and these are nearly always empty.)
    if (this.created.length !== 0) this.created.length = 0;
    if (this.pluginsSet.length !== 0) this.pluginsSet.length = 0;
    try {
      if (!this.event(buf, start, end, this.undos < MAX_UNDOS)) {
        this.undo();
        for (const entry of this.pluginsSet) entry.plugin = PLUGIN_UNSET;
        this.event(buf, start, end, false);
      }
    } catch (e) {
      this.undo();
      this.staged = 0;
      throw e;
    }
  }

  /**
   * One pass over an Event. With `allowDirect`, a summary that follows both step and wall time is
   * stored as it decodes; returns false (to be undone and decoded again staged) when a step or wall
   * time turns up after such a summary.
   */
  private event(buf: Uint8Array, start: number, end: number, allowDirect: boolean): boolean {
    const c = this.c;
    c.reset(buf, start, end);
    this.staged = 0;
    this.stagedSkips = 0;
    this.direct = false;
    if (this.pendingExtras) this.dropExtras();
    let wallTime = 0;
    let step = 0;
    // Bit 1: wall time seen, bit 2: step seen, bit 4: a summary was stored directly.
    let seen = 0;
    let versionStart = -1;
    let versionEnd = -1;
    while (c.pos < c.end) {
      const key = c.key();
      if (key === EVENT_SUMMARY) {
        const n = c.length();
        c.end = c.pos + n;
        // Values already staged keep the event's order only if later ones are staged too.
        if (allowDirect && (seen & 3) === 3 && this.staged === 0) {
          this.direct = true;
          this.batchDirty = true;
          this.step = step;
          this.wallTime = wallTime;
          seen |= 4;
        } else {
          this.direct = false;
        }
        this.summary();
        c.end = end;
      } else if (key === EVENT_WALL_TIME) {
        if (seen & 4) return false;
        wallTime = c.double();
        seen |= 1;
      } else if (key === EVENT_STEP) {
        if (seen & 4) return false;
        step = c.varint();
        seen |= 2;
      } else if (key === EVENT_FILE_VERSION) {
        const n = c.length();
        versionStart = c.pos;
        versionEnd = c.pos += n;
      } else {
        // graph_def, session_log, tagged_run_metadata, meta_graph_def, source_metadata: skipped by length.
        c.skip(key);
      }
    }
    if (versionStart >= 0)
      this.fileVersion = new TextDecoder().decode(buf.subarray(versionStart, versionEnd));
    this.skippedValues += this.stagedSkips;
    if (this.staged > 0) this.commit(step, wallTime);
    if (this.pendingExtras) this.commitExtras(step, wallTime);
    return true;
  }

  /** Undoes the direct appends of the current event, and removes the series it created. */
  private undo(): void {
    if (!this.batchDirty) return;
    this.batchDirty = false;
    this.undos++;
    const id = this.batch;
    for (const [, s] of this.scalars.entries()) s.undoBatch(id);
    for (const [, s] of this.histograms.entries()) s.undoBatch(id);
    for (const entry of this.created) {
      if (entry.scalar !== null && entry.scalar.length === 0) {
        this.scalars.delete(entry.name);
        entry.scalar = null;
      }
      if (entry.histogram !== null && entry.histogram.count.length === 0) {
        for (const stat of HISTOGRAM_STATS) this.histograms.delete(histogramSeriesName(entry.name, stat));
        entry.histogram = null;
      }
    }
    this.created.length = 0;
  }

  private summary(): void {
    const c = this.c;
    const end = c.end;
    while (c.pos < end) {
      const key = c.key();
      if (key === SUMMARY_VALUE) {
        const n = c.length();
        const valueEnd = c.pos + n;
        c.end = valueEnd;
        this.value();
        c.pos = valueEnd;
        c.end = end;
      } else {
        c.skip(key);
      }
    }
  }

  private value(): void {
    const c = this.c;
    const buf = c.buf;
    const end = c.end;
    // Fast path for what writers repeat: a one-byte-length tag followed by nothing but a
    // simple_value or a (short) tensor, no metadata. Anything else takes the general loop below.
    const p = c.pos;
    if (buf[p] === 0x0a) {
      const n = buf[p + 1]!;
      const q = p + 2 + n;
      if (n < 0x80 && q + 5 === end && buf[q] === 0x15) {
        const entry = this.tags.intern(buf, p + 2, q, c.view, c.base);
        this.scalar(entry, c.view.getFloat32(c.base + q + 1, true), true);
        c.pos = end;
        return;
      }
      const m = buf[q + 1]!;
      if (n < 0x80 && buf[q] === 0x42 && m < 0x80 && q + 2 + m === end) {
        const entry = this.tags.intern(buf, p + 2, q, c.view, c.base);
        this.tensorValue(entry, q + 2, end);
        c.pos = end;
        c.end = end;
        return;
      }
    }
    let tagStart = -1;
    let tagEnd = -1;
    let nodeStart = -1;
    let nodeEnd = -1;
    let simple = 0;
    let hasSimple = false;
    let histoStart = -1;
    let histoEnd = -1;
    let tensorStart = -1;
    let tensorEnd = -1;
    let metaStart = -1;
    let metaEnd = -1;
    while (c.pos < end) {
      const key = c.key();
      switch (key) {
        case VALUE_TAG: {
          const n = c.length();
          tagStart = c.pos;
          tagEnd = c.pos += n;
          break;
        }
        case VALUE_SIMPLE:
          simple = c.float();
          hasSimple = true;
          break;
        case VALUE_TENSOR: {
          const n = c.length();
          tensorStart = c.pos;
          tensorEnd = c.pos += n;
          break;
        }
        case VALUE_METADATA: {
          const n = c.length();
          metaStart = c.pos;
          metaEnd = c.pos += n;
          break;
        }
        case VALUE_HISTO: {
          const n = c.length();
          histoStart = c.pos;
          histoEnd = c.pos += n;
          break;
        }
        case VALUE_NODE_NAME: {
          const n = c.length();
          nodeStart = c.pos;
          nodeEnd = c.pos += n;
          break;
        }
        default:
          // image, audio, obsolete histograms: skipped by length.
          c.skip(key);
      }
    }
    // TF1 summaries without a tag name the value by its node.
    if (tagStart < 0 || (tagStart === tagEnd && nodeStart >= 0)) {
      tagStart = nodeStart < 0 ? 0 : nodeStart;
      tagEnd = nodeStart < 0 ? 0 : nodeEnd;
    }
    const entry = this.tags.intern(buf, tagStart, tagEnd, c.view, c.base);
    if (entry.ignored) return;
    if (metaStart >= 0 && entry.plugin === PLUGIN_UNSET) {
      entry.plugin = this.pluginOf(metaStart, metaEnd);
      this.pluginsSet.push(entry);
      c.end = end;
    }
    if (metaStart >= 0 && entry.plugin === PLUGIN_HPARAMS) {
      this.hparamsValue(metaStart, metaEnd);
      c.end = end;
    }
    if (hasSimple) {
      this.scalar(entry, simple, true);
    } else if (histoStart >= 0) {
      this.classicHistogram(entry, histoStart, histoEnd);
      c.end = end;
    } else if (tensorStart >= 0) {
      this.tensorValue(entry, tensorStart, tensorEnd);
      c.end = end;
    }
  }

  /** A value's tensor at [start, end): stored if its tag's plugin is scalars, histograms or text. Moves c. */
  private tensorValue(entry: TagEntry, start: number, end: number): void {
    if (entry.ignored) return;
    const plugin = entry.plugin;
    if (plugin === PLUGIN_SCALARS) {
      if (this.scalarTensorFast(entry, this.c.buf, start, end)) return;
    } else if (plugin !== PLUGIN_HISTOGRAMS) {
      if (plugin === PLUGIN_TEXT && this.texts !== null) this.textValue(entry, start, end);
      return;
    }
    const c = this.c;
    c.pos = start;
    c.end = end;
    const t = this.tensor;
    if (!decodeTensor(c, t)) this.stagedSkips++;
    else if (plugin === PLUGIN_SCALARS) this.scalarTensor(entry, t);
    else this.tensorHistogram(entry, t);
  }

  /**
   * The one-value float or double tensors TF2 and tensorboardX write for a scalar: `dtype`, an empty
   * `tensor_shape` or none, then `float_val`/`double_val`/`tensor_content` holding one value. Stores
   * it and returns true; anything else goes to the general tensor decoder (which agrees on these).
   */
  private scalarTensorFast(entry: TagEntry, buf: Uint8Array, start: number, end: number): boolean {
    if (end - start < 6 || buf[start] !== 0x08) return false;
    const dtype = buf[start + 1];
    let p = start + 2;
    if (buf[p] === 0x12 && buf[p + 1] === 0) p += 2;
    const key = buf[p];
    const n = buf[p + 1]!;
    if (p + 2 + n !== end) return false;
    const c = this.c;
    if (dtype === 1 && n === 4 && (key === 0x2a || key === 0x22)) {
      this.scalar(entry, c.view.getFloat32(c.base + p + 2, true), true);
      return true;
    }
    if (dtype === 2 && n === 8 && (key === 0x32 || key === 0x22)) {
      this.scalar(entry, c.view.getFloat64(c.base + p + 2, true), false);
      return true;
    }
    return false;
  }

  private pluginOf(start: number, end: number): PluginKind {
    let kind: PluginKind = PLUGIN_UNSET;
    this.eachPluginField(start, end, PLUGIN_NAME, (buf, s, e) => {
      if (bytesEqual(buf, s, e, SCALARS)) kind = PLUGIN_SCALARS;
      else if (bytesEqual(buf, s, e, HISTOGRAMS)) kind = PLUGIN_HISTOGRAMS;
      else if (bytesEqual(buf, s, e, TEXT)) kind = PLUGIN_TEXT;
      else if (bytesEqual(buf, s, e, HPARAMS)) kind = PLUGIN_HPARAMS;
      else if (e > s) kind = PLUGIN_OTHER;
    });
    return kind;
  }

  /**
   * Calls `visit` with the bytes [s, e) of each `field` (a length-delimited key) of the plugin_data inside the
   * SummaryMetadata at [start, end), in order; leaves the cursor's end at `end`.
   */
  private eachPluginField(
    start: number,
    end: number,
    field: number,
    visit: (buf: Uint8Array, s: number, e: number) => void,
  ): void {
    const c = this.c;
    c.pos = start;
    c.end = end;
    while (c.pos < end) {
      const key = c.key();
      if (key !== META_PLUGIN_DATA) {
        c.skip(key);
        continue;
      }
      const n = c.length();
      const dataEnd = c.pos + n;
      c.end = dataEnd;
      while (c.pos < dataEnd) {
        const k = c.key();
        if (k !== field) {
          c.skip(k);
          continue;
        }
        const len = c.length();
        const s = c.pos;
        visit(c.buf, s, s + len);
        c.pos = s + len;
        c.end = dataEnd;
      }
      c.end = end;
    }
  }

  /** A `text` tensor: decoded (bounded) now, kept when the event turns out whole. */
  private textValue(entry: TagEntry, start: number, end: number): void {
    const text = decodeTextTensor(this.c, start, end, this.texts!.limits);
    if (text === null) this.stagedSkips++;
    else {
      this.pendingTexts.push({ entry, text });
      this.pendingExtras = true;
    }
  }

  private dropExtras(): void {
    this.pendingTexts.length = 0;
    this.pendingHparams = null;
    if (this.pendingHistos.length !== 0) this.pendingHistos.length = 0;
    this.pendingExtras = false;
  }

  /** The event decoded whole: its texts go to the store, its hparams become the file's. */
  private commitExtras(step: number, wallTime: number): void {
    if (this.pendingHparams !== null) this.hparams = this.pendingHparams;
    // (Texts are only decoded when there is a store.)
    const store = this.texts!;
    for (const { entry, text } of this.pendingTexts) {
      store.add(
        {
          tag: entry.name,
          step,
          wallTime,
          cells: text.cells,
          shape: text.shape,
          truncated: text.truncated,
        },
        text.bytes,
      );
    }
    for (let i = 0; i < this.pendingHistos.length; i++)
      this.histos!.add(
        this.pendingHistos[i]!.name,
        step,
        wallTime,
        this.histoScratch[i]!,
        this.pendingLengths[i],
      );
    this.dropExtras();
  }

  /** The `hparams` plugin's content in a value's metadata: a session_start_info's hyperparameters. */
  private hparamsValue(start: number, end: number): void {
    this.eachPluginField(start, end, PLUGIN_CONTENT, (_, s, e) => {
      const found = decodeSessionHparams(this.c, s, e);
      if (found !== null) {
        this.pendingHparams = found;
        this.pendingExtras = true;
      }
    });
  }

  private scalarTensor(entry: TagEntry, t: TensorValues): void {
    if (t.count !== 1) {
      this.stagedSkips++;
      return;
    }
    this.scalar(entry, t.values[0]!, false);
  }

  /** A [k, 3] tensor of (left, right, count) buckets, as TF2's histogram summary writes. */
  private tensorHistogram(entry: TagEntry, t: TensorValues): void {
    if (t.count % 3 !== 0 || (t.count > 0 && t.lastDim !== 3)) {
      this.stagedSkips++;
      return;
    }
    const v = t.values;
    let total = 0;
    let weighted = 0;
    let min = NaN;
    let max = NaN;
    for (let i = 0; i < t.count; i += 3) {
      const left = v[i]!;
      const right = v[i + 1]!;
      const n = v[i + 2]!;
      if (!(n > 0)) continue;
      if (Number.isNaN(min)) min = left;
      max = right;
      total += n;
      weighted += n * ((left + right) / 2);
    }
    this.histogram(entry, total, min, max, total > 0 ? weighted / total : NaN);
    if (this.histos !== null) this.pendHistogram(entry, t.count).set(v.subarray(0, t.count));
  }

  /** A histogram of `length` values to be kept (in the store) once the event turns out whole: the array to fill. */
  private pendHistogram(entry: TagEntry, length: number): Float64Array {
    const i = this.pendingHistos.length;
    let b = this.histoScratch[i];
    if (b === undefined || b.length < length)
      b = this.histoScratch[i] = new Float64Array(Math.max(length, (b?.length ?? 0) * 2, 192));
    this.pendingHistos.push(entry);
    this.pendingLengths[i] = length;
    this.pendingExtras = true;
    return b;
  }

  private classicHistogram(entry: TagEntry, start: number, end: number): void {
    const c = this.c;
    c.pos = start;
    c.end = end;
    let min = 0;
    let max = 0;
    let num = 0;
    let sum = 0;
    const keep = this.histos !== null;
    let nLimits = 0;
    let nCounts = 0;
    while (c.pos < end) {
      const key = c.key();
      if (key === HISTO_MIN) min = c.double();
      else if (key === HISTO_MAX) max = c.double();
      else if (key === HISTO_NUM) num = c.double();
      else if (key === HISTO_SUM) sum = c.double();
      else if (keep && key === HISTO_LIMIT) nLimits = this.addDouble(true, nLimits, c.double());
      else if (keep && key === HISTO_BUCKET) nCounts = this.addDouble(false, nCounts, c.double());
      else if (keep && key === HISTO_LIMITS_PACKED) nLimits = this.packedDoubles(true, nLimits);
      else if (keep && key === HISTO_BUCKETS_PACKED) nCounts = this.packedDoubles(false, nCounts);
      else c.skip(key);
    }
    this.histogram(entry, num, num > 0 ? min : NaN, num > 0 ? max : NaN, num > 0 ? sum / num : NaN);
    if (keep) {
      // As TensorBoard migrates a HistogramProto (data_compat.py): bucket i spans the previous limit
      // (the first: `min`) to its own limit (the last: `max`, not the DBL_MAX TF writes).
      if (nLimits !== nCounts) this.stagedSkips++;
      else {
        const k = nCounts;
        const limits = this.limits;
        const counts = this.counts;
        const b = this.pendHistogram(entry, 3 * k);
        for (let i = 0; i < k; i++) {
          b[3 * i] = i === 0 ? min : limits[i - 1]!;
          b[3 * i + 1] = i === k - 1 ? max : limits[i]!;
          b[3 * i + 2] = counts[i]!;
        }
      }
    }
  }

  /** Sets value n of the limits (or counts) scratch, growing it; returns n + 1. */
  private addDouble(limits: boolean, n: number, v: number): number {
    let a = limits ? this.limits : this.counts;
    if (n === a.length) {
      const next = new Float64Array(a.length * 2);
      next.set(a);
      a = next;
      if (limits) this.limits = a;
      else this.counts = a;
    }
    a[n] = v;
    return n + 1;
  }

  /** A packed repeated double at the cursor, appended to the limits (or counts) scratch from n; returns the new count. */
  private packedDoubles(limits: boolean, n: number): number {
    const c = this.c;
    const len = c.length();
    if (len % 8 !== 0) throw new ProtoError('packed doubles of a length not a multiple of 8');
    const stop = c.pos + len;
    while (c.pos < stop) n = this.addDouble(limits, n, c.double());
    return n;
  }

  /** Stores one scalar value (`f32`: known to be a float32, so its series needs no precision check). */
  private scalar(entry: TagEntry, value: number, f32: boolean): void {
    if (entry.ignored) return;
    if (!this.direct) {
      this.stage(entry, KIND_SCALAR, value, 0, 0, 0);
      return;
    }
    const s = entry.scalar ?? this.createScalar(entry);
    s.beginBatch(this.batch);
    if (f32) s.appendF32(this.step, this.wallTime, value);
    else s.append(this.step, this.wallTime, value);
  }

  private histogram(entry: TagEntry, count: number, min: number, max: number, mean: number): void {
    if (!this.direct) {
      this.stage(entry, KIND_HISTOGRAM, count, min, max, mean);
      return;
    }
    const h = entry.histogram ?? this.createHistogram(entry);
    const { step, wallTime, batch } = this;
    h.count.beginBatch(batch);
    h.count.append(step, wallTime, count);
    h.min.beginBatch(batch);
    h.min.append(step, wallTime, min);
    h.max.beginBatch(batch);
    h.max.append(step, wallTime, max);
    h.mean.beginBatch(batch);
    h.mean.append(step, wallTime, mean);
  }

  private createScalar(entry: TagEntry): ScalarSeries {
    if (!this.scalars.has(entry.name)) this.created.push(entry);
    return (entry.scalar = this.scalars.get(entry.name));
  }

  private createHistogram(entry: TagEntry): HistogramColumns {
    if (!this.histograms.has(histogramSeriesName(entry.name, 'count'))) this.created.push(entry);
    return (entry.histogram = this.histogramColumns(entry.name));
  }

  private stage(entry: TagEntry, kind: number, a: number, b: number, c: number, d: number): void {
    const i = this.staged++;
    if (i === this.stagedKinds.length) {
      const kinds = new Uint8Array(i * 2);
      kinds.set(this.stagedKinds);
      this.stagedKinds = kinds;
      const values = new Float64Array(i * 8);
      values.set(this.stagedValues);
      this.stagedValues = values;
    }
    this.stagedEntries[i] = entry;
    this.stagedKinds[i] = kind;
    const v = this.stagedValues;
    v[i * 4] = a;
    v[i * 4 + 1] = b;
    v[i * 4 + 2] = c;
    v[i * 4 + 3] = d;
  }

  private commit(step: number, wallTime: number): void {
    const v = this.stagedValues;
    for (let i = 0; i < this.staged; i++) {
      const entry = this.stagedEntries[i]!;
      if (this.stagedKinds[i] === KIND_SCALAR) {
        const s = entry.scalar ?? (entry.scalar = this.scalars.get(entry.name));
        s.append(step, wallTime, v[i * 4]!);
      } else {
        const h = entry.histogram ?? (entry.histogram = this.histogramColumns(entry.name));
        h.count.append(step, wallTime, v[i * 4]!);
        h.min.append(step, wallTime, v[i * 4 + 1]!);
        h.max.append(step, wallTime, v[i * 4 + 2]!);
        h.mean.append(step, wallTime, v[i * 4 + 3]!);
      }
    }
    this.staged = 0;
  }

  private histogramColumns(tag: string): HistogramColumns {
    const set = this.histograms;
    return {
      count: set.get(histogramSeriesName(tag, 'count')),
      min: set.get(histogramSeriesName(tag, 'min')),
      max: set.get(histogramSeriesName(tag, 'max')),
      mean: set.get(histogramSeriesName(tag, 'mean')),
    };
  }
}
