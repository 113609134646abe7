// One MLflow file-store metric file (RUN/metrics/KEY), appended line by line: "timestamp value step".

import { basename, dirname, join, relative, sep } from 'node:path';
import type { SourceFormatName } from '../../shared/formats';
import { LineRecordReader } from '../readers/appended-reader';
import { lines, type Framed } from '../readers/line-framer';
import type { FileIO } from '../readers/file-io';
import type { ReaderOptions } from '../readers/reader';
import { decodeUtf8 } from '../readers/values';

/** An integer as Python's `int()` reads MLflow's timestamps and steps. */
const INT = /^[-+]?\d+$/;
/** A finite float as Python's `float()` reads MLflow's values (`str(float)`: `0.5`, `1e-05`, `3.0`). */
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** The non-finite values `str(float)` writes (`nan`, `inf`, `-inf`), in any case as `float()` takes them. */
const SPECIAL = /^([-+]?)(inf|infinity|nan)$/i;

/** A metric value's text as a number, or undefined when Python's float() would refuse it. */
export function parseMetricValue(text: string): number | undefined {
  if (DECIMAL.test(text)) return Number(text);
  const m = SPECIAL.exec(text);
  if (!m) return undefined;
  if (m[2]!.toLowerCase() === 'nan') return Number.NaN;
  return m[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
}

interface MetricPoint {
  timestampMs: number;
  value: number;
  step: number;
}

/** One metric line into `out`: MLflow's `_get_metric_from_line` (the stripped line split on single spaces into 2
 * or 3 fields; no step means 0). Returns what is wrong with the line, or null: which field, never its text (a metric
 * file linked to another file must not show what that holds). */
function parseInto(line: string, out: MetricPoint): string | null {
  const t = line.trim();
  const a = t.indexOf(' ');
  const b = a < 0 ? -1 : t.indexOf(' ', a + 1);
  if (a < 0 || (b >= 0 && t.indexOf(' ', b + 1) >= 0)) {
    const n = t.split(' ').length;
    return `${n} field${n === 1 ? '' : 's'}, not "timestamp value step"`;
  }
  const ts = t.slice(0, a);
  const val = b < 0 ? t.slice(a + 1) : t.slice(a + 1, b);
  const step = b < 0 ? '0' : t.slice(b + 1);
  if (!INT.test(ts)) return 'the timestamp is not an integer';
  const value = parseMetricValue(val);
  if (value === undefined) return 'the value is not a number';
  if (!INT.test(step)) return 'the step is not an integer';
  out.timestampMs = Number(ts);
  out.value = value;
  out.step = Number(step);
  return null;
}

/** One metric line as MLflow reads it, or what is wrong with it. */
export function parseMetricLine(line: string): MetricPoint | { error: string } {
  const out: MetricPoint = { timestampMs: 0, value: 0, step: 0 };
  const error = parseInto(line, out);
  return error === null ? out : { error };
}

/**
 * The metric key of a file under a run's `metrics/` folder: its path from there, '/'-joined (MLflow stores
 * `train/loss` as metrics/train/loss). The run folder is the nearest one up holding a meta.yaml above a
 * `metrics` folder; without one, the file's name.
 */
export async function metricKey(path: string, io: FileIO): Promise<string> {
  for (let d = dirname(path); dirname(d) !== d; d = dirname(d)) {
    if (basename(d) !== 'metrics') continue;
    try {
      if ((await io.stat(join(dirname(d), 'meta.yaml'))).isFile)
        return relative(d, path).split(sep).join('/');
    } catch {
      // not this one: look further up
    }
  }
  return basename(path);
}

/**
 * Tag: the metric key; step: the line's step; wall time: its timestamp in seconds (MLflow writes ms).
 * A malformed line is a `decode` error (a cut-off last line of a finished file `truncated`); the lines
 * after it are read.
 */
export class MlflowMetricReader extends LineRecordReader {
  readonly format: SourceFormatName = 'mlflow';
  private tag: string | null = null;

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options, false);
  }

  protected override async read(final: boolean): Promise<void> {
    this.tag ??= await metricKey(this.path, this.io);
    await super.read(final);
  }

  protected consume(framed: Framed, _mtime: number, isTail: boolean): void {
    // Metric lines are ASCII: one decode of the whole chunk, whose character offsets are then byte offsets.
    // A chunk holding anything else (a malformed line) goes line by line for exact byte offsets.
    const text = decodeUtf8(framed.bytes);
    if (text.length !== framed.bytes.length) {
      for (const line of lines(framed)) this.line(decodeUtf8(line.bytes), line.offset, isTail);
      return;
    }
    for (let s = 0; s < text.length; ) {
      let e = text.indexOf('\n', s);
      if (e < 0) e = text.length;
      this.line(text.slice(s, e), framed.start + s, isTail);
      s = e + 1;
    }
  }

  /** The point of the line being read (one object for all lines). */
  private readonly point: MetricPoint = { timestampMs: 0, value: 0, step: 0 };

  private line(text: string, offset: number, isTail: boolean): void {
    if (text.trim() === '') return;
    const tag = this.tag ?? basename(this.path);
    const error = parseInto(text, this.point);
    if (error !== null) {
      this.error(isTail ? 'truncated' : 'decode', offset, `MLflow metric ${tag}: ${error}`);
      return;
    }
    const p = this.point;
    this.series.add(tag, p.step, p.timestampMs / 1000, p.value);
    this.countRecords(1);
  }
}
