// Decodes TensorFlow Event protos into columnar scalar and histogram series (hand-written, no per-point objects).

import type { SeriesSet } from '../series/series-set';
import { ProtoCursor } from './proto-cursor';
import { decodeTensor, TensorValues } from './tensor-decoder';
import { PLUGIN_HISTOGRAMS, PLUGIN_OTHER, PLUGIN_SCALARS, PLUGIN_UNSET, TagTable } from './tag-table';
import type { HistogramColumns, PluginKind, TagEntry } from './tag-table';

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
const HISTO_MIN = (1 << 3) | 1;
const HISTO_MAX = (2 << 3) | 1;
const HISTO_NUM = (3 << 3) | 1;
const HISTO_SUM = (4 << 3) | 1;

const KIND_SCALAR = 0;
const KIND_HISTOGRAM = 1;

const SCALARS = new TextEncoder().encode('scalars');
const HISTOGRAMS = new TextEncoder().encode('histograms');

function bytesEqual(buf: Uint8Array, start: number, end: number, want: Uint8Array): boolean {
  if (end - start !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (buf[start + i] !== want[i]) return false;
  return true;
}

/**
 * One decoder per file: it remembers each tag's plugin (TF writes it only on the first value) and
 * stages an event's values so a record that fails half-way stores nothing.
 */
export class EventDecoder {
  /** The file's `file_version` string (e.g. "brain.Event:2"), once seen. */
  fileVersion: string | null = null;
  /** Values that were well-formed but not storable (string tensors, non-scalar `scalars` tensors…). */
  skippedValues = 0;

  private readonly c = new ProtoCursor();
  private readonly tags = new TagTable();
  private readonly tensor = new TensorValues();
  // Staged values of the event being decoded: entry, kind and four numbers per value.
  private stagedEntries: TagEntry[] = [];
  private stagedKinds = new Uint8Array(16);
  private stagedValues = new Float64Array(64);
  private staged = 0;
  private stagedSkips = 0;

  constructor(
    private readonly scalars: SeriesSet,
    private readonly histograms: SeriesSet,
  ) {}

  /** Decodes one Event payload; throws ProtoError (storing nothing) when it is malformed. */
  decode(payload: Uint8Array): void {
    const c = this.c;
    c.reset(payload, 0, payload.length);
    this.staged = 0;
    this.stagedSkips = 0;
    let wallTime = 0;
    let step = 0;
    let versionStart = -1;
    let versionEnd = -1;
    while (c.pos < c.end) {
      const key = c.key();
      if (key === EVENT_SUMMARY) {
        const n = c.length();
        const end = c.pos + n;
        c.end = end;
        this.summary();
        c.end = payload.length;
      } else if (key === EVENT_WALL_TIME) {
        wallTime = c.double();
      } else if (key === EVENT_STEP) {
        step = c.varint();
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
      this.fileVersion = new TextDecoder().decode(payload.subarray(versionStart, versionEnd));
    this.skippedValues += this.stagedSkips;
    this.commit(step, wallTime);
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
    if (metaStart >= 0 && entry.plugin === PLUGIN_UNSET) {
      entry.plugin = this.pluginOf(metaStart, metaEnd);
      c.end = end;
    }
    if (hasSimple) {
      this.stage(entry, KIND_SCALAR, simple, 0, 0, 0);
    } else if (histoStart >= 0) {
      this.classicHistogram(entry, histoStart, histoEnd);
      c.end = end;
    } else if (tensorStart >= 0 && (entry.plugin === PLUGIN_SCALARS || entry.plugin === PLUGIN_HISTOGRAMS)) {
      c.pos = tensorStart;
      c.end = tensorEnd;
      const t = this.tensor;
      const ok = decodeTensor(c, t);
      c.end = end;
      if (!ok) this.stagedSkips++;
      else if (entry.plugin === PLUGIN_SCALARS) this.scalarTensor(entry, t);
      else this.tensorHistogram(entry, t);
    }
  }

  private pluginOf(start: number, end: number): PluginKind {
    const c = this.c;
    c.pos = start;
    c.end = end;
    let kind: PluginKind = PLUGIN_UNSET;
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
        if (k !== PLUGIN_NAME) {
          c.skip(k);
          continue;
        }
        const len = c.length();
        const s = c.pos;
        c.pos += len;
        if (bytesEqual(c.buf, s, s + len, SCALARS)) kind = PLUGIN_SCALARS;
        else if (bytesEqual(c.buf, s, s + len, HISTOGRAMS)) kind = PLUGIN_HISTOGRAMS;
        else if (len > 0) kind = PLUGIN_OTHER;
      }
      c.end = end;
    }
    return kind;
  }

  private scalarTensor(entry: TagEntry, t: TensorValues): void {
    if (t.count !== 1) {
      this.stagedSkips++;
      return;
    }
    this.stage(entry, KIND_SCALAR, t.values[0]!, 0, 0, 0);
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
    this.stage(entry, KIND_HISTOGRAM, total, min, max, total > 0 ? weighted / total : NaN);
  }

  private classicHistogram(entry: TagEntry, start: number, end: number): void {
    const c = this.c;
    c.pos = start;
    c.end = end;
    let min = 0;
    let max = 0;
    let num = 0;
    let sum = 0;
    while (c.pos < end) {
      const key = c.key();
      if (key === HISTO_MIN) min = c.double();
      else if (key === HISTO_MAX) max = c.double();
      else if (key === HISTO_NUM) num = c.double();
      else if (key === HISTO_SUM) sum = c.double();
      else c.skip(key);
    }
    this.stage(
      entry,
      KIND_HISTOGRAM,
      num,
      num > 0 ? min : NaN,
      num > 0 ? max : NaN,
      num > 0 ? sum / num : NaN,
    );
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
