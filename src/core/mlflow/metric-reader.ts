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
/** A float as Python's `float()` reads MLflow's values (`str(float)`: `0.5`, `1e-05`, `nan`, `inf`, `-inf`). */
const FLOAT = /^[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|infinity|nan)$/i;

/** A metric value's text as a number, or undefined when Python's float() would refuse it. */
export function parseMetricValue(text: string): number | undefined {
  if (!FLOAT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower === 'nan' || lower === '-nan') return Number.NaN;
  if (lower === 'inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** One metric line: MLflow's `_get_metric_from_line` (2 or 3 space-separated fields; no step means 0). */
export function parseMetricLine(
  line: string,
): { timestampMs: number; value: number; step: number } | { error: string } {
  const parts = line.trim().split(' ');
  if (parts.length !== 2 && parts.length !== 3)
    return { error: `${parts.length} fields, not "timestamp value step"` };
  const [ts, val, step = '0'] = parts as [string, string, string?];
  if (!INT.test(ts)) return { error: `timestamp ${JSON.stringify(ts)} is not an integer` };
  const value = parseMetricValue(val);
  if (value === undefined) return { error: `value ${JSON.stringify(val)} is not a number` };
  if (!INT.test(step)) return { error: `step ${JSON.stringify(step)} is not an integer` };
  return { timestampMs: Number(ts), value, step: Number(step) };
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
    const tag = this.tag ?? basename(this.path);
    for (const line of lines(framed)) {
      const text = decodeUtf8(line.bytes);
      if (text.trim() === '') continue;
      const m = parseMetricLine(text);
      if ('error' in m) {
        this.error(isTail ? 'truncated' : 'decode', line.offset, `MLflow metric ${tag}: ${m.error}`);
        continue;
      }
      this.series.add(tag, m.step, m.timestampMs / 1000, m.value);
      this.countRecords(1);
    }
  }
}
