// Decides which reader a file needs: by name first, then by a look at its first bytes.

import { closeSync, openSync, readSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { SourceFormatName } from '../../shared/formats';
import { mlflowDbSchema } from '../mlflow/mlflow-db';
import { isMlflowRunMeta } from '../mlflow/run-meta';
import { jsonlKind } from '../samples/completions';
import { fileIdentity } from '../readers/file-io';
import { LineFramer, lines } from '../readers/line-framer';
import { pickAxes, isPlainObject, numericLeaves } from '../readers/rows';
import { decodeUtf8, parseJsonLenient, parseNumberCell } from '../readers/values';
import { isLasting, isSqliteHeader, readErrorOf, withSchema } from '../sqlite-db/open-db';
import type { ReadError } from '../readers/types';
import { trackioSchema } from '../trackio/trackio-db';

const HEAD_BYTES = 64 * 1024;

/** JSON files runs often hold that are never metrics. */
const NOT_METRICS_JSON = new Set([
  'config.json',
  'wandb-summary.json',
  'wandb-metadata.json',
  'package.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'generation_config.json',
  'adapter_config.json',
]);

/** The format a file name alone settles, 'sniff' when content must decide, null when never ours. */
export function formatByName(name: string): SourceFormatName | 'sniff' | null {
  const lower = name.toLowerCase();
  if (lower.includes('tfevents')) return 'tfevents';
  if (lower.endsWith('.wandb')) return 'wandb';
  if (lower === 'trainer_state.json') return 'trainer_state';
  if (lower === 'training_progress.json') return 'training_progress';
  if (lower === 'training_metrics.json') return 'json';
  if (lower.endsWith('.csv')) {
    if (
      lower === 'progress.csv' ||
      lower === 'training_metrics.csv' ||
      lower === 'monitor.csv' ||
      lower.endsWith('.monitor.csv')
    )
      return 'csv';
    return 'sniff';
  }
  if (lower.endsWith('.jsonl')) return lower.startsWith('metrics') ? 'jsonl' : 'sniff';
  if (lower.endsWith('.json')) return NOT_METRICS_JSON.has(lower) ? null : 'sniff';
  if (lower === 'meta.yaml') return 'sniff'; // an MLflow run's, or an experiment's (never ours)
  if (lower.endsWith('.db')) return 'sniff'; // a trackio project's or MLflow's tracking database, by its tables
  return null;
}

/** Whether a file at `rel` (its path under the opened folder, `/` or the platform's separator) could be read as a source:
 * a name formatByName never takes cannot, unless it lies under a `metrics` folder (an MLflow run's metric files have
 * any name). A write to one that cannot (a trainer's `stdout.log`) is no reason to walk the folder again (#36). */
export function mayBeSource(rel: string): boolean {
  const parts = rel.split(/[\\/]/);
  return formatByName(parts[parts.length - 1]!) !== null || parts.slice(0, -1).includes('metrics');
}

/** The format of `path` (whose base name is `name`), or null when it is not a metrics source. `sync` (a local disk): its
 * head is read with synchronous calls (10k heads through the threadpool cost seconds, #36). */
export async function classifyFile(
  path: string,
  name: string,
  inMetricsDir = false,
  sync = false,
): Promise<SourceFormatName | null> {
  const byName = formatByName(name);
  if (byName !== 'sniff') return byName;
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv') && inMetricsDir) return 'csv';
  if (lower.endsWith('.db')) return sniffDatabase(path);
  const head = sync ? readHeadSync(path) : await readHead(path);
  if (head === null) return null;
  if (lower.endsWith('.csv')) return sniffCsv(head, METRICS_NAME.test(lower)) ? 'csv' : null;
  if (lower.endsWith('.jsonl')) return sniffJsonlKind(head, lower);
  if (lower === 'meta.yaml') return isMlflowRunMeta(head) ? 'mlflow' : null;
  return sniffJson(head);
}

/**
 * A tracker's database, by its tables: trackio's `metrics (id, timestamp, run_name, step, metrics)`, or MLflow's
 * `runs` and `metrics`. Opened read-only for a few schema queries; anything else (not SQLite, damaged, cut short,
 * mid-commit) is not a source, and what kept an SQLite file from being read is `databaseProblem`'s to tell.
 */
export async function sniffDatabase(path: string): Promise<'trackio' | 'mlflow' | null> {
  const head = await readHeadBytes(path, 16);
  if (head === null || !isSqliteHeader(head)) {
    sniffed.delete(path);
    return null;
  }
  // Rediscovery sniffs every .db again: a database whose files have not changed keeps its verdict (another app's
  // large WAL database is not copied again each time).
  const stamp = await filesStamp(path);
  const known = sniffed.get(path);
  if (known && known.stamp === stamp) return known.format;
  let format: 'trackio' | 'mlflow' | null = null;
  let error: ReadError | null = null;
  let busy = false;
  // A writer's commit under way is tried once more: a hot journal still there unchanged is a writer stopped mid-commit.
  for (let tries = 0; tries < 2; tries++) {
    try {
      format = withSchema(path, (db) =>
        trackioSchema(db) ? 'trackio' : mlflowDbSchema(db) ? 'mlflow' : null,
      );
      [error, busy] = [null, false];
      break;
    } catch (e) {
      busy = !isLasting(e);
      error = busy ? null : readErrorOf(e);
      if (!busy) break;
    }
  }
  // A commit still under way is no verdict: the next look tries again.
  if (!busy) sniffed.set(path, { stamp, format, error });
  return format;
}

/** Why the last look at the SQLite file at `path` (`sniffDatabase`) could not tell what it is, or null: it was read. */
export function databaseProblem(path: string): ReadError | null {
  return sniffed.get(path)?.error ?? null;
}

/** The last verdict on each database path, with the state of its files then, and why it could not be read. */
const sniffed = new Map<
  string,
  { stamp: string; format: 'trackio' | 'mlflow' | null; error: ReadError | null }
>();

/** The database's and its `-wal`'s identity, size and mtime (a writer's new tables may sit in the `-wal`). */
async function filesStamp(path: string): Promise<string> {
  const one = async (p: string): Promise<string> => {
    try {
      const st = await stat(p);
      return `${fileIdentity(st)}:${st.size}:${st.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  return `${await one(path)}|${await one(`${path}-wal`)}`;
}

/** A head is read this much first: a run's metrics file just begun (a header and a few rows) is whole in it, and the
 * 64 KiB buffer the rest need is not allocated for each of 10k small files (#36). */
export const FIRST_HEAD_READ = 4096;

/** The first `n` bytes of `path` (fewer for a shorter file): FIRST_HEAD_READ of them first, the rest if it has more. */
async function readHeadBytes(path: string, n: number): Promise<Uint8Array | null> {
  try {
    const h = await open(path, 'r');
    try {
      const first = new Uint8Array(Math.min(n, FIRST_HEAD_READ));
      const { bytesRead } = await h.read(first, 0, first.length, 0);
      if (bytesRead < first.length || first.length === n) return first.subarray(0, bytesRead);
      const buf = new Uint8Array(n);
      buf.set(first);
      const more = await h.read(buf, first.length, n - first.length, first.length);
      return buf.subarray(0, first.length + more.bytesRead);
    } finally {
      await h.close().catch(() => undefined);
    }
  } catch {
    return null;
  }
}

/** `readHeadBytes`'s HEAD_BYTES with synchronous calls, decoded. */
function readHeadSync(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const first = new Uint8Array(FIRST_HEAD_READ);
    const got = readSync(fd, first, 0, first.length, 0);
    if (got < first.length) return decodeUtf8(first.subarray(0, got));
    const buf = new Uint8Array(HEAD_BYTES);
    buf.set(first);
    const more = readSync(fd, buf, first.length, HEAD_BYTES - first.length, first.length);
    return decodeUtf8(buf.subarray(0, first.length + more));
  } catch {
    return null;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // nothing to do: the file was only read
    }
  }
}

async function readHead(path: string): Promise<string | null> {
  const bytes = await readHeadBytes(path, HEAD_BYTES);
  return bytes === null ? null : decodeUtf8(bytes);
}

/** Generic CSV names that suggest training logs (baselines writes progress.<timestamp>.csv). */
const METRICS_NAME = /progress|metric|monitor|train|eval|log|history|stats|result/;

/**
 * A header line, then a row with at least one number; and either a log-like file name or a
 * step-like column, so that data tables (nvidia-smi dumps, datasets) are not taken for runs.
 */
export function sniffCsv(head: string, metricsName: boolean): boolean {
  const rows = head.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const header = rows[0];
  const first = rows[1];
  if (header === undefined || first === undefined || !header.includes(',')) return false;
  if (!first.split(',').some((c) => parseNumberCell(c.replace(/"/g, '')) !== undefined)) return false;
  return metricsName || pickAxes(header.split(',').map((c) => c.trim().replace(/"/g, ''))).step !== null;
}

/** A metrics JSONL line: a JSON object with a step-like key and a numeric value besides it. */
function isMetricsObject(obj: Record<string, unknown>): boolean {
  const axes = pickAxes(Object.keys(obj));
  return axes.step !== null && numericLeaves(obj, new Set([axes.step])).length > 0;
}

/** A JSONL file's kind from its first objects: completions (prompt/completion text), metrics, or neither. */
export function sniffJsonlKind(head: string, name: string): 'jsonl' | 'completions' | null {
  const objects = headObjects(head, 5);
  // A first sample longer than the head (a 1 MB completion) parses as nothing: its keys still show.
  if (
    objects.length === 0 &&
    head.trimStart().startsWith('{') &&
    CUT_SAMPLE.test(head) &&
    CUT_STEP.test(head)
  )
    return 'completions';
  return jsonlKind(objects, name, isMetricsObject);
}

/** A step key with a number, in a first line the head cut. */
const CUT_STEP = /"(step|global_step|_step|iteration|epoch)"\s*:\s*-?\d/;
/** A text key of a sample followed by a string, in a first line the head cut. */
const CUT_SAMPLE =
  /"(prompt|completion|response|generation|output|answer|query|question|text|chosen|rejected)s?"\s*:\s*"/i;

/** The first `n` lines of `head` that are JSON objects, stopping at the first that is not (or is cut). */
function headObjects(head: string, n: number): Record<string, unknown>[] {
  const framer = new LineFramer(false);
  const framed = framer.push(new TextEncoder().encode(head), 0, () => undefined);
  const out: Record<string, unknown>[] = [];
  if (!framed) return out;
  for (const line of lines(framed)) {
    const text = decodeUtf8(line.bytes).trim();
    if (text === '') continue;
    const parsed = parseJsonLenient(text);
    if (!parsed.ok || !isPlainObject(parsed.value)) break;
    out.push(parsed.value);
    if (out.length >= n) break;
  }
  return out;
}

/** JSON documents: an array of objects (history), trainer state, or progress metadata. */
export function sniffJson(head: string): SourceFormatName | null {
  const t = head.trimStart();
  if (t.startsWith('[')) return /^\[\s*\{/.test(t) ? 'json' : null;
  if (!t.startsWith('{')) return null;
  if (t.includes('"log_history"')) return 'trainer_state';
  if (/"(completed_chunks|requests_done|latest_checkpoint)"\s*:/.test(t)) return 'training_progress';
  if (/"(global_step|step)"\s*:/.test(t) && /"(max_steps|total_steps)"\s*:/.test(t))
    return 'training_progress';
  return null;
}
