// trackio's logged tables, histograms and traces (as trackio 2a027522c487 stores them) as sample rows and buckets.

import { SAMPLE_CELL_CHARS } from '../../shared/samples';
import { binnedHistogramBuckets } from '../readers/histogram-buckets';
import { isPlainObject } from '../readers/rows';

/** `_type` of a `trackio.Table` logged to `metrics` (`Table._to_dict`: `{_type, _value: [row dicts]}`). */
export const TRACKIO_TABLE = 'trackio.table';
/** `_type` of a `trackio.Histogram` logged to `metrics` (`{_type, bins: k + 1 edges, values: k counts}`). */
export const TRACKIO_HISTOGRAM = 'trackio.histogram';

/** A sample's named values, in logged order. */
export type SampleValues = [string, unknown][];

export type Decoded<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * A stored media dict (`TrackioMedia._to_dict`: `{_type: 'trackio.image', file_path, caption}`, also video, audio…)
 * as a short text, `[image x.png]`; the file is never read. Null when `v` is not one.
 */
function mediaText(v: unknown): string | null {
  if (!isPlainObject(v) || typeof v._type !== 'string' || !v._type.startsWith('trackio.')) return null;
  if (typeof v.file_path !== 'string') return null;
  const name = v.file_path.split(/[\\/]/).pop() ?? '';
  return `[${v._type.slice('trackio.'.length)} ${name}]`;
}

/** A table cell: a media dict, or a non-empty list of them (trackio's one cell of several images), as text. */
function tableCell(v: unknown): unknown {
  const one = mediaText(v);
  if (one !== null) return one;
  if (Array.isArray(v) && v.length > 0) {
    const texts = v.map(mediaText);
    if (texts.every((t) => t !== null)) return texts.join(' ');
  }
  return v;
}

/** The rows of a stored `trackio.table` value, each a sample (its dict's keys the columns), or why it is not one. */
export function trackioTableRows(v: Record<string, unknown>): Decoded<SampleValues[]> {
  const rows = v._value;
  if (!Array.isArray(rows)) return { ok: false, message: '"_value" is not a list of rows' };
  const out: SampleValues[] = [];
  for (const row of rows) {
    if (!isPlainObject(row)) return { ok: false, message: 'a row is not an object' };
    out.push(Object.entries(row).map(([k, x]) => [k, tableCell(x)]));
  }
  return { ok: true, value: out };
}

/** The buckets of a stored `trackio.histogram` value; null for a histogram of no data (`bins` and `values` empty). */
export function trackioHistogramBuckets(v: Record<string, unknown>): Decoded<Float64Array | null> {
  if (Array.isArray(v.bins) && v.bins.length === 0 && Array.isArray(v.values) && v.values.length === 0)
    return { ok: true, value: null };
  const buckets = binnedHistogramBuckets({ bins: v.bins, values: v.values });
  return buckets === null
    ? { ok: false, message: 'not k + 1 numeric "bins" edges over k numeric "values"' }
    : { ok: true, value: buckets };
}

/** A message's `content` as text: a string as it is, content parts' `text` (media as `[image x.png]`), else JSON. */
function contentText(c: unknown): string {
  if (c === null || c === undefined) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c))
    return c
      .map((p) =>
        typeof p === 'string'
          ? p
          : isPlainObject(p) && typeof p.text === 'string'
            ? p.text
            : (mediaText(p) ?? JSON.stringify(p)),
      )
      .join('\n');
  return mediaText(c) ?? JSON.stringify(c);
}

/**
 * A trace (`traces.messages`, `traces.metadata` parsed) as one sample: `messages` the messages as text, one
 * `role: content` per message (tool calls as `[tool calls] JSON` after the content), the messages past the first
 * SAMPLE_CELL_CHARS characters left out (the store cuts the text there); then the metadata's top-level scalars (numbers, strings, booleans, null)
 * as columns, one named `messages` as `metadata/messages`.
 */
export function traceSample(messages: unknown, metadata: unknown): Decoded<SampleValues> {
  if (!Array.isArray(messages)) return { ok: false, message: 'messages is not a list' };
  if (!isPlainObject(metadata)) return { ok: false, message: 'metadata is not an object' };
  const lines: string[] = [];
  let chars = -1; // of the lines joined by newlines
  for (const m of messages) {
    if (chars > SAMPLE_CELL_CHARS) break; // the store cuts the text to its cap and marks the row truncated
    let line: string;
    if (isPlainObject(m)) {
      const role = typeof m.role === 'string' ? m.role : '?';
      line = `${role}: ${contentText(m.content)}`;
      if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)
        line += `\n[tool calls] ${JSON.stringify(m.tool_calls)}`;
    } else line = contentText(m);
    lines.push(line);
    chars += line.length + 1;
  }
  const out: SampleValues = [['messages', lines.join('\n')]];
  for (const [k, x] of Object.entries(metadata)) {
    if (x !== null && typeof x === 'object') continue;
    out.push([k === 'messages' ? 'metadata/messages' : k, x]);
  }
  return { ok: true, value: out };
}
